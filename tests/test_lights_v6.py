"""Lights v6 (issue 42's attack on v5): v5's game with the parallel chain learner on the ladder
and a Challenge re-tuned against it; exact targets on seed 7, an exact small world."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from arena_gen.core import registry
from arena_gen.core.agent import TaskView
from arena_gen.core.replay import check_witness
from arena_gen.core.suite_io import write_suite
from arena_gen.core.task import Task
from arena_gen.envs.lights import sampler
from arena_gen.envs.lights.agents.chains import LightsChainLearnerAgent
from arena_gen.envs.lights.agents.parallel import LightsParallelLearnerAgent, ParallelChainLearner
from arena_gen.envs.lights.formula import Formula
from arena_gen.envs.lights.game_v1 import Rules, state_line
from arena_gen.envs.lights.parts import solve_parts
from arena_gen.envs.lights.sampler_v5 import part_conditions
from arena_gen.envs.lights.sampler_v6 import CHALLENGE
from arena_gen.proofs.check import check_suite
from arena_gen.proofs.produce import prove_suite
from arena_gen.suite.build import BuildResult, build_suite
from arena_gen.suite.catalog import preset


@pytest.fixture(scope="module")
def built() -> BuildResult:
    """The lights v6 Challenge of seed 7 (about 1-2 s a task)."""
    return build_suite("challenge", 7, ["lights"], versions={"lights": 6})


@pytest.fixture(scope="module")
def seed7(built: BuildResult) -> list[Task]:
    return built.tasks["lights"]


def _successes(task: Task, rung: str) -> int:
    return int(task.certificate.facts["ladder"][rung]["successes"])


def test_v6_is_a_preview_of_v5_s_game_with_v4_s_lite() -> None:
    v5, v6 = registry.get("lights", 5), registry.get("lights", 6)
    assert v6.preview and registry.get("lights").version == 4
    for name in ("game", "sampler", "accept", "verifier", "heuristic", "planner",
                 "random_bound", "model_free"):
        assert getattr(v6, name) == getattr(v5, name), name
    assert set(v6.baselines) == {"parallel"}
    assert preset("lite", "lights", 6) == preset("lite", "lights", 4)
    assert CHALLENGE.parts * CHALLENGE.part_size[0] >= 30
    assert CHALLENGE.parts * CHALLENGE.part_size[1] <= sampler.MAX_N
    assert CHALLENGE.budget == 1000 and CHALLENGE.min_len >= 200
    assert LightsParallelLearnerAgent().largest == CHALLENGE.part_size[1]


def test_seed_7_meets_its_targets(built: BuildResult, seed7: list[Task]) -> None:
    calibration = built.manifest["calibration"]["lights"]
    assert calibration["missed"] == [] and calibration["noted"] == []
    assert len(seed7) == 10
    assert sorted(t.certificate.min_steps or 0 for t in seed7)[::9] == [289, 462]
    assert all(t.world["n"] >= 36 and len(t.certificate.facts["parts"]) == 4 for t in seed7)
    for task in seed7:
        resist = task.certificate.facts["resistance"]
        assert resist["random"]["bound"] <= 0.01 and not any(resist["model_free"].values())
        assert _successes(task, "random") == 0 and _successes(task, "planner") == 1
    # the best inductive rung lights some, below Lite's ~26 %: the parallel learner 1 of 10,
    # the chain learner none
    assert sum(_successes(t, "parallel") for t in seed7) == 1
    assert sum(_successes(t, "heuristic") for t in seed7) == 0


def test_seed_7_witnesses_replay_at_their_minima(seed7: list[Task]) -> None:
    for task in seed7:
        replayed = check_witness(task)
        assert replayed.success and replayed.steps == task.certificate.min_steps


def _play(world: dict[str, Any], agent: Any, budget: int) -> tuple[bool, int]:
    """Play ``agent`` on ``world`` by its rules alone: (lit, turns)."""
    rules, state, turns = Rules(world), 0, 0
    view = TaskView(task_id="t", env="lights", env_version=6, budget=budget,
                    public=sampler.public_view(rules.n, budget))
    agent.reset(view, "inductive", np.random.default_rng(0))
    while turns < budget and state != rules.goal:
        state = rules.step(state, int(agent.act(f"State: {state_line(state, rules.n)}")))
        turns += 1
    return state == rules.goal, turns


def test_the_parallel_learner_induces_every_order_of_a_small_world() -> None:
    """Five parts of 5-6 bulbs (N 27, minimum 85): it finds every hidden order and lights
    the world in fewer turns than the chain learner (exact, seeded)."""
    gen = np.random.default_rng(11)
    sizes = [5, 6, 5, 6, 5]
    labels = [int(x) for x in gen.permutation(sum(sizes))]
    conditions: dict[int, Formula] = {}
    orders, start = [], 0
    for size in sizes:
        orders.append(labels[start:start + size])
        conditions.update(part_conditions(orders[-1], gen))
        start += size
    world = {"n": len(labels), "conditions": [conditions[b] for b in range(len(labels))]}
    agent = ParallelChainLearner((5, 6))
    lit, turns = _play(world, agent, 2000)
    assert lit and sorted(agent.chains) == sorted(orders)
    assert solve_parts(world).min_steps == 85
    assert turns == 358
    assert _play(world, LightsChainLearnerAgent(), 2000) == (True, 383)


def test_prove_writes_and_checks_a_v6_proof(tmp_path: Path) -> None:
    result = build_suite("challenge", 7, ["lights"], counts={"lights": 1},
                         versions={"lights": 6})
    out = tmp_path / "challenge"
    write_suite(out, result.manifest, result.tasks)
    done = prove_suite(out)
    assert len(done) == 1 and len(done[0].entry["parts"]) == 4
    assert sum(p["min_steps"] for p in done[0].entry["parts"]) == \
        result.tasks["lights"][0].certificate.min_steps
    report = check_suite(out)
    assert report.ok and len(report.checked) == 1
