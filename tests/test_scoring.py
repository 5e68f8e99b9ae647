"""Scoring: the policy, unbiased Pass@k, efficiency and loop ratio on hand-built cases."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena_gen.cli import main
from arena_gen.scoring.metrics import (
    evolution_curve,
    loop_turns,
    mean_se,
    pass_at_k,
    pass_hat_k,
    trajectory_efficiency,
)
from arena_gen.scoring.policy import attempt_score, item_credit
from arena_gen.scoring.score import score_findings

RUBRIC = ["a", "b", "c", "d"]


def line(statuses: dict[str, str], **flags: bool) -> dict:
    return {"task_id": "t", "attempt": 0, "flags": flags,
            "findings": [{"item": k, "status": v, "evidence": "e"} for k, v in statuses.items()]}


def test_pass_at_k_hand_computed() -> None:
    assert pass_at_k(4, 1, 1) == pytest.approx(0.25)
    assert pass_at_k(4, 1, 2) == pytest.approx(0.5)        # 1 - C(3,2)/C(4,2) = 1 - 3/6
    assert pass_at_k(5, 2, 3) == pytest.approx(0.9)        # 1 - C(3,3)/C(5,3) = 1 - 1/10
    assert pass_at_k(3, 0, 2) == 0.0
    assert pass_at_k(3, 3, 3) == 1.0
    assert pass_at_k(2, 1, 3) is None                      # n < k: no number, not a wrong one
    assert pass_hat_k(4, 2, 2) == pytest.approx(1 / 6)     # C(2,2)/C(4,2)
    assert pass_hat_k(1, 1, 2) is None


def test_item_credit_counts_missing_and_not_assessable() -> None:
    findings = line({"a": "met", "b": "not_assessable", "c": "violated"})["findings"]
    assert item_credit(findings, RUBRIC) == 25.0   # d missing, b not assessable: both count
    assert attempt_score(line({"a": "met", "b": "met"}), RUBRIC) == 50.0


def test_rh_zeroed_perfect_and_infra() -> None:
    partial = {"a": "met", "b": "met", "c": "met", "d": "violated"}
    assert attempt_score(line(partial, rh_zeroed=True), RUBRIC) == 0.0
    perfect = {k: "met" for k in RUBRIC}
    assert attempt_score(line(perfect), RUBRIC) == 100.0
    assert attempt_score(line(perfect, rh_zeroed=True), RUBRIC) == 100.0   # never zeroed
    assert attempt_score(line(partial, infra_error=True), RUBRIC) is None  # excluded


def test_mean_se_and_efficiency() -> None:
    mean, se = mean_se([1.0, 2.0, 3.0, 4.0])
    assert mean == 2.5 and se == pytest.approx(math.sqrt(5 / 3 / 4))
    assert mean_se([]) == (None, None) and mean_se([7.0]) == (7.0, None)
    assert trajectory_efficiency([100.0, 50.0, 0.0], [10, 5, 20]) == pytest.approx((10 + 10) / 3)


def turn(action: str, state: int) -> dict:
    return {"action": action, "state": {"s": state}, "valid": True}


def test_loop_ratio_on_hand_built_trajectory() -> None:
    record = {"start_state": {"s": 0}, "turns": [
        turn("3", 0),   # no progress, no previous pair
        turn("3", 0),   # same (state, action) again, no progress: loop
        turn("3", 0),   # loop
        turn("1", 2),   # progress
        turn("1", 0),   # progress (state changed back)
        turn("1", 2),   # state before differs from previous turn's: not a loop
        turn("5", 2),   # different action
        turn("5", 2),   # loop
    ]}
    assert loop_turns(record) == 3


def test_evolution_curve() -> None:
    recs = [{"success": True, "steps": 2}, {"success": True, "steps": 4}, {"success": False,
                                                                          "steps": 5}]
    assert evolution_curve(recs, 5) == pytest.approx([0, 1 / 3, 1 / 3, 2 / 3, 2 / 3])


def test_score_findings_from_elsewhere(tmp_path: Path) -> None:
    rubrics = {"t1": ["a", "b"], "t2": ["a"]}
    lines = [
        {"task_id": "t1", "attempt": 0, "flags": {}, "findings": [
            {"item": "a", "status": "met", "evidence": ""},
            {"item": "b", "status": "met", "evidence": ""}]},
        {"task_id": "t1", "attempt": 1, "flags": {"rh_zeroed": True}, "findings": [
            {"item": "a", "status": "met", "evidence": ""}]},
        {"task_id": "t2", "attempt": 0, "flags": {}, "findings": [
            {"item": "a", "status": "not_assessable", "evidence": ""}]},
        {"task_id": "t2", "attempt": 1, "flags": {"infra_error": True}, "findings": []},
    ]
    f = tmp_path / "findings.jsonl"
    f.write_text("".join(json.dumps(x) + "\n" for x in lines))
    r = tmp_path / "rubrics.json"
    r.write_text(json.dumps(rubrics))
    summary = score_findings(f, r)
    overall = summary["overall"]
    assert overall["scored"] == 3 and overall["infra_errors"] == 1
    assert overall["success_rate"] == pytest.approx(100 / 3, abs=1e-3)
    assert overall["avg_at_k"] == pytest.approx((50 + 0) / 2)  # t1: 1 success of 2, t2: 0
    assert overall["avg_credit_at_k"] == pytest.approx((50 + 0) / 2)  # t1: (100+0)/2, t2: 0
    assert overall["trajectory_efficiency"] is None  # no trajectories: undefined, not 0
    assert overall["pass_at_2"] is None                          # t2 has one scored attempt
    result = CliRunner().invoke(main, ["score", "--findings", str(f), "--rubrics", str(r),
                                       "--display", "plain", "--metrics",
                                       "success_rate,avg_at_k"])
    assert result.exit_code == 0, result.output
    overall_row = next(x for x in result.output.splitlines() if x.startswith("overall"))
    assert overall_row.split() == ["overall", "33.33", "25"]
