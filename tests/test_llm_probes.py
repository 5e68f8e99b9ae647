"""The LLM agent's probes (#38) against the loopback server: each probe request is the
episode's next prompt plus the questions (a fork), carries no tools, and costs no turn."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import toy_env
from fake_openai import FakeOpenAI, Out, Seen

from arena_gen.agents.llm_probes import PROBE_HEAD, fork_payload, parse_answers
from arena_gen.core import registry
from arena_gen.core.probes import Probe
from arena_gen.core.suite_io import read_suite, write_suite
from arena_gen.runner.run import RunConfig, run_suite
from arena_gen.runner.spend import SpendStop
from arena_gen.scoring.score import score_run
from arena_gen.suite.build import build_suite

KEY = "sk-test-probe-0123456789SECRET"
QUESTION = re.compile(r'<question id="(q\d+)">')


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    registry.register(toy_env.spec(1, game=toy_env.ProbeCounterGame))
    try:
        built = build_suite("lite", 5, ["counter"])
        yield write_suite(tmp_path_factory.mktemp("s") / "suite", built.manifest, built.tasks)
    finally:
        registry.unregister("counter")


def answer_probes(seen: Seen) -> Out:
    """Turns: down five times, then up (a walk past several milestones). Probe requests: "yes"
    to every question, and q1 answered twice (a hedge)."""
    last = seen.body["messages"][-1]["content"]
    if not last.startswith(PROBE_HEAD):
        return Out(content=f"<action>{'down' if seen.turn <= 5 else 'up'}</action>")
    ids = QUESTION.findall(last)
    tags = "".join(f'<answer id="{i}">yes</answer>' for i in ids)
    return Out(content=f'<think>recall</think>{tags}<answer id="q1">no</answer>')


def run(suite: Path, out: Path, server: FakeOpenAI, probes: int, jobs: int = 1,
        **more: Any) -> list[Any]:
    task = read_suite(suite).tasks["counter"][0]
    config = {"model": "fake-model", "base_url": server.url, "temperature": 0.0,
              "max_connections": 2, "timeout": 5.0, "retries": 1, "backoff": 0.005}
    rundir = run_suite(RunConfig(suite=str(suite), agent="llm", out=str(out), tasks=[task.id],
                                 agent_config=config, probes=probes, jobs=jobs, **more))
    return rundir.records()


def test_probe_requests_fork_the_history_and_cost_no_turn(suite: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with FakeOpenAI(read_suite(suite).all_tasks(), key=KEY, fault=answer_probes) as server:
        plain = run(suite, tmp_path / "plain", server, 0)
        plain_requests = len(server.seen)
        probed = run(suite, tmp_path / "probed", server, 3)
        seen = server.seen[plain_requests:]
    (rec,), (base,) = probed, plain
    assert rec["success"] and rec["steps"] == base["steps"]  # no turn spent on probes
    assert [t["action"] for t in rec["turns"]] == [t["action"] for t in base["turns"]]
    assert [t["tokens"] for t in rec["turns"]] == [t["tokens"] for t in base["turns"]]
    probe_at = [n for n, s in enumerate(seen)
                if s.body["messages"][-1]["content"].startswith(PROBE_HEAD)]
    assert len(probe_at) == len(rec["probes"]) >= 2
    assert len(seen) - len(probe_at) == rec["steps"]  # one request per turn besides them
    for n in probe_at:
        body = seen[n].body
        assert "tools" not in body and "tool_choice" not in body and "stop" not in body
        following = next((s for s in seen[n + 1:] if s not in (seen[m] for m in probe_at)),
                         None)
        if following is not None:  # the fork is the next turn's prompt plus the questions
            assert body["messages"][:-1] == following.body["messages"]
        else:  # the end of the episode: the history through the last observation
            assert body["messages"][-3]["content"].startswith("<action>")
    for milestone in rec["probes"]:
        assert milestone["replies"] == ["yes", "", "yes"]  # the hedged q1 is no answer
        assert milestone["tokens"]["total_tokens"] > 0
    with_probes, without = score_run(tmp_path / "probed"), score_run(tmp_path / "plain")
    assert with_probes["overall"]["tokens"] == without["overall"]["tokens"]  # counted apart
    know = with_probes["overall"]["knowledge"]
    assert know["tokens"] == sum(m["tokens"]["total_tokens"] for m in rec["probes"])
    assert know["probes"] == 3 * len(rec["probes"])
    assert KEY not in json.dumps(rec)


def test_fork_payload_drops_tools_and_keeps_the_prefix() -> None:
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "temperature": 0.6,
            "tools": [{"type": "function"}], "tool_choice": "required", "stop": ["</action>"]}
    probes = [Probe("q0", "k", "Is it? Answer yes or no.", ("yes", "no"))]
    fork = fork_payload(body, probes)
    assert fork["messages"][:1] == body["messages"] and len(fork["messages"]) == 2
    assert set(fork) == {"model", "messages", "temperature"}
    assert "(one of: yes | no)" in fork["messages"][-1]["content"]
    assert body["messages"] == [{"role": "user", "content": "hi"}]  # the episode's untouched


@pytest.mark.parametrize("content,expected", [
    ('<answer id="q0">yes</answer><answer id="q1"> No </answer>', ["yes", "No"]),
    ('<ANSWER ID="q1">no</ANSWER>', ["", "no"]),
    ("<think><answer id=\"q0\">yes</answer></think>plain text", ["", ""]),
    ('<answer id="q0">yes</answer><answer id="q0">no</answer>', ["", ""]),
    ('<answer id="q0">yes', ["", ""]),
    ("", ["", ""]),
])
def test_answers_are_read_strictly(content: str, expected: list[str]) -> None:
    assert parse_answers(content, ["q0", "q1"]) == expected


def test_a_huge_reply_is_read_in_linear_time() -> None:
    import time

    hostile = '<answer id="' * 200_000 + "</answer>" * 1000
    t0 = time.perf_counter()
    assert parse_answers(hostile, ["q0"]) == [""]
    assert time.perf_counter() - t0 < 2.0


def test_the_blocking_agent_answers_probes_too(suite: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """``run_episode`` (the generic, blocking loop) asks ``answer_probes``: its own event loop
    and connection, the same fork and strict reading."""
    from arena_gen.agents.llm import LLMAgent
    from arena_gen.core.episode import run_episode

    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    task = read_suite(suite).tasks["counter"][0]
    with FakeOpenAI([task], key=KEY, fault=answer_probes) as server:
        agent = LLMAgent("fake-model", base_url=server.url, retries=0, timeout=5.0)
        rec = run_episode(task, agent, probes=2)
        probe_requests = [s for s in server.seen
                          if s.body["messages"][-1]["content"].startswith(PROBE_HEAD)]
    assert rec["success"] and len(probe_requests) == len(rec["probes"]) == 4
    assert all(m["replies"] == ["yes", ""] for m in rec["probes"])
    assert len(server.seen) == rec["steps"] + len(probe_requests)


def test_probe_tokens_count_against_the_run_caps(suite: Path, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """``--max-total-tokens`` counts the probe requests as they are asked, and a resumed run
    counts the recorded ones: a cap above the turns alone but below turns and probes stops."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with FakeOpenAI(read_suite(suite).all_tasks(), key=KEY, fault=answer_probes) as server:
        (rec,) = run(suite, tmp_path / "full", server, 3)
        turns = sum(t["tokens"]["total_tokens"] for t in rec["turns"])
        probes = sum(m["tokens"]["total_tokens"] for m in rec["probes"])
        assert probes > 0
        cap = turns + probes // 2
        with pytest.raises(SpendStop, match="--max-total-tokens"):
            run(suite, tmp_path / "capped", server, 3, max_total_tokens=cap)
        before = len(server.seen)
        with pytest.raises(SpendStop, match="--max-total-tokens"):
            run(suite, tmp_path / "full", server, 3, max_total_tokens=cap, resume=True)
        assert len(server.seen) == before  # already over the cap: nothing is asked
