"""Bounded mutation fuzzing of every input surface (#16): damaged suites, manifests, released
files, run directories, findings and rubrics, CLI paths and suite signatures never raise
anything but the project's error, and no forged run or suite gets through (#26). Each surface
draws 40 seeded cases (derandomized); the long run, 10,000 cases per surface, is
``benchmarks/bench_fuzz.py``. The forgery surfaces' oracles are tested on their own below."""

from __future__ import annotations

import copy
import random
import shutil
import tempfile
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from fuzz_surfaces import RELEASED_FILES, SURFACES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

CASES = 40
NEEDS_RELEASED = {"importers (parse)", "importers (parse + verify)"}


@pytest.mark.parametrize("surface", sorted(SURFACES))
def test_no_input_escapes_the_project_error(surface: str) -> None:
    if surface in NEEDS_RELEASED and not all(p.is_file() for p in RELEASED_FILES.values()):
        pytest.skip("../shared/reference-data is absent")
    outcomes: list[str] = []

    @settings(max_examples=CASES, derandomize=True, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.integers(min_value=0, max_value=2**32 - 1))
    def case(seed: int) -> None:
        work = Path(tempfile.mkdtemp(prefix="fuzz-"))
        try:
            outcomes.append(SURFACES[surface](work, random.Random(seed)))
        finally:
            shutil.rmtree(work, ignore_errors=True)

    case()
    assert set(outcomes) <= {"ok", "error"} and "error" in outcomes


# -- the forgery surfaces' oracles (#26): they accept the honest artefact and see a forgery --------


def test_the_run_forgery_oracle_accepts_the_honest_run_and_its_relabelled_claims(
        tmp_path: Path) -> None:
    from fuzz_forgery import _write_run, honest_run, judge_forged_run

    _, meta, raw, honest = honest_run()
    assert honest["overall"]["success_rate"] == pytest.approx(200 / 3, abs=1e-3)
    run = tmp_path / "honest"
    _write_run(run, copy.deepcopy(raw), copy.deepcopy(meta), True, random.Random(0))
    assert judge_forged_run(run) == ("ok", [])
    claimed = copy.deepcopy(raw)  # every failure claims a one-step success, re-chained
    for rec in claimed:
        rec.update(success=True, steps=1, end_reason="success")
    _write_run(tmp_path / "claims", claimed, copy.deepcopy(meta), True, random.Random(0))
    assert judge_forged_run(tmp_path / "claims") == ("ok", [])
    outside = [*copy.deepcopy(raw), dict(copy.deepcopy(raw[0]), attempt=2)]
    _write_run(tmp_path / "outside", outside, copy.deepcopy(meta), True, random.Random(0))
    assert judge_forged_run(tmp_path / "outside") == ("error", [])


def test_the_run_forgery_oracle_sees_a_scorer_that_trusts_a_claimed_success(
        tmp_path: Path) -> None:
    from fuzz_forgery import _write_run, honest_run, judge_forged_run

    from arena_gen.scoring import score

    _, meta, raw, _ = honest_run()
    claimed = copy.deepcopy(raw)
    for rec in claimed:
        rec.update(success=True, end_reason="success")
    _write_run(tmp_path / "run", claimed, copy.deepcopy(meta), True, random.Random(0))
    real = score.judge_attempt

    def trusting(task: Any, record: dict[str, Any], harness: str | None = None,
                 probes: int | None = None) -> Any:
        line, replay = real(task, record, harness, probes)
        if record.get("success"):  # the bug issue 26 found: a claim read for a figure
            line["findings"] = [dict(f, status="met") for f in line["findings"]]
        return line, replay

    with mock.patch.object(score, "judge_attempt", trusting):
        outcome, diff = judge_forged_run(tmp_path / "run")
    assert outcome == "forged"
    assert "$.overall.success_rate: 100.0 (reference 66.6667)" in diff


def test_the_suite_oracle_accepts_the_honest_suite_and_refuses_a_reroll(tmp_path: Path) -> None:
    from fuzz_substitution import _sub_reroll, _write_suite_files, honest_suite, judge_suite

    folder, _, tasks, manifest = honest_suite()
    assert judge_suite(folder) == "ok"
    forged = copy.deepcopy(tasks), copy.deepcopy(manifest)
    _sub_reroll(*forged, random.Random(0))
    _write_suite_files(tmp_path / "reroll", *forged, refreeze=True)
    assert judge_suite(tmp_path / "reroll") == "error"


def test_the_suite_oracle_sees_a_verify_that_does_not_pin_the_attempt(tmp_path: Path) -> None:
    from fuzz_substitution import (
        _TASK_CHECKS,
        _sub_reroll,
        _write_suite_files,
        honest_suite,
        judge_suite,
    )

    from arena_gen.suite import verify

    _TASK_CHECKS.clear()  # the per-task memo holds the real verdict on the reroll
    _, _, tasks, manifest = honest_suite()
    forged = copy.deepcopy(tasks), copy.deepcopy(manifest)
    _sub_reroll(*forged, random.Random(1))  # build stats fixed up too (rng 1: 0.13 < 0.7)
    _write_suite_files(tmp_path / "reroll", *forged, refreeze=True)
    with mock.patch.object(verify, "earlier_attempts", lambda task, *_: (None, {})), \
            mock.patch.object(verify, "seed_problems", lambda suite, checks: []):
        assert judge_suite(tmp_path / "reroll") == "forged"
    _TASK_CHECKS.clear()
