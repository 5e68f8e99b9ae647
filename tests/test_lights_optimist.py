"""The lights optimist at the paper-scale Challenge's sizes: it plays 36-40 bulbs, keeps its
choices at the sizes it played before, and the v4-v6 ladders keep the rung they recorded."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena_gen.agents.registry import make_agent
from arena_gen.core import registry
from arena_gen.core.agent import TaskView
from arena_gen.core.suite_io import read_suite
from arena_gen.core.task import Task
from arena_gen.envs.lights.agents import optimist
from arena_gen.envs.lights.agents.optimist import (
    TABLE_BULBS,
    LightsOptimistAgent,
    LightsOptimistV4Agent,
)


class FrozenOptimist(LightsOptimistAgent):
    """The optimist as it was before it played above 30 bulbs (its planner copied verbatim):
    the reference its choices are compared with."""

    def choose(self) -> int:
        if not self._path or self.state != self._expect:
            self._path = self._plan((1 << self.n) - 1)
        if not self._path:
            self._expect = -1
            return self.pick(list(range(self.n)))
        bulb, self._expect = self._path.pop(0)
        return bulb


def play(task: Task, agent: Any, seed: int, turns: int) -> list[str]:
    """The actions ``agent`` plays in the first ``turns`` turns of ``task``."""
    env = registry.make_env(task)
    obs, _ = env.reset()
    agent.reset(TaskView.of(task, "inductive"), "inductive", np.random.default_rng(seed))
    actions = []
    for _ in range(turns):
        action = agent.act(obs)
        actions.append(action)
        obs, _, terminated, truncated, info = env.step(action)
        assert info["valid"], info["feedback"]
        if terminated or truncated:
            break
    return actions


def small_tasks() -> list[Task]:
    """Released lights tasks of 6-12 bulbs (Lite's and the moderate Challenge's)."""
    lite = read_suite("lite", envs=["lights"]).all_tasks()
    moderate = read_suite("challenge-moderate", envs=["lights"]).all_tasks()
    return lite[::6] + moderate[::3]


@pytest.mark.parametrize("task", small_tasks(), ids=lambda t: t.id)
def test_the_same_choices_as_before_on_small_worlds(task: Task) -> None:
    assert task.public["n"] <= TABLE_BULBS
    for seed in (0, 1):
        before = play(task, FrozenOptimist(), seed, 60)
        assert play(task, LightsOptimistAgent(), seed, 60) == before
        assert play(task, LightsOptimistV4Agent(), seed, 60) == before


def test_it_plays_50_turns_of_a_paper_scale_challenge_task() -> None:
    tasks = read_suite("challenge", envs=["lights"]).all_tasks()
    task = max(tasks, key=lambda t: t.public["n"])
    assert task.env_version == 6 and task.public["n"] == 40
    actions = play(task, LightsOptimistAgent(), 0, 50)
    assert len(actions) == 50 and {int(a) for a in actions} <= set(range(40))
    assert play(task, LightsOptimistAgent(), 0, 50) == actions  # seeded: the same again
    # the v4-v6 ladders' rung fails at its first turn there, as their certificates record
    with pytest.raises(MemoryError, match="2\\^40 states"):
        play(task, LightsOptimistV4Agent(), 0, 1)
    ladder = task.certificate.facts["ladder"]["optimist"]["results"][0]
    assert ladder["error"] == "agent_error" and ladder["steps"] == 0


def test_the_ladder_keeps_its_rung_and_run_plays_the_new_one() -> None:
    for version in (4, 5, 6):
        spec = registry.get("lights", version)
        assert registry.resolve(spec.model_free["optimist"]) is LightsOptimistV4Agent
    assert type(make_agent("optimist", "lights", version=6)) is LightsOptimistAgent


def path_cost(agent: LightsOptimistAgent, path: list[tuple[int, int]], goal: int) -> int:
    """The cost of an optimistic path (256 a remembered toggle, 257 a guess), checked step by
    step against the memory."""
    state, cost = agent.state, 0
    for bulb, nxt in path:
        known = agent.edges.get(state, {})
        if bulb in known:
            assert known[bulb] == nxt != state
            cost += 256
        else:
            assert nxt == state ^ (1 << bulb)
            cost += 257
        state = nxt
    assert state == goal
    return cost


@settings(max_examples=150, deadline=None)
@given(n=st.integers(2, 7), seed=st.integers(0, 2**32 - 1), visited=st.integers(0, 40),
       fail=st.floats(0.0, 0.9))
def test_the_table_free_plan_is_a_path_within_257_256_of_the_cheapest(
        n: int, seed: int, visited: int, fail: float) -> None:
    """Brute force on small memories: the exact A* (with its table) gives the cheapest cost."""
    rng = np.random.default_rng(seed)
    agent = LightsOptimistAgent()
    agent.n, agent.state = n, int(rng.integers(1 << n))
    agent.edges = {}
    for _ in range(visited):
        s, b = int(rng.integers(1 << n)), int(rng.integers(n))
        agent.edges.setdefault(s, {})[b] = s if rng.random() < fail else s ^ (1 << b)
    goal = (1 << n) - 1
    agent._rng = np.random.default_rng(0)
    exact = agent._plan(goal)
    greedy = agent._plan_greedy(goal)
    if agent.state == goal or not exact:
        assert greedy == [] and (exact == [] or agent.state == goal)
        return
    best = path_cost(agent, exact, goal)
    assert path_cost(agent, greedy, goal) * 256 <= best * 257


def test_the_table_free_plan_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past its pop limit the plan gives up (the agent then toggles a bulb at random)."""
    agent = LightsOptimistAgent()
    agent.n, agent.state, agent.edges = 40, 0, {}
    agent._rng = np.random.default_rng(0)
    path = agent._plan_greedy((1 << 40) - 1)
    assert len(path) == 40 and sorted(b for b, _ in path) == list(range(40))
    monkeypatch.setattr(optimist, "GREEDY_POPS", 20)
    assert agent._plan_greedy((1 << 40) - 1) == []
