"""The ``verifiers`` environment (issue #27; the ``[verifiers]`` extra, its own virtual
environment: see .ci/run): multi-turn episodes against the loopback OpenAI-compatible server,
the LLM agent's prompts, arena-gen's judge as the reward. Skips where verifiers is absent."""

from __future__ import annotations

import asyncio
import os
from typing import Any

import numpy as np
import pytest

if os.environ.get("ARENA_GEN_REQUIRE_VERIFIERS"):  # CI's verifiers venv: never skip there
    import verifiers.v1 as vf
else:
    vf = pytest.importorskip("verifiers.v1")

from fake_openai import FakeOpenAI, Out  # noqa: E402

from arena_gen.agents.llm import LLMAgent  # noqa: E402
from arena_gen.core.agent import TaskView  # noqa: E402
from arena_gen.core.episode import run_episode  # noqa: E402
from arena_gen.core.registry import make_env  # noqa: E402
from arena_gen.train import stream  # noqa: E402
from arena_gen.train.shaping import shaped  # noqa: E402
from arena_gen.train.verifiers_env import arena_task, load_environment  # noqa: E402

KEY = "ARENA_GEN_TEST_KEY"


def play(env: Any, task: Any, server: FakeOpenAI) -> Any:
    """One episode of a verifiers task against the loopback server."""
    ctx = vf.ModelContext(model="m", client=vf.EvalClientConfig(base_url=server.url,
                                                                api_key_var=KEY))

    async def go() -> Any:
        async with env.serving():
            return await env.run_episode(task, ctx)

    return asyncio.run(go())


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY, "k")


@pytest.mark.parametrize("env_name", ["lights", "repo"])
def test_a_suite_episode_is_judged_by_arena_gen(env_name: str) -> None:
    env = load_environment(env=env_name, suite="lite", mode="inductive")
    (task,) = list(env.taskset.take(1))
    job = arena_task(task.data.info)
    assert task.data.name == job.id
    with FakeOpenAI([job]) as server:
        episode = play(env, task, server)
        sent = [s.body["messages"] for s in server.seen]
    assert episode.ok, episode.errors
    (trace,) = episode.traces
    assert trace.rewards["arena_gen_success"].score == 1.0
    assert trace.metrics["arena_gen_steps"] == len(sent) == trace.num_turns
    assert trace.metrics["arena_gen_items_met"] == 1.0
    # the first prompt is the LLM agent's own (system message and first user message)
    agent = LLMAgent(model="m", client=object())  # type: ignore[arg-type]
    agent.reset(TaskView.of(job, "inductive"), "inductive", np.random.default_rng(0))
    first, _ = make_env(job).reset()
    assert sent[0] == agent.messages(first)


def test_a_stream_task_with_rules_and_a_failing_model() -> None:
    env = load_environment(env="lights", level="lite", mode="with-rules", seed=3)
    (task,) = list(env.taskset.take(1))
    job = arena_task(task.data.info)
    assert job.sha256 == next(stream("lights", "lite", 3, count=1)).sha256
    with FakeOpenAI([job], fault=lambda seen: Out(content="no tag, no move")) as server:
        episode = play(env, task, server)
        first = server.seen[0].body["messages"][1]["content"]
    assert episode.ok, episode.errors
    (trace,) = episode.traces
    assert trace.rewards["arena_gen_success"].score == 0.0
    assert trace.metrics["arena_gen_steps"] == job.budget  # every reply wasted a turn
    assert "## Rules (disclosed)" in first and (job.rules_text or "")[:100] in first


def test_the_episode_matches_the_llm_agent_run() -> None:
    """The same model answers give the same episode through verifiers and the LLM agent."""
    env = load_environment(env="lights", suite="lite")
    (task,) = list(env.taskset.take(1))
    job = arena_task(task.data.info)
    with FakeOpenAI([job]) as server:
        record = run_episode(job, LLMAgent(model="m", base_url=server.url, api_key="k",
                                           retries=0))
    with FakeOpenAI([job]) as server:
        episode = play(env, task, server)
    assert record["success"] and episode.traces[0].metrics["arena_gen_steps"] == record["steps"]


@pytest.mark.parametrize("env_name", ["lights", "energy"])
def test_a_dense_episode_writes_the_shaped_turn_rewards(env_name: str) -> None:
    """reward="dense": the judge's reward is unchanged, and the per-turn rewards are the
    shaped env's on the same actions (lights: +1 a turn on a minimal witness and the success;
    energy: 0 shaping along the witness, so only the final success)."""
    env = load_environment(env=env_name, suite="lite", reward="dense")
    (task,) = list(env.taskset.take(1))
    job = arena_task(task.data.info)
    with FakeOpenAI([job]) as server:
        episode = play(env, task, server)
    assert episode.ok, episode.errors
    (trace,) = episode.traces
    assert trace.rewards["arena_gen_success"].score == 1.0
    turn_rewards = trace.info["arena_gen_turn_rewards"]
    expected = shaped(make_env(job))
    expected.reset()
    assert turn_rewards == [float(expected.step(a)[1]) for a in job.certificate.witness]
    assert trace.metrics["arena_gen_shaped_return"] == pytest.approx(sum(turn_rewards))
    if env_name == "lights" and job.certificate.min_steps == len(job.certificate.witness):
        assert turn_rewards == [1.0] * (len(turn_rewards) - 1) + [2.0]
    if env_name == "energy":
        assert turn_rewards == [0.0] * (len(turn_rewards) - 1) + [1.0]
