"""Lights v2: the ladder of a hand-checked world, the planner without the world, v1 kept."""

from __future__ import annotations

import dataclasses

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from arena_gen.core import registry
from arena_gen.core.agent import TaskView
from arena_gen.core.calibration import Calibration
from arena_gen.core.task import Task
from arena_gen.envs.lights.agents.learner import DecisionList
from arena_gen.envs.lights.agents.planner import LightsPlannerAgent, parse_rules
from arena_gen.envs.lights.formula import parse
from arena_gen.envs.lights.game_v1 import LightsGame, state_line
from arena_gen.envs.lights.sampler import PRESETS, PRESETS_V2, public_view, rules_text
from arena_gen.envs.lights.verify import verify
from arena_gen.suite.ladder import climb

# B0 always; B1 needs B0 on; B2 needs B1 on and B0 off: the shortest plan is 0 1 0 2 0 (5).
LINES = ["True", "B0", "(B1 and not B0)"]


def small_task(budget: int = 12) -> Task:
    n = len(LINES)
    conditions = [parse(text, n) for text in LINES]
    world = {"n": n, "order": [0, 1, 2], "conditions": conditions}
    task = Task(id="lights-lite-7-9999", env="lights", env_version=2, suite="lite",
                seed_path=[7, 0, 1, 9999, 0], params={"n": n}, budget=budget,
                public=public_view(n, budget), world=world, rules_text=rules_text(conditions),
                rubric=LightsGame.rubric({}, world), certificate=None)  # type: ignore[arg-type]
    task.certificate = verify(task)
    return task


def test_small_task_is_what_the_hand_says() -> None:
    task = small_task()
    assert task.certificate.min_steps == 5
    assert task.certificate.witness == ["0", "1", "0", "2", "0"]


def test_ladder_of_the_small_task_is_pinned() -> None:
    ladder = climb(small_task(), Calibration())
    assert list(ladder) == ["random", "heuristic", "planner"]
    rnd = ladder["random"]
    assert (rnd["attempts"], rnd["successes"]) == (4, 1)
    assert [r["steps"] for r in rnd["results"]] == [12, 12, 12, 11]
    # the learner (BFS on its model, N <= 12), by hand: the all-true model plans B2 first; it
    # fails at 000, so B2 "needs B0 on" (the first literal false there); 0, then 2 fails at
    # 100, so "needs B1 on" too; 1, 2 fails at 110, so "B1 and not B0": 0 off, 2, 0 on.
    assert ladder["heuristic"]["results"] == [{"success": True, "steps": 8, "credit": 1.0}]
    # the planner plays the shortest plan
    assert ladder["planner"]["results"] == [{"success": True, "steps": 5, "credit": 1.0}]
    assert climb(small_task(), Calibration()) == ladder  # deterministic


def test_planner_reads_no_hidden_field() -> None:
    task = small_task()
    view = TaskView.of(task, "with-rules")
    assert view.world is None and view.witness is None
    agent = LightsPlannerAgent()
    agent.reset(dataclasses.replace(view, world=None), "with-rules", np.random.default_rng(0))
    assert agent.world["conditions"] == task.world["conditions"]
    assert agent.plan == [0, 1, 0, 2, 0]


def test_parse_rules_round_trips_the_disclosure() -> None:
    task = small_task()
    assert parse_rules(task.rules_text or "", 3) == task.world["conditions"]


def test_decision_list_reads_back_as_the_game_ast() -> None:
    dl = DecisionList(2, 3)
    dl.observe(0b011, False)
    dl.observe(0b010, True)
    assert dl.formula() == {"not": {"var": 0}}
    assert dl.nearest_true(0b011) == {0: 0}


def test_v2_registered_beside_v1_with_the_same_game() -> None:
    v1, v2 = registry.get("lights", 1), registry.get("lights", 2)
    assert v1.game == v2.game and v1.sampler == v2.sampler and v1.verifier == v2.verifier
    assert v1.calibration is None and v1.load("heuristic").__name__ == "LightsHeuristicAgent"
    assert registry.get("lights").version == 4 and not registry.get("lights", 2).preview
    assert PRESETS["challenge"].max_literals == 8  # v1's presets are unchanged
    assert PRESETS_V2["lite"] == PRESETS["lite"]
    assert PRESETS_V2["lite"].count == 30 and PRESETS_V2["challenge"].count == 10


@given(st.integers(0, 40).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, 2**n - 1))))
def test_state_line_reads_every_bulb_in_order(case: tuple[int, int]) -> None:
    """The table-driven state line is the plain one: bulb ``i`` on exactly when bit ``i`` is."""
    n, state = case
    words = state_line(state, n).split()
    assert words == ["on" if state >> i & 1 else "off" for i in range(n)]
    assert state_line(state, n) == " ".join(words)
