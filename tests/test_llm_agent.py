"""The LLM agent end to end against a real OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner
from fake_openai import FakeOpenAI, Out, Seen, truncated_body

from arena_gen.agents.llm import LLMAgent
from arena_gen.agents.llm_client import ChatClient
from arena_gen.cli import main
from arena_gen.core import registry
from arena_gen.core.episode import InfraError, run_episode
from arena_gen.core.suite_io import read_suite, write_suite
from arena_gen.core.task import Task
from arena_gen.runner.async_exec import run_episode_async
from arena_gen.runner.run import RunConfig, run_suite
from arena_gen.runner.rundir import RunDir
from arena_gen.scoring.score import score_run
from arena_gen.suite.build import build_suite

KEY = "sk-test-7f3a9c1e5b2d4680SECRET"
TIMING = ("latency", "seconds")


@pytest.fixture(scope="module")
def suite_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One lite task of every registered env."""
    names = registry.names()
    built = build_suite("lite", 7, names, counts={e: 1 for e in names})
    return write_suite(tmp_path_factory.mktemp("suite") / "lite", built.manifest, built.tasks)


@pytest.fixture(scope="module")
def tasks(suite_dir: Path) -> dict[str, Task]:
    return {t.env: t for t in read_suite(suite_dir).all_tasks()}


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    return KEY


def llm_config(server: FakeOpenAI, **over: Any) -> dict[str, Any]:
    cfg = {"model": "fake-model", "base_url": server.url, "temperature": 0.6, "history": None,
           "max_connections": 4, "timeout": 5.0, "retries": 2, "backoff": 0.005}
    cfg.update(over)
    return cfg


def run_llm(suite: Path, out: Path, server: FakeOpenAI, *, attempts: int = 1,
            envs: list[str] | None = None, mode: str = "inductive", resume: bool = False,
            **over: Any) -> RunDir:
    return run_suite(RunConfig(suite=str(suite), agent="llm", attempts=attempts, out=str(out),
                               envs=envs, mode=mode, resume=resume,
                               agent_config=llm_config(server, **over)))


def strip_timing(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: strip_timing(v) for k, v in obj.items() if k not in TIMING}
    if isinstance(obj, list):
        return [strip_timing(v) for v in obj]
    return obj


def assert_no_key(path: Path) -> None:
    for file in path.rglob("*"):
        if file.is_file():
            assert KEY not in file.read_text(encoding="utf-8", errors="replace"), file


# -- full episodes --------------------------------------------------------------------------------
def test_full_episodes_for_every_env(suite_dir: Path, tasks: dict[str, Task],
                                     tmp_path: Path) -> None:
    with FakeOpenAI(tasks.values(), key=KEY) as server:
        rundir = run_llm(suite_dir, tmp_path / "run", server)
    records = {r["env"]: r for r in rundir.records()}
    assert set(records) == set(registry.names())
    for env, rec in records.items():
        task = tasks[env]
        assert rec["end_reason"] == "success", (env, rec.get("error"))
        assert rec["steps"] == len(task.certificate.witness)
        assert [t["action"] for t in rec["turns"]] == list(task.certificate.witness)
        for turn, seen in zip(rec["turns"], [s for s in server.seen if s.env == env],
                              strict=True):
            tokens = turn["tokens"]
            assert tokens["prompt_tokens"] == len(seen.prompt) // 4
            assert tokens["completion_tokens"] == len(turn["raw"]) // 4 > 0
            assert tokens["total_tokens"] == tokens["prompt_tokens"] + tokens["completion_tokens"]
            assert turn["reasoning"] == f"turn {turn['turn']}: play the witness"
            assert turn["raw"].endswith("</action>") and turn["retries"] == 0
    # history=None: every prompt carries every past turn; every request had the key
    assert all(s.past_turns == s.turn - 1 for s in server.seen)
    assert all(s.authorization == f"Bearer {KEY}" for s in server.seen)
    assert all(s.body["model"] == "fake-model" and s.body["temperature"] == 0.6
               and "max_tokens" not in s.body for s in server.seen)
    meta = json.loads((tmp_path / "run" / "run.json").read_text())
    assert meta["agent"]["config"]["model"] == "fake-model"
    summary = score_run(tmp_path / "run")  # the scorer reads the recorded token usage
    assert _total_tokens(rundir) > 0
    assert f'"tokens": {_total_tokens(rundir)}' in json.dumps(summary)
    assert_no_key(tmp_path / "run")


def _total_tokens(rundir: RunDir) -> int:
    return sum(t["tokens"]["total_tokens"] for r in rundir.records() for t in r["turns"])


def test_history_window_and_rules_in_with_rules_mode(suite_dir: Path, tasks: dict[str, Task],
                                                     tmp_path: Path) -> None:
    with FakeOpenAI(tasks.values(), key=KEY) as server:
        rundir = run_llm(suite_dir, tmp_path / "run", server, mode="with-rules", history=2,
                         max_tokens=64)
    assert all(r["end_reason"] == "success" for r in rundir.records())
    assert {s.env for s in server.seen} == set(registry.names())
    assert all(s.past_turns == min(s.turn - 1, 2) for s in server.seen)
    assert max(s.turn for s in server.seen) > 10
    for seen in server.seen:
        assert tasks[seen.env].rules_text in seen.prompt
        assert seen.body["max_tokens"] == 64
    # and inductive mode never shows the rules
    with FakeOpenAI(tasks.values(), key=KEY) as server:
        run_llm(suite_dir, tmp_path / "ind", server, envs=["lights"], history=0)
    assert server.seen and all(s.past_turns == 0 for s in server.seen)
    assert all(tasks["lights"].rules_text not in s.prompt for s in server.seen)


def test_sync_and_async_turns_record_the_same(tasks: dict[str, Task]) -> None:
    task = tasks["lights"]
    with FakeOpenAI([task], key=KEY) as server:
        sync = run_episode(task, LLMAgent(**llm_config(server)), attempt=1)
        server.reset_counters()
        agent = LLMAgent(**llm_config(server))

        async def play() -> dict[str, Any]:
            try:
                return await run_episode_async(task, agent, attempt=1)
            finally:
                await agent.client.aclose()

        async_ = asyncio.run(play())
    assert sync["end_reason"] == "success"
    assert strip_timing(sync) == strip_timing(async_)


def test_reasoning_fields_are_recorded_not_played(tasks: dict[str, Task]) -> None:
    task = tasks["lights"]
    first = task.certificate.witness[0]

    def fault(seen: Seen) -> Out | None:
        if seen.turn == 1:
            return Out(content=f"<think>maybe <action>99</action>?</think> <action> {first} "
                               f"</action>", reasoning_content="field reasoning")
        return None

    with FakeOpenAI([task], key=KEY, fault=fault) as server:
        rec = run_episode(task, LLMAgent(**llm_config(server)))
    turn = rec["turns"][0]
    assert turn["action"] == first and turn["valid"]
    assert turn["reasoning"] == "field reasoning\n\nmaybe <action>99</action>?"
    assert rec["end_reason"] == "success"


# -- concurrency ----------------------------------------------------------------------------------
def test_max_connections_requests_in_flight(suite_dir: Path, tasks: dict[str, Task],
                                            tmp_path: Path) -> None:
    task = tasks["lights"]

    def gather(seen: Seen) -> Out | None:  # hold the first 8 until a 9th arrives, or 1 s
        if seen.index < 8:
            out = FakeOpenAI.answer(server, seen, task)
            out.gather, out.delay = 9, 1.0
            return out
        return None

    with FakeOpenAI([task], key=KEY, fault=gather) as server:
        rundir = run_llm(suite_dir, tmp_path / "run", server, envs=["lights"], attempts=12,
                         max_connections=8)
    assert server.max_in_flight == 8  # 12 episodes want a request; the limit lets 8 through
    assert len(rundir.records()) == 12
    assert all(r["end_reason"] == "success" for r in rundir.records())
    # every turn of the 12 episodes went over 8 kept-alive TCP connections, none more
    assert len(server.seen) > 12 * 2 and len({s.peer for s in server.seen}) == 8


def test_client_holds_one_connection_per_request_in_flight(tasks: dict[str, Task]) -> None:
    """64 requests at once open 64 connections; the next 64 reuse them, and aclose ends them."""
    task = tasks["lights"]
    prompt = {"role": "user", "content": task.public["intro"]
              + "\n## Current observation (turn 1 of 9)\n"}

    def gather(seen: Seen) -> Out | None:  # hold each request until 64 are in flight (or 5 s)
        out = FakeOpenAI.answer(server, seen, task)
        out.gather, out.delay = 64, 5.0
        return out

    async def rounds(client: ChatClient) -> list[str]:
        rng = np.random.default_rng(0)
        out = []
        for _ in range(2):
            done = await asyncio.gather(*[client.complete(
                {"model": "m", "messages": [prompt]}, rng) for _ in range(64)])
            out += [d.content for d in done]
        await client.aclose()
        return out

    with FakeOpenAI([task], key=KEY, fault=gather) as server:
        client = ChatClient(base_url=server.url, api_key=KEY, max_connections=64, timeout=30)
        contents = asyncio.run(rounds(client))
    assert len(contents) == 128 and all("<action>" in c for c in contents)
    assert server.max_in_flight == 64
    assert len({s.peer for s in server.seen[:64]}) == 64
    assert {s.peer for s in server.seen[64:]} == {s.peer for s in server.seen[:64]}
    assert client._session is None  # aclose closed every connection


# -- faults ---------------------------------------------------------------------------------------
def fault_out(kind: str, retry_after: str = "0.2") -> Out:
    if kind == "500":
        return Out(status=500, body=b'{"error": "internal"}')
    if kind == "429":
        return Out(status=429, body=b'{"error": "slow down"}', headers={"Retry-After": retry_after})
    if kind == "hang":
        return Out(hang=3.0, content="<action>0</action>")
    if kind == "truncated":
        return Out(body=truncated_body())
    if kind == "no-choices":
        return Out(body=b'{"object": "chat.completion", "choices": []}')
    if kind == "disconnect":
        return Out(disconnect=True)
    raise AssertionError(kind)


@pytest.mark.parametrize("kind", ["500", "429", "hang", "truncated", "no-choices",
                                  "disconnect"])
def test_transient_faults_are_retried(kind: str, tasks: dict[str, Task]) -> None:
    task = tasks["lights"]

    def fault(seen: Seen) -> Out | None:
        return fault_out(kind) if seen.turn in (1, 2) and seen.tries == 1 else None

    with FakeOpenAI([task], key=KEY, fault=fault) as server:
        rec = run_episode(task, LLMAgent(**llm_config(server, timeout=0.25)))
    assert rec["end_reason"] == "success"
    assert [t["retries"] for t in rec["turns"][:3]] == [1, 1, 0]
    if kind == "429":  # Retry-After (0.2 s) is honoured though the backoff base is 5 ms
        for turn in (1, 2):
            tries = [s.at for s in server.seen if s.turn == turn]
            assert tries[1] - tries[0] >= 0.19


REASONS = {"500": "HTTP 500", "429": "HTTP 429", "hang": "timed out",
           "truncated": "malformed response", "no-choices": "no choices",
           "disconnect": "Response payload is not completed"}


@pytest.mark.parametrize("kind", ["500", "429", "hang", "truncated", "disconnect"])
def test_persistent_faults_end_as_infra_error_then_resume(kind: str, suite_dir: Path,
                                                          tasks: dict[str, Task],
                                                          tmp_path: Path) -> None:
    broken = {"on": True}

    def fault(seen: Seen) -> Out | None:
        return fault_out(kind, "0.01") if broken["on"] and seen.turn == 2 else None

    out = tmp_path / "run"
    with FakeOpenAI([tasks["lights"]], key=KEY, fault=fault) as server:
        rundir = run_llm(suite_dir, out, server, envs=["lights"], attempts=2, timeout=0.2,
                         retries=1)
        records = rundir.records()
        assert [r["end_reason"] for r in records] == ["infra_error", "infra_error"]
        for rec in records:
            assert rec["steps"] == 1 and REASONS[kind] in rec["error"]
            assert "after 2 tries" in rec["error"] and KEY not in rec["error"]
        assert len([s for s in server.seen if s.turn == 2]) == 4  # 2 attempts x 2 tries
        broken["on"] = False
        server.reset_counters()
        rundir = run_llm(suite_dir, out, server, envs=["lights"], attempts=2, timeout=0.2,
                         retries=1, resume=True)
    records = rundir.records()
    assert [(r["attempt"], r["end_reason"]) for r in records] == [(0, "success"), (1, "success")]
    assert json.loads((out / "run.json").read_text())["resumed"]
    assert_no_key(out)


def test_mixed_run_reasons_missing_tag_and_resume(suite_dir: Path, tasks: dict[str, Task],
                                                  tmp_path: Path) -> None:
    """lights: 500s forever at turn 2; energy: no <action> tag at turn 1; trading: clean."""
    broken = {"on": True}

    def fault(seen: Seen) -> Out | None:
        if seen.env == "lights" and seen.turn == 2 and broken["on"]:
            return Out(status=503, body=b"overloaded")
        if seen.env == "energy" and seen.turn == 1 and seen.tries == 1:
            return Out(content="I think thermal 300 is right, but I forgot the tags.")
        return None

    envs = ["lights", "energy", "trading"]
    out = tmp_path / "run"
    with FakeOpenAI([tasks[e] for e in envs], key=KEY, fault=fault) as server:
        rundir = run_llm(suite_dir, out, server, envs=envs)
        by_env = {r["env"]: r for r in rundir.records()}
        assert by_env["lights"]["end_reason"] == "infra_error"
        assert "HTTP 503: overloaded" in by_env["lights"]["error"]
        energy = by_env["energy"]
        assert energy["end_reason"] == "success"  # the wasted turn fits in the budget
        first = energy["turns"][0]
        assert first["action"] == "" and not first["valid"] and first["no_action_tag"]
        assert first["raw"].startswith("I think thermal")
        assert energy["steps"] == len(tasks["energy"].certificate.witness) + 1
        second = next(s for s in server.seen if s.env == "energy" and s.turn == 2)
        # the dialogue replays the tagless turn as the agent's message, then the next observation
        assert [m["role"] for m in second.body["messages"]] == ["system", "user", "assistant",
                                                               "user"]
        assert second.body["messages"][2]["content"] == (
            "(none: your reply had no <action>...</action> tag)")
        assert by_env["trading"]["end_reason"] == "success"
        before = len(server.seen)
        broken["on"] = False
        rundir = run_llm(suite_dir, out, server, envs=envs, resume=True)
        replayed = {s.env for s in server.seen[before:]}
    assert replayed == {"lights"}  # finished episodes are not played again
    assert [r["end_reason"] for r in rundir.records()] == ["success"] * 3


def test_bad_key_is_not_retried_and_never_leaks(suite_dir: Path, tasks: dict[str, Task],
                                                tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    def echo(seen: Seen) -> Out | None:  # a server that echoes the Authorization header
        return Out(status=500, body=f"boom {seen.authorization}".encode())

    with FakeOpenAI([tasks["lights"]], key="another-key") as server:
        rundir = run_llm(suite_dir, tmp_path / "a", server, envs=["lights"])
        assert len(server.seen) == 0  # 401 is answered before any policy
    rec = rundir.records()[0]
    assert rec["end_reason"] == "infra_error" and "HTTP 401" in rec["error"]
    assert "not retried" in rec["error"] and "[REDACTED]" in rec["error"]
    with FakeOpenAI([tasks["lights"]], key=KEY, fault=echo) as server:
        agent = LLMAgent(**llm_config(server))
        agent.reset(_view(tasks["lights"]), "inductive", _rng())
        with pytest.raises(InfraError) as err:
            agent.act("State: off")
    assert KEY not in str(err.value) and "[REDACTED]" in str(err.value)
    assert KEY not in repr(agent) and KEY not in repr(agent.make_client())
    assert_no_key(tmp_path)


def _view(task: Task) -> Any:
    from arena_gen.core.agent import TaskView

    return TaskView.of(task, "inductive")


def _rng() -> Any:
    import numpy as np

    return np.random.default_rng(0)


# -- command line ---------------------------------------------------------------------------------
def test_cli_run_llm_options(suite_dir: Path, tasks: dict[str, Task], tmp_path: Path) -> None:
    out = tmp_path / "cli"
    with FakeOpenAI([tasks["lights"]], key=KEY) as server:
        args = ["run", "--suite", str(suite_dir), "--agent", "llm", "--model", "m1",
                "--env", "lights", "--out", str(out), "--history", "3", "--temperature", "0",
                "--max-tokens", "50", "--max-connections", "2", "--timeout", "5",
                "--retries", "1", "--backoff", "0.01", "--display", "plain"]
        result = CliRunner().invoke(main, args, env={"OPENAI_API_KEY": KEY,
                                                     "OPENAI_BASE_URL": server.url})
        assert result.exit_code == 0, result.output
        missing = CliRunner().invoke(main, ["run", "--suite", str(suite_dir), "--agent", "llm",
                                            "--out", str(tmp_path / "x")])
    assert missing.exit_code != 0 and "--model" in missing.output
    assert KEY not in result.output
    meta = json.loads((out / "run.json").read_text())
    assert meta["agent"]["config"] == {
        "model": "m1", "base_url": server.url, "temperature": 0.0, "max_tokens": 50,
        "history": 3, "max_connections": 2, "timeout": 5.0, "retries": 1, "backoff": 0.01}
    assert all(s.past_turns == min(s.turn - 1, 3) and s.body["temperature"] == 0
               for s in server.seen)
    assert RunDir(out).records()[0]["end_reason"] == "success"
    assert_no_key(out)


@pytest.mark.parametrize(("status", "tries"), [(501, 1), (505, 1), (503, 3)])
def test_permanent_5xx_statuses_are_not_retried(status: int, tries: int,
                                                tasks: dict[str, Task]) -> None:
    """501 Not Implemented and 505 say the endpoint cannot serve the request at all: one try,
    not the 6 of a transient 5xx (#41); a 503 is still retried."""
    with FakeOpenAI([tasks["lights"]], key=KEY,
                    fault=lambda seen: Out(status=status, body=b"nope")) as server:
        agent = LLMAgent(**llm_config(server, retries=2))
        agent.reset(_view(tasks["lights"]), "inductive", _rng())
        with pytest.raises(InfraError, match=f"HTTP {status}"):
            agent.act("State: off")
        assert len(server.seen) == tries
