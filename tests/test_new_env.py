"""A new env registered from the tests alone builds, verifies, runs and scores; a suite built
before a version bump still verifies, rebuilds and plays after it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import toy_env

from arena_gen.core import registry
from arena_gen.core.suite_io import read_suite, write_suite
from arena_gen.runner.run import RunConfig, run_suite
from arena_gen.scoring.score import score_run
from arena_gen.suite.build import build_suite
from arena_gen.suite.verify import verify_suite


@pytest.fixture()
def counter_v1() -> Iterator[None]:
    registry.register(toy_env.spec(1))
    try:
        yield
    finally:
        registry.unregister("counter")


def _build(tmp_path: Path, name: str) -> Path:
    built = build_suite("lite", 5, ["counter"])
    return write_suite(tmp_path / name, built.manifest, built.tasks)


def _oracle_and_random(suite: Path, out: Path) -> dict:
    run_suite(RunConfig(suite=str(suite), agent="oracle", out=str(out / "oracle")))
    run_suite(RunConfig(suite=str(suite), agent="random", attempts=2, out=str(out / "random")))
    return {"oracle": score_run(out / "oracle"), "random": score_run(out / "random")}


def test_toy_env_builds_verifies_runs_and_scores(counter_v1: None, tmp_path: Path) -> None:
    suite = _build(tmp_path, "s")
    tasks = read_suite(suite).tasks["counter"]
    assert [t.env_version for t in tasks] == [1, 1, 1]
    assert [t.certificate.min_steps for t in tasks] == [t.world["target"] for t in tasks]
    report = verify_suite(suite, rebuild=True)
    assert report.ok and not report.rebuild_problems
    scores = _oracle_and_random(suite, tmp_path / "runs")
    assert scores["oracle"]["envs"]["counter"]["success_rate"] == 100.0
    assert 0.0 <= scores["random"]["envs"]["counter"]["success_rate"] < 100.0


def test_suite_built_before_a_version_bump_still_verifies_and_plays(
        counter_v1: None, tmp_path: Path) -> None:
    old = _build(tmp_path, "old")
    before = {p.name: p.read_bytes() for p in old.iterdir()}
    registry.register(toy_env.spec(2))  # v2 ships: "up" now adds 2
    assert registry.get("counter").version == 2
    report = verify_suite(old, rebuild=True)  # v1 tasks verify and rebuild with v1
    assert report.ok, [c.problem for c in report.checks if not c.ok]
    assert not report.rebuild_problems
    assert {p.name: p.read_bytes() for p in old.iterdir()} == before
    scores = _oracle_and_random(old, tmp_path / "runs")
    assert scores["oracle"]["envs"]["counter"]["success_rate"] == 100.0
    meta = json.loads((old / "manifest.json").read_text())
    assert meta["env_versions"] == {"counter": 1}
    new = build_suite("lite", 5, ["counter"])  # a fresh build uses v2, with v2 certificates
    assert {t.env_version for t in new.tasks["counter"]} == {2}
    assert new.manifest["env_versions"] == {"counter": 2}
    # the v1 witness does not solve v2's game on an odd target: the versions really differ
    odd = [t for t in read_suite(old).tasks["counter"] if t.world["target"] % 2]
    for task in odd:
        game = registry.get("counter", 2).make_game(task)
        from arena_gen.core.game import play

        assert not play(game, task.certificate.witness).success
