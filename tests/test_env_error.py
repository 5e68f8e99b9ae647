"""A bug in a game rule mid-episode (an exception other than ActionError) fails that attempt as
``env_error`` and the run goes on: every episode is recorded, the scorer counts the attempt as
a failure (not excluded), and ``--resume`` does not retry it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import toy_env

from arena_gen.core import registry
from arena_gen.core.records import Trajectory
from arena_gen.core.suite_io import read_suite, write_suite
from arena_gen.runner.run import RunConfig, run_suite
from arena_gen.scoring.score import score_run
from arena_gen.suite.build import build_suite


@pytest.fixture()
def faulty_suite(tmp_path: Path) -> Iterator[Path]:
    registry.register(toy_env.spec(1))  # built and certified with the sound rules
    try:
        built = build_suite("lite", 5, ["counter"])
        suite = write_suite(tmp_path / "suite", built.manifest, built.tasks)
        registry.unregister("counter")
        registry.register(toy_env.spec(1, game=toy_env.FaultyCounterGame))  # then played buggy
        yield suite
    finally:
        registry.unregister("counter")


def test_env_exception_fails_the_attempt_and_the_run_goes_on(faulty_suite: Path,
                                                            tmp_path: Path) -> None:
    tasks = read_suite(faulty_suite).tasks["counter"]
    targets = {t.id: int(t.world["target"]) for t in tasks}
    assert any(v >= 3 for v in targets.values()), "the seed must give a task that hits the bug"
    out = tmp_path / "run"
    rundir = run_suite(RunConfig(suite=str(faulty_suite), agent="oracle", attempts=2,
                                 out=str(out)))
    records = rundir.records()
    assert len(records) == 2 * len(tasks)  # no episode lost, the run went on after the error
    assert rundir.read_meta()["ended"]
    for rec in records:
        Trajectory.model_validate(rec)
        if targets[rec["task_id"]] >= 3:  # the oracle's third "up" meets the bug
            assert rec["end_reason"] == "env_error" and rec["success"] is False
            assert rec["error"] == "RuntimeError: rule bug on step 3"
            assert rec["error_turn"]["turn"] == 3 and rec["error_turn"]["action"] == "up"
            assert rec["steps"] == len(rec["turns"]) == 2
            assert rec["final_info"]["value"] == 2  # the state before the failing turn
        else:
            assert rec["end_reason"] == "success"
    summary = score_run(out)
    counter = summary["envs"]["counter"]
    failures = sum(v >= 3 for v in targets.values())
    assert counter["attempts"] == counter["scored"] == 2 * len(tasks)  # none excluded
    assert counter["infra_errors"] == 0
    assert counter["success_rate"] == pytest.approx(
        100.0 * (len(tasks) - failures) / len(tasks), abs=1e-3)
    findings = (out / "findings.jsonl").read_text().splitlines()
    assert len(findings) == 2 * len(tasks)
    assert all('"replay_mismatch":false' in line for line in findings)  # the replay agrees
    before = (out / "trajectories.jsonl").read_bytes()
    run_suite(RunConfig(suite=str(faulty_suite), agent="oracle", attempts=2, out=str(out),
                        resume=True))
    assert (out / "trajectories.jsonl").read_bytes() == before  # env errors are not retried


def test_a_trajectory_whose_replay_raises_is_scored_as_a_failure(faulty_suite: Path,
                                                                tmp_path: Path) -> None:
    """``score`` replays every trajectory: a recorded turn that makes the game raise (a forged
    line, or a rule changed since) fails that attempt instead of the whole score."""
    import json

    from arena_gen.scoring.score import judge_record

    task = next(t for t in read_suite(faulty_suite).tasks["counter"] if t.world["target"] >= 3)
    out = tmp_path / "run"
    run_suite(RunConfig(suite=str(faulty_suite), agent="oracle", tasks=[task.id], out=str(out)))
    record = json.loads((out / "trajectories.jsonl").read_text())
    forged = {**record, "end_reason": "budget",
              "turns": [*record["turns"], {**record["turns"][-1], "turn": 3}]}
    line = judge_record(task, forged)
    assert line["findings"] == [] and line["flags"]["replay_mismatch"] is True
    line = judge_record(task, record)  # the env_error line itself replays cleanly
    assert line["flags"]["replay_mismatch"] is False
    assert [f["status"] for f in line["findings"]] == ["violated"]


def test_a_reset_that_raises_fails_each_attempt_before_its_first_turn(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The run compiles every task up front, but a reset can still raise later (a game whose
    start depends on more than the task, a harness's own protocol): that attempt ends as
    ``env_error`` with no turns, the run records every other attempt, and ``score`` counts it
    as a failure."""
    registry.register(toy_env.spec(1))
    try:
        built = build_suite("lite", 5, ["counter"])
        suite = write_suite(tmp_path / "suite", built.manifest, built.tasks)
        registry.unregister("counter")
        registry.register(toy_env.spec(1, game=toy_env.ResetFaultCounterGame))
        import arena_gen.runner.run as run_module

        check = run_module.check_playable

        def check_then_arm(*args: object) -> None:
            check(*args)  # type: ignore[arg-type]
            monkeypatch.setattr(toy_env.ResetFaultCounterGame, "armed", True)

        monkeypatch.setattr(run_module, "check_playable", check_then_arm)
        out = tmp_path / "run"
        records = run_suite(RunConfig(suite=str(suite), agent="oracle", out=str(out))).records()
        assert len(records) == len(built.tasks["counter"])
        for rec in records:
            Trajectory.model_validate(rec)
            assert rec["end_reason"] == "env_error" and rec["success"] is False
            assert rec["error"] == "RuntimeError: rule bug in reset"
            assert rec["steps"] == 0 and rec["turns"] == [] and "error_turn" not in rec
        counter = score_run(out)["envs"]["counter"]
        assert counter["scored"] == len(records) and counter["success_rate"] == 0.0
    finally:
        registry.unregister("counter")
