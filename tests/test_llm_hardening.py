"""LLM agent against hostile endpoints (#16): huge replies, surrogates, echoed keys, context
overflow, deeply nested bodies; each test replays one measured failure on a loopback server."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner
from fake_openai import CONTEXT_ERRORS, CONTEXT_STATUS, FakeOpenAI, Out, context_limit, nested_body

from arena_gen.agents.llm import MAX_ACTION_CHARS, MAX_REPLY_CHARS, LLMAgent
from arena_gen.agents.llm_client import ChatClient, ContextLengthError, is_context_error
from arena_gen.cli import main
from arena_gen.core.episode import InfraError
from arena_gen.core.suite_io import read_suite, write_suite
from arena_gen.core.task import Task
from arena_gen.runner.async_exec import run_episode_async
from arena_gen.runner.run import RunConfig, run_suite
from arena_gen.runner.rundir import RunDir
from arena_gen.scoring.score import score_run
from arena_gen.suite.build import build_suite

KEY = "sk-test-hardening-0123456789SECRET"
LIGHTS = "lights-lite-7-0000"
# its sha256 in the manifest of suites/lite as released until 2026-12-02 (git history)
LIGHTS_V2_SHA256 = "dbf402998c46da0497e8aa33ecc4c3704be83a63b3964f56f999232602e780a1"


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A one-task suite holding lights v2's Lite task 0 as released until 2026-12-02 (10
    bulbs, 200 turns: the long episodes these tests need; v3's Lite has 50)."""
    built = build_suite("lite", 7, ["lights"], counts={"lights": 1}, versions={"lights": 2})
    assert [t.sha256 for t in built.tasks["lights"]] == [LIGHTS_V2_SHA256]
    return write_suite(tmp_path_factory.mktemp("suite") / "lite", built.manifest, built.tasks)


@pytest.fixture(scope="module")
def lights(suite: Path) -> Task:
    """Lights v2's Lite task 0 (10 bulbs, budget 200)."""
    (task,) = read_suite(suite).all_tasks()
    assert task.id == LIGHTS and task.budget == 200
    return task


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    return KEY


def agent(server: FakeOpenAI, **over: Any) -> LLMAgent:
    cfg: dict[str, Any] = {"model": "fake-model", "base_url": server.url, "timeout": 5.0,
                           "retries": 1, "backoff": 0.001}
    cfg.update(over)
    return LLMAgent(**cfg)


def play(task: Task, player: LLMAgent) -> dict[str, Any]:
    """One episode on the async path with one client (a client per turn costs 36 ms of TLS)."""
    async def go() -> dict[str, Any]:
        try:
            return await run_episode_async(task, player)
        finally:
            if player.client is not None:
                await player.client.aclose()

    return asyncio.run(go())


def run_lights(suite: Path, out: Path, server: FakeOpenAI, *, attempts: int = 1,
               **over: Any) -> RunDir:
    cfg: dict[str, Any] = {"model": "fake-model", "base_url": server.url, "timeout": 5.0,
                           "retries": 1, "backoff": 0.001, "max_connections": 2}
    cfg.update(over)
    return run_suite(RunConfig(suite=str(suite), agent="llm", attempts=attempts, out=str(out),
                               tasks=[LIGHTS], agent_config=cfg))


def always(content: str) -> Any:
    return lambda seen: Out(content=content)


# -- H2 / M8: huge replies ------------------------------------------------------------------------
def test_unclosed_action_replies_do_not_stall_the_run(suite: Path, tmp_path: Path) -> None:
    """25 replies of 96 KB of unclosed <action> tags stalled a 2-episode run for 349 s."""
    reply = "<action>" * 12_288
    with FakeOpenAI([], fault=lambda s: Out(content=reply if s.index < 25 else
                                            "<action>0</action>")) as server:
        start = time.perf_counter()
        rundir = run_lights(suite, tmp_path / "run", server, attempts=2)
        seconds = time.perf_counter() - start
    records = rundir.records()
    assert [r["end_reason"] for r in records] == ["budget", "budget"]
    assert seconds < 30, seconds
    flooded = [t for r in records for t in r["turns"] if t.get("no_action_tag")]
    assert len(flooded) == 25
    for turn in flooded:
        assert turn["truncated"] == {"raw": len(reply) - MAX_REPLY_CHARS}
        assert len(turn["raw"]) < MAX_REPLY_CHARS + 100


def test_five_megabyte_reply_is_capped_and_its_action_still_played(lights: Task) -> None:
    reply = "<think>" + "why " * 1_250_000 + "</think>" + "x" * 100_000 + "<action>3</action>"
    with FakeOpenAI([], fault=lambda s: Out(content=reply if s.index == 0 else
                                            "<action>0</action>")) as server:
        rec = play(lights, agent(server, max_reply_chars=1000))
    turn = rec["turns"][0]
    assert turn["action"] == "3" and turn["valid"]
    assert turn["raw"].endswith("<action>3</action>") and len(turn["raw"]) < 1100
    assert turn["truncated"] == {"raw": len(reply) - 1000, "reasoning": 5_000_000 - 1 - 1000}
    assert len(turn["reasoning"]) < 1100
    assert len(json.dumps(rec)) < 200 * 4000


def test_megabyte_action_is_cut_before_it_is_played_and_replayed(lights: Task) -> None:
    huge = "7" + " " * 1_000_000 + "8"
    with FakeOpenAI([], fault=lambda s: Out(content=f"<action>{huge}</action>" if s.index == 0
                                            else "<action>0</action>")) as server:
        rec = play(lights, agent(server))
        prompts = [len(s.prompt) for s in server.seen]
    first = rec["turns"][0]
    assert first["action"] == huge[:MAX_ACTION_CHARS] and first["truncated"] == {
        "action": len(huge) - MAX_ACTION_CHARS, "raw": len(huge) + 17 - MAX_REPLY_CHARS}
    # every later prompt replays at most the capped action, not the megabyte
    assert max(prompts[1:]) < prompts[1] + 200 * 400 and prompts[1] < 20_000


# -- H3: lone surrogates ------------------------------------------------------------------------
def test_lone_surrogate_in_a_reply_is_written_not_fatal(suite: Path, tmp_path: Path) -> None:
    with FakeOpenAI([], fault=always("bad \ud800 byte <action>0\udfff</action>")) as server:
        rundir = run_lights(suite, tmp_path / "run", server, attempts=2)
    records = rundir.records()
    assert [r["end_reason"] for r in records] == ["budget", "budget"]
    turn = records[0]["turns"][0]
    assert turn["raw"] == "bad \ufffd byte <action>0\ufffd</action>"
    assert turn["action"] == "0\ufffd" and not turn["valid"]


def test_rundir_append_replaces_surrogates_in_keys_and_values() -> None:
    """The line ``RunDir.append`` writes (its one serialiser, ``utf8_line``) is strict UTF-8."""
    import json

    from arena_gen.runner.rundir import utf8_line

    line = utf8_line({"task_id": "t\ud83d", "attempt": 0, "end_reason": "budget",
                      "turns": [{"raw": "a\udc80b", "k\ud800": ["\ud800\udc00"]}]})
    assert json.loads(line.decode("utf-8")) == {  # strict UTF-8 on disk
        "task_id": "t\ufffd", "attempt": 0, "end_reason": "budget",
        "turns": [{"raw": "a\ufffdb", "k\ufffd": ["\ufffd\ufffd"]}]}


# -- M1: the key and URL credentials never reach the run directory ------------------------------
def test_key_echoed_in_finish_reason_is_redacted(suite: Path, tmp_path: Path) -> None:
    with FakeOpenAI([], fault=lambda s: Out(content=f"<action>0</action> {KEY}",
                                            finish_reason=f"stop:{KEY}")) as server:
        rundir = run_lights(suite, tmp_path / "run", server)
    turn = rundir.records()[0]["turns"][0]
    assert turn["finish_reason"] == "stop:[REDACTED]"
    for file in rundir.path.rglob("*"):
        assert KEY not in file.read_text(encoding="utf-8"), file


def test_base_url_credentials_are_not_recorded(suite: Path, tmp_path: Path) -> None:
    password, token = "pa55-word-4321", "qk-secret-98765"
    with FakeOpenAI([], fault=lambda s: Out(status=500, body=b"boom")) as server:
        url = server.url.replace("http://", f"http://alice:{password}@") + f"?api_key={token}"
        rundir = run_lights(suite, tmp_path / "run", server, base_url=url)
    meta = rundir.read_meta()
    assert meta["agent"]["config"]["base_url"] == (
        server.url.replace("http://", "http://[REDACTED]@") + "?api_key=[REDACTED]")
    (rec,) = rundir.records()
    assert rec["end_reason"] == "infra_error" and "HTTP 500" in rec["error"]
    for file in rundir.path.rglob("*"):
        text = file.read_text(encoding="utf-8")
        assert password not in text and token not in text, file


# -- C1: context length ---------------------------------------------------------------------------
@pytest.mark.parametrize("flavor", sorted(CONTEXT_ERRORS))
def test_real_context_error_bodies_are_recognised(flavor: str) -> None:
    assert is_context_error(CONTEXT_STATUS.get(flavor, 400), CONTEXT_ERRORS[flavor])
    assert not is_context_error(500, CONTEXT_ERRORS[flavor])


def test_other_bad_requests_are_not_context_errors() -> None:
    assert not is_context_error(400, b'{"error": {"message": "temperature must be <= 2"}}')
    assert not is_context_error(400, b"")


def test_two_hundred_turn_episode_survives_context_overflow(lights: Task) -> None:
    """A history that outgrows the context (HTTP 400) drops old turns instead of failing."""
    limit = 8000
    with FakeOpenAI([], fault=context_limit(limit)) as server:
        rec = play(lights, agent(server))
        seen = list(server.seen)
    assert rec["end_reason"] == "budget" and rec["steps"] == 200 and "error" not in rec
    answered = [s for s in seen if len(s.prompt) <= limit]
    assert len(answered) == 200
    errors = sum(t.get("context", {}).get("context_errors", 0) for t in rec["turns"])
    assert errors == len(seen) - 200 and 1 <= errors <= 10
    late = rec["turns"][-1]["context"]
    assert late["turns_dropped"] > 100 and late["turns_shown"] + late["turns_dropped"] == 199
    assert "context" not in rec["turns"][0]


def test_context_overflow_run_is_recorded_truncated_and_scored(suite: Path,
                                                              tmp_path: Path) -> None:
    """The same overflow through ``arena-gen run`` and ``score``: one finished 200-turn
    attempt, its truncation on the turns, judged by replay (not an excluded infra error)."""
    with FakeOpenAI([], fault=context_limit(8000)) as server:
        rundir = run_lights(suite, tmp_path / "run", server)
    (rec,) = rundir.records()
    assert rec["end_reason"] == "budget" and rec["steps"] == 200
    assert rec["turns"][-1]["context"]["turns_dropped"] > 100
    lights = score_run(tmp_path / "run")["envs"]["lights"]
    assert lights["attempts"] == lights["scored"] == 1 and lights["infra_errors"] == 0
    (line,) = [json.loads(x) for x in (tmp_path / "run" / "findings.jsonl").read_text()
               .splitlines()]
    assert line["flags"]["replay_mismatch"] is False and line["findings"]


def test_max_prompt_tokens_keeps_every_prompt_in_the_window(lights: Task) -> None:
    with FakeOpenAI([], fault=always("<action>0</action>")) as server:
        rec = play(lights, agent(server, max_prompt_tokens=1500))
        sizes = [sum(len(m["content"]) for m in s.body["messages"]) for s in server.seen]
    assert len(sizes) == 200 and max(sizes) <= 1500 * 4 and max(sizes) > 1500 * 3
    dropped = [t.get("context", {}).get("turns_dropped", 0) for t in rec["turns"]]
    assert dropped[0] == 0 and dropped[-1] > 150 and dropped == sorted(dropped)
    assert all(t.get("context", {}).get("context_errors", 0) == 0 for t in rec["turns"])


def test_context_error_without_history_is_an_agent_error(suite: Path, tmp_path: Path) -> None:
    body = CONTEXT_ERRORS["vllm"]
    with FakeOpenAI([], fault=lambda s: Out(status=400, body=body)) as server:
        rundir = run_lights(suite, tmp_path / "run", server)
        assert len(server.seen) == 1  # not retried as is
    (rec,) = rundir.records()
    assert rec["end_reason"] == "agent_error" and "ContextLengthError" in rec["error"]
    assert rundir.finished() == {(LIGHTS, 0)}  # --resume does not retry it forever


# -- M7: deeply nested bodies --------------------------------------------------------------------
def test_deeply_nested_body_is_a_retried_infra_error(lights: Task) -> None:
    with FakeOpenAI([], fault=lambda s: Out(body=nested_body())) as server:
        rec = play(lights, agent(server, retries=2))
        assert len(server.seen) == 3
    assert rec["end_reason"] == "infra_error" and "nested too deeply" in rec["error"]


def test_client_raises_typed_errors() -> None:
    async def ask(server: FakeOpenAI) -> None:
        client = ChatClient(base_url=server.url, retries=0, backoff=0.001)
        try:
            await client.complete({"messages": []}, np.random.default_rng(0))
        finally:
            await client.aclose()

    with FakeOpenAI([], fault=lambda s: Out(status=400, body=CONTEXT_ERRORS["openai"])) as srv:
        with pytest.raises(ContextLengthError, match="context_length_exceeded"):
            asyncio.run(ask(srv))
    with FakeOpenAI([], fault=lambda s: Out(body=nested_body())) as srv:
        with pytest.raises(InfraError, match="nested too deeply"):
            asyncio.run(ask(srv))


def test_cli_max_prompt_tokens_reaches_the_agent(suite: Path, tmp_path: Path) -> None:
    out = tmp_path / "cli"
    with FakeOpenAI([], fault=always("<action>0</action>")) as server:
        args = ["run", "--suite", str(suite), "--agent", "llm", "--model", "m1", "--out",
                str(out), "--max-prompt-tokens", "1000", "--retries", "0", "--display", "plain"]
        result = CliRunner().invoke(main, args, env={"OPENAI_BASE_URL": server.url})
        sizes = [sum(len(m["content"]) for m in s.body["messages"]) for s in server.seen]
    assert result.exit_code == 0, result.output
    assert RunDir(out).read_meta()["agent"]["config"]["max_prompt_tokens"] == 1000
    assert len(sizes) == 200 and max(sizes) <= 4000
