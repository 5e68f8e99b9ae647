"""The LLM client against hostile endpoints (#26): reply bodies bounded in bytes and time apart
from ``--timeout``, keys stripped and checked before use, every echo form of a key redacted,
and the context-length errors of SGLang, TGI, Gemini and Ollama recognised (real bodies)."""

from __future__ import annotations

import asyncio
import base64
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner
from fake_openai import CONTEXT_ERRORS, FakeOpenAI, Out, context_limit
from test_llm_hardening import KEY, LIGHTS, agent, api_key, lights, play, suite  # noqa: F401

from arena_gen.agents.llm_client import ChatClient, checked_key
from arena_gen.cli import main
from arena_gen.core.episode import InfraError
from arena_gen.core.errors import ArenaGenError
from arena_gen.core.redact import REDACTED, redact_text, scrub
from arena_gen.core.task import Task


def ask(server: FakeOpenAI, **over: Any) -> Any:
    """One completion from a fresh client against ``server``."""
    async def go() -> Any:
        client = ChatClient(base_url=server.url, retries=0, backoff=0.001, **over)
        try:
            return await client.complete({"messages": []}, np.random.default_rng(0))
        finally:
            await client.aclose()

    return asyncio.run(go())


# -- reply bodies --------------------------------------------------------------------------------
def test_endless_chunked_reply_stops_at_the_byte_cap() -> None:
    """It read 2.8 GB in 7.5 s (--timeout 5) and would read for 450 s at the default timeout."""
    with FakeOpenAI([], fault=lambda s: Out(endless=True)) as server:
        start = time.perf_counter()
        with pytest.raises(InfraError, match="larger than 1048576 bytes") as err:
            ask(server, timeout=30.0, max_reply_bytes=1 << 20)
        seconds = time.perf_counter() - start
    assert seconds < 10, seconds
    assert "ARENA_GEN_MAX_REPLY_BYTES" in str(err.value)


def test_default_byte_cap_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_GEN_MAX_REPLY_BYTES", "2097152")
    assert ChatClient(base_url="http://127.0.0.1:9/v1").max_reply_bytes == 2 << 20
    monkeypatch.setenv("ARENA_GEN_MAX_REPLY_BYTES", "lots")
    with pytest.raises(ArenaGenError, match="ARENA_GEN_MAX_REPLY_BYTES"):
        ChatClient(base_url="http://127.0.0.1:9/v1")


def test_trickling_reply_stops_at_the_time_cap() -> None:
    """A body that keeps coming (a byte every 50 ms never trips a read timeout) stops after
    ``max_reply_seconds`` whatever ``timeout`` says."""
    with FakeOpenAI([], fault=lambda s: Out(endless=True, chunk=b" ", every=0.05)) as server:
        start = time.perf_counter()
        with pytest.raises(InfraError, match="took longer than 1 s"):
            ask(server, timeout=60.0, max_reply_seconds=1.0)
        seconds = time.perf_counter() - start
    assert 0.9 < seconds < 8, seconds


def test_endless_reply_ends_the_episode_as_an_infra_error(lights: Task) -> None:  # noqa: F811
    with FakeOpenAI([], fault=lambda s: Out(endless=True)) as server:
        rec = play(lights, agent(server, timeout=30.0, retries=0))
    assert rec["end_reason"] == "infra_error" and rec["steps"] == 0
    assert "larger than 8388608 bytes" in rec["error"]


# -- keys ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("pasted", [KEY + "\n", KEY + "\t", f"  {KEY}\r\n"])
def test_key_with_surrounding_whitespace_is_stripped_and_works(pasted: str) -> None:
    """A key ending in \\n was sent whole: httpx's 'Illegal header value' error (holding the
    key) went into trajectories.jsonl."""
    with FakeOpenAI([], key=KEY, fault=lambda s: Out(content="<action>0</action>")) as server:
        done = ask(server, api_key=pasted)
        (seen,) = server.seen
    assert done.content == "<action>0</action>"
    assert seen.authorization == f"Bearer {KEY}"


@pytest.mark.parametrize("bad, what", [(KEY[:10] + "\x01" + KEY[10:], "a control character"),
                                       (KEY[:10] + "\u200b" + KEY[10:], "an invisible character"),
                                       (KEY[:10] + " " + KEY[10:], "a space"),
                                       (KEY[:10] + "é" + KEY[10:], "a non-ASCII character")])
def test_key_with_a_bad_character_is_refused_without_showing_it(bad: str, what: str) -> None:
    with pytest.raises(ArenaGenError, match=what) as err:
        checked_key(bad)
    assert "position 11 of" in str(err.value)
    assert KEY[:8] not in str(err.value) and KEY[-8:] not in str(err.value)


def test_run_with_a_control_character_in_the_key_fails_cleanly(suite: Path,  # noqa: F811
                                                                tmp_path: Path) -> None:
    out = tmp_path / "run"
    with FakeOpenAI([], fault=lambda s: Out(content="<action>0</action>")) as server:
        result = CliRunner().invoke(main, [
            "run", "--suite", str(suite), "--agent", "llm", "--model", "fake",
            "--base-url", server.url, "--tasks", LIGHTS, "--out", str(out),
            "--display", "none", "--retries", "0"],
            env={"OPENAI_API_KEY": KEY[:5] + "\x07" + KEY[5:]})
        assert server.seen == []  # nothing was sent
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output
    assert "holds a control character" in result.output
    for file in out.rglob("*") if out.exists() else []:
        assert KEY[5:] not in file.read_text(encoding="utf-8", errors="replace"), file


# -- redaction -----------------------------------------------------------------------------------
def echoes(key: str) -> dict[str, str]:
    """The forms a server or a client's error can echo a key in (the recorded leaks of #26)."""
    return {
        "exact": key,
        "upper": key.upper(),
        "lower": key.lower(),
        "base64": base64.b64encode(key.encode()).decode(),
        "base64 of the header": base64.b64encode(f"Bearer {key}".encode()).decode(),
        "urlsafe base64": base64.urlsafe_b64encode(f"k={key}".encode()).decode(),
        "hex": key.encode().hex(),
        "upper hex": key.encode().hex().upper(),
        "zero-width split": "\u200b".join(key),
        "missing 4 characters": key[:-4],
        "middle part": key[6:18],
        "json escaped": json.dumps(key, ensure_ascii=True).replace("s", "\\u0073")[1:-1],
        "with whitespace": f" {key}\n",
    }


@pytest.mark.parametrize("form", sorted(echoes(KEY)))
def test_every_echo_form_of_the_key_is_redacted(form: str) -> None:
    text = f"the server said: {echoes(KEY)[form]} (end)"
    out = redact_text(text, [KEY])
    assert REDACTED in out and out.startswith("the server said: ") and out.endswith(" (end)")
    assert KEY[:8] not in out and KEY[-8:] not in out.replace(REDACTED, "")
    assert scrub({"k": [text]}, KEY) == {"k": [out]}


def test_redaction_keeps_other_text_and_short_secrets_exact() -> None:
    assert redact_text("nothing secret here", [KEY]) == "nothing secret here"
    assert redact_text("pass Pass PASS", ["pass"]) == f"{REDACTED} Pass PASS"


def test_echoes_in_a_reply_never_reach_the_record(lights: Task) -> None:  # noqa: F811
    every = " | ".join(echoes(KEY).values())
    with FakeOpenAI([], fault=lambda s: Out(content=f"{every} <action>0</action>",
                                            reasoning_content=every)) as server:
        rec = play(lights, agent(server, retries=0))
    text = json.dumps(rec, ensure_ascii=False)
    for form, echo in echoes(KEY).items():
        if form != "with whitespace":
            assert echo not in text, form
    assert KEY[4:12] not in text and KEY.upper()[4:12] not in text


# -- context errors ------------------------------------------------------------------------------
@pytest.mark.parametrize("flavor", ["sglang", "tgi", "gemini", "ollama"])
def test_context_errors_of_more_servers_shrink_the_window(flavor: str,
                                                          lights: Task) -> None:  # noqa: F811
    """These bodies ended episodes as infra_error at turn 34; now old turns are dropped."""
    limit = 8000
    with FakeOpenAI([], fault=context_limit(limit, flavor)) as server:
        rec = play(lights, agent(server))
    assert rec["end_reason"] == "budget" and rec["steps"] == 200 and "error" not in rec
    assert rec["turns"][-1]["context"]["turns_dropped"] > 100
    assert flavor in CONTEXT_ERRORS


# -- the connection pool -------------------------------------------------------------------------


def test_cancelled_requests_never_leave_the_pool_wedged() -> None:
    """Requests cancelled mid-flight (an episode cancelled, a try past its deadline) must not
    leave a connection in httpcore's pool for good: with max_connections=1 one leaked slot made
    every later request time out (the hostile-stream fuzz stalled after ~6,000 cases, each
    waiting out the pool timeout). A try is abandoned, not cancelled, and ends by itself."""
    from fuzz_bounded import _hostile_server

    async def settled(client: ChatClient) -> bool:
        """Wait (at most 5 s) for the pool to hold no connection in use: none was leaked."""
        deadline = time.monotonic() + 5
        connector = client._session.connector if client._session else None
        while connector is not None and connector._acquired:  # type: ignore[attr-defined]
            if time.monotonic() > deadline:
                return False
            await asyncio.sleep(0.01)
        return True

    async def go() -> tuple[int | None, str]:
        client = ChatClient(base_url=_hostile_server(), api_key=KEY, timeout=3.0, retries=0,
                            backoff=0.001, max_connections=1, max_reply_seconds=0.1)
        rng = np.random.default_rng(0)
        hows = ["ok", "padded", "endless", "status", "short"]
        wedged = None
        try:
            for i in range(120):  # before the fix: wedged after 33-46 of them
                payload = {"how": hows[i % len(hows)], "size": 4096, "seed": i}
                try:  # cancelled after 0-4 ms: in the handshake, the headers or the body
                    await asyncio.wait_for(client.complete(payload, rng), (i * 7 % 5) / 1000)
                except (asyncio.TimeoutError, InfraError):
                    pass
                if not await settled(client):
                    wedged = i
                    break
            reply = await client.complete({"how": "ok", "size": 0, "seed": 0}, rng)
            return wedged, reply.content
        except InfraError as exc:
            return wedged, str(exc)
        finally:
            await client.aclose()

    assert asyncio.run(go()) == (None, "<action>0</action>")
