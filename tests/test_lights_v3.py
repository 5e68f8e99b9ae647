"""Lights v3 (preview): ladder format 2 with the model-free sweep, the #25 targets, v2 kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena_gen.core import registry
from arena_gen.core.calibration import Calibration
from arena_gen.core.suite_io import write_suite
from arena_gen.core.task import Task
from arena_gen.envs.lights.formula import parse
from arena_gen.envs.lights.game_v1 import LightsGame
from arena_gen.envs.lights.sampler import PRESETS_V2, public_view, rules_text
from arena_gen.envs.lights.sampler_v3 import CALIBRATION, PRESETS
from arena_gen.envs.lights.verify import verify
from arena_gen.suite.build import build_suite
from arena_gen.suite.ladder import climb
from arena_gen.suite.verify import verify_suite

# test_lights_v2's hand-checked world: B0 always; B1 needs B0; B2 needs B1 and not B0 (min 5).
LINES = ["True", "B0", "(B1 and not B0)"]


def small_task(budget: int = 12, version: int = 2) -> Task:
    n = len(LINES)
    conditions = [parse(text, n) for text in LINES]
    world = {"n": n, "order": [0, 1, 2], "conditions": conditions}
    task = Task(id="lights-lite-7-9999", env="lights", env_version=version, suite="lite",
                seed_path=[7, 0, 1, 9999, 0], params={"n": n}, budget=budget,
                public=public_view(n, budget), world=world, rules_text=rules_text(conditions),
                rubric=LightsGame.rubric({}, world), certificate=None)  # type: ignore[arg-type]
    task.certificate = verify(task)
    return task


def test_v3_is_a_preview_beside_v2_with_v2s_generation() -> None:
    v2, v3 = registry.get("lights", 2), registry.get("lights", 3)
    assert registry.get("lights").version == 2  # build keeps the released version by default
    assert v3.preview and v3.ladder_version == 2 and v2.ladder_version == 1
    assert sorted(v3.model_free) == ["sweep"] and not v2.model_free
    assert v3.game == v2.game and v3.sampler == v2.sampler and v3.heuristic == v2.heuristic
    assert PRESETS == PRESETS_V2
    assert CALIBRATION["lite"].induction_margin == 0.15
    assert CALIBRATION["challenge"].inductive_ceiling == 0.3
    assert CALIBRATION["challenge"].inductive is None


def test_v3_ladder_plays_the_sweep_and_records_kinds() -> None:
    task = small_task(version=3)
    ladder = climb(task, Calibration())
    assert list(ladder) == ["random", "sweep", "heuristic", "planner"]
    assert {r: row["kind"] for r, row in ladder.items()} == {
        "random": "random", "sweep": "model_free", "heuristic": "inductive",
        "planner": "planner"}
    # on this 12-turn world memory alone does not find 0 1 0 2 0; the learner lights it in 8
    assert ladder["sweep"]["results"] == [{"success": False, "steps": 12, "credit": 0.0}]
    assert ladder["heuristic"]["results"] == [{"success": True, "steps": 8, "credit": 1.0}]
    v2_ladder = climb(small_task(), Calibration())
    assert "sweep" not in v2_ladder and "kind" not in v2_ladder["heuristic"]


def test_small_v3_suite_verifies_and_is_deterministic(tmp_path: Path) -> None:
    built = build_suite("lite", 7, ["lights"], versions={"lights": 3}, counts={"lights": 3})
    again = build_suite("lite", 7, ["lights"], versions={"lights": 3}, counts={"lights": 3})
    tasks = built.tasks["lights"]
    assert [t.sha256 for t in tasks] == [t.sha256 for t in again.tasks["lights"]]
    assert {t.env_version for t in tasks} == {3}
    assert all(t.certificate.facts["ladder"]["sweep"]["kind"] == "model_free" for t in tasks)
    rungs = built.manifest["calibration"]["lights"]["rungs"]
    assert rungs["sweep"]["kind"] == "model_free" and rungs["heuristic"]["kind"] == "inductive"
    path = write_suite(tmp_path / "suite", built.manifest, built.tasks)
    assert verify_suite(path).ok


@pytest.mark.slow
def test_lite_seed7_build_records_the_missed_induction_margin() -> None:
    """#25 on lights: the sweep (memory, no model) matches the learner on Lite; v2's ladder
    (no model-free rung) cannot see it, v3's calibration names it."""
    built = build_suite("lite", 7, ["lights"], versions={"lights": 3}, jobs=1)
    row = built.manifest["calibration"]["lights"]
    rates = {r: (v["successes"], v["attempts"]) for r, v in row["rungs"].items()}
    assert rates == {"random": (2, 120), "heuristic": (11, 30), "sweep": (12, 30),
                     "planner": (30, 30)}
    assert row["missed"] == ["the best inductive baseline (heuristic, 37%) beats the best "
                             "model-free one (sweep, 40%) by -3% (margin 15%)"]
    v2 = build_suite("lite", 7, ["lights"], versions={"lights": 2}, jobs=1)
    assert v2.manifest["calibration"]["lights"]["missed"] == []
