"""The baseline ladder: played like ``arena-gen run``, pinned on hand-checked tasks, enforced at
build (trivial and unknowable tasks resampled, suite bands recorded) and replayed by ``verify``."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import toy_env

from arena_gen.core import registry
from arena_gen.core.agent import TaskView
from arena_gen.core.calibration import Calibration, rung_rates, suite_problems, wilson
from arena_gen.core.episode import run_episode
from arena_gen.core.registry import EnvSpec
from arena_gen.core.suite_io import write_suite
from arena_gen.core.task import Certificate, Draft, Task
from arena_gen.suite.build import build_suite, uncalibrated
from arena_gen.suite.ladder import climb
from arena_gen.suite.verify import verify_suite


class ClimbThree:
    """Inductive toy baseline: three ``up`` then ``down`` forever (solves targets <= 3)."""

    name, privileged = "heuristic", False

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        self.turn = 0

    def act(self, observation: str) -> str:
        self.turn += 1
        return "up" if self.turn <= 3 else "down"


class ReadTarget:
    """With-rules toy planner: reads the target from the rules text and walks straight to it."""

    name, privileged = "planner", False

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        assert view.world is None and mode == "with-rules"
        found = re.search(r"target is (\d+)", view.rules_text or "")
        self.target = int(found.group(1)) if found else 0

    def act(self, observation: str) -> str:
        return "up" if self.target > 0 else "down"


def sample(config: dict[str, Any], seed: np.random.SeedSequence) -> Draft:
    target = int(np.random.default_rng(seed).integers(1, 7))
    world = {"target": target}
    return Draft(params={}, budget=12, public={"intro": "Reach the hidden target."},
                 world=world, rules_text=f"up adds 1; the target is {target}.",
                 rubric=toy_env.CounterGame.rubric({}, world))


def verify(draft: Any) -> Certificate:
    target = int(draft.world["target"])
    return Certificate(True, "bfs", target, ["up"] * target, 1, None)


CALIBRATION = {"lite": Calibration(inductive=(0.1, 0.9), planner_floor=0.9, random_ceiling=0.5),
               "challenge": Calibration(inductive=(0.95, 1.0))}


def calibrated_spec() -> EnvSpec:
    return EnvSpec(name="counter", version=3, code=toy_env.CODE, gym_name="Counter",
                   package=__name__, game=toy_env.CounterGame, sampler=sample,
                   presets={"lite": {"count": 8}, "challenge": {"count": 4}},
                   verifier=verify, heuristic=ClimbThree, planner=ReadTarget,
                   calibration=CALIBRATION, default_suites=("lite", "challenge"))


@pytest.fixture()
def counter() -> Iterator[None]:
    registry.register(calibrated_spec())
    try:
        yield
    finally:
        registry.unregister("counter")


def _task(target: int, suite: str = "lite") -> Task:
    draft = sample({}, np.random.SeedSequence(0))
    draft.world["target"] = target
    draft.rules_text = f"up adds 1; the target is {target}."
    return Task(id=f"counter-{suite}-0-0000", env="counter", env_version=3, suite=suite,
                seed_path=[0, 0, toy_env.CODE, 0, 0], params={}, budget=12,
                public=draft.public, world=draft.world, rules_text=draft.rules_text,
                rubric=draft.rubric, certificate=verify(draft))


def test_ladder_of_hand_checked_tasks(counter: None) -> None:
    cal = Calibration()
    near, far = climb(_task(2), cal), climb(_task(5), cal)
    # heuristic: up, up reaches 2 (done after 2 turns); for 5 it peaks at 3 and walks down
    # to -9 within the 12-turn budget.
    assert near["heuristic"] == {"mode": "inductive", "attempts": 1, "successes": 1,
                                 "results": [{"success": True, "steps": 2, "credit": 1.0}]}
    assert far["heuristic"]["successes"] == 0
    assert far["heuristic"]["results"] == [{"success": False, "steps": 12, "credit": 0.0}]
    # planner: straight up, exactly the target's number of turns
    assert near["planner"]["results"] == [{"success": True, "steps": 2, "credit": 1.0}]
    assert far["planner"]["results"] == [{"success": True, "steps": 5, "credit": 1.0}]
    assert far["planner"]["mode"] == "with-rules"
    # random: 4 attempts with the seeds ``arena-gen run --agent random`` uses
    rnd = far["random"]
    assert rnd["attempts"] == 4 and len(rnd["results"]) == 4
    for attempt, result in enumerate(rnd["results"]):
        from arena_gen.agents.random_agent import RandomAgent

        played = run_episode(_task(5), RandomAgent(), attempt=attempt)
        assert (result["success"], result["steps"]) == (played["success"], played["steps"])
    assert climb(_task(5), cal) == far  # deterministic


def test_task_problem_rejects_trivial_and_unknowable() -> None:
    cal = Calibration(random_attempts=4)
    ok = {"random": {"attempts": 4, "successes": 1}, "planner": {"attempts": 1, "successes": 1}}
    assert cal.task_problem(ok) is None
    trivial = {**ok, "random": {"attempts": 4, "successes": 2}}
    assert (cal.task_problem(trivial) or "").startswith("trivial")
    unknowable = {**ok, "planner": {"attempts": 1, "successes": 0}}
    assert (cal.task_problem(unknowable) or "").startswith("unknowable")


def test_wilson_interval_values() -> None:
    assert wilson(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert wilson(10, 10) == pytest.approx((0.7225, 1.0), abs=1e-4)
    assert wilson(3, 10) == pytest.approx((0.1078, 0.6032), abs=1e-4)


def test_build_enforces_and_records_calibration(counter: None, tmp_path: Path) -> None:
    result = build_suite("lite", 7, ["counter"])
    tasks = result.tasks["counter"]
    ladders = [t.certificate.facts["ladder"] for t in tasks]
    cal = CALIBRATION["lite"]
    assert all(cal.task_problem(ladder) is None for ladder in ladders)
    assert result.manifest["build"]["counter"]["rejections"].get("trivial", 0) > 0
    row = result.manifest["calibration"]["counter"]
    assert row["targets"] == cal.to_dict()
    assert row["rungs"] == rung_rates(ladders)
    heur = sum(ladder["heuristic"]["successes"] for ladder in ladders)
    assert row["rungs"]["heuristic"]["successes"] == heur
    assert row["rungs"]["planner"]["rate"] == 1.0
    assert row["missed"] == suite_problems(cal, row["rungs"])
    # the same bytes again, whatever the worker count
    again = build_suite("lite", 7, ["counter"], jobs=2)
    assert [t.sha256 for t in again.tasks["counter"]] == [t.sha256 for t in tasks]

    write_suite(tmp_path / "s", result.manifest, result.tasks)
    assert verify_suite(tmp_path / "s").ok


def test_verify_fails_a_forged_ladder(counter: None, tmp_path: Path) -> None:
    result = build_suite("lite", 7, ["counter"])
    forged = result.tasks["counter"][0]
    forged.certificate.facts["ladder"]["heuristic"]["results"][0]["steps"] += 1
    result.manifest["tasks"][forged.id] = forged.sha256
    from arena_gen.core.suite_io import suite_hash

    result.manifest["suite_sha256"] = suite_hash(result.manifest["tasks"])
    write_suite(tmp_path / "s", result.manifest, result.tasks)
    report = verify_suite(tmp_path / "s")
    bad = [c for c in report.checks if not c.ok]
    assert [c.task_id for c in bad] == [forged.id]
    assert (bad[0].problem or "").startswith("certificate.ladder.heuristic")


def test_uncalibrated_suite_is_named(counter: None) -> None:
    result = build_suite("challenge", 7, ["counter"])  # band 95-100 % the heuristic cannot meet
    missed = uncalibrated(result.manifest)
    assert missed and missed[0].startswith("counter: the best inductive baseline (heuristic)")
    json.dumps(result.manifest)  # the manifest stays plain JSON


def test_show_reveal_prints_the_ladder(counter: None, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from arena_gen.cli import main

    result = build_suite("lite", 7, ["counter"])
    write_suite(tmp_path / "s", result.manifest, result.tasks)
    task = result.tasks["counter"][0]
    out = CliRunner().invoke(main, ["show", task.id, "--suite", str(tmp_path / "s"), "--reveal"])
    assert out.exit_code == 0, out.output
    assert "-- baseline ladder (re-played by verify) --" in out.output
    planner = task.certificate.facts["ladder"]["planner"]["results"][0]["steps"]
    assert f"planner      (with-rules)  1/1 solved  steps {planner}  credit 1.00" in out.output


def test_verify_fails_a_forged_manifest_calibration(counter: None, tmp_path: Path) -> None:
    result = build_suite("lite", 7, ["counter"])
    result.manifest["calibration"]["counter"]["rungs"]["heuristic"]["successes"] += 1
    write_suite(tmp_path / "s", result.manifest, result.tasks)
    report = verify_suite(tmp_path / "s")
    assert all(c.ok for c in report.checks) and not report.ok
    assert report.manifest_problems == [
        "manifest calibration.counter differs from the tasks' ladders and the counter "
        "calibration"]


class StepUp:
    """Model-free toy rung: always ``up`` (no model of the target; solves every target it can
    reach within the budget)."""

    name, privileged = "step_up", False

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        pass

    def act(self, observation: str) -> str:
        return "up"


def test_format_2_ladder_records_kinds_and_plays_model_free(counter: None) -> None:
    import dataclasses

    v2 = dataclasses.replace(calibrated_spec(), version=4, ladder_version=2,
                             model_free={"step_up": StepUp})
    registry.register(v2)
    try:
        task = _task(2)
        task.env_version = 4
        ladder = climb(task, Calibration())
        assert {r: ladder[r]["kind"] for r in ladder} == {
            "random": "random", "step_up": "model_free", "heuristic": "inductive",
            "planner": "planner"}
        assert ladder["step_up"]["results"] == [{"success": True, "steps": 2, "credit": 1.0}]
        rates = rung_rates([ladder])
        assert rates["step_up"]["kind"] == "model_free"
        # a format-1 ladder (v3) plays no model-free rung and records no kind
        old = climb(_task(2), Calibration())
        assert "step_up" not in old and all("kind" not in row for row in old.values())
    finally:
        registry.unregister("counter")
        registry.register(calibrated_spec())


def _rates(**rungs: tuple[str, float]) -> dict[str, dict[str, Any]]:
    return {name: {"kind": kind, "rate": rate, "attempts": 10, "successes": int(rate * 10)}
            for name, (kind, rate) in rungs.items()}


def test_induction_margin_and_inductive_ceiling() -> None:
    cal = Calibration(inductive=(0.1, 0.9), induction_margin=0.15)
    ok = _rates(random=("random", 0.0), sweep=("model_free", 0.2),
                heuristic=("inductive", 0.4), planner=("planner", 1.0))
    assert suite_problems(cal, ok) == []
    close = {**ok, "sweep": {**ok["sweep"], "rate": 0.3}}
    [problem] = suite_problems(cal, close)
    assert "beats the best model-free one (sweep, 30%) by 10%" in problem
    # a model-free rung never counts as the best inductive baseline
    strong_free = {**ok, "sweep": {**ok["sweep"], "kind": "model_free", "rate": 0.95}}
    assert any("model-free" in p for p in suite_problems(cal, strong_free))
    ceiling = Calibration(inductive=None, inductive_ceiling=0.3)
    [problem] = suite_problems(ceiling, ok)
    assert "(heuristic) succeeds on 40% (ceiling 30%" in problem
    # unset targets stay out of the manifest's bytes
    assert "induction_margin" not in Calibration().to_dict()
    assert Calibration(induction_margin=0.15).to_dict()["induction_margin"] == 0.15


def test_model_free_rung_is_an_agent_by_its_rung_name(counter: None) -> None:
    """``run --agent NAME`` (the runner's make_agent) builds a model-free rung by its name, so
    running the rungs reproduces a format-2 certificate's ladder."""
    import dataclasses

    from arena_gen.agents.registry import make_agent

    registry.register(dataclasses.replace(calibrated_spec(), version=4, ladder_version=2,
                                          model_free={"step_up": StepUp}))
    try:
        assert isinstance(make_agent("step_up", "counter", None, 4), StepUp)
    finally:
        registry.unregister("counter")
        registry.register(calibrated_spec())
