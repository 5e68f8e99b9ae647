"""Every summary metric's definition, pinned on hand-built groups with hand-computed values."""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path
from typing import Any

import pytest

from arena_gen.core.suite_io import read_suite
from arena_gen.scoring.definitions import definition_of, fmt, heading, metric_definitions
from arena_gen.scoring.judge import Replay
from arena_gen.scoring.metrics import (
    clustered_mean_se,
    log_growth,
    loop_turns,
    median,
    task_mean_se,
    trajectory_efficiency,
)
from arena_gen.scoring.score import (
    CSV_COLUMNS,
    Attempt,
    Group,
    aggregate,
    fixed_horizon,
    group_metrics,
    summary_csv,
)
from arena_gen.scoring.table import ALL_METRICS, score_table

SUITES = Path(__file__).resolve().parent.parent / "suites"


def record(steps: int, *, tokens: int = 100, loop: bool = False,
           profit: float | None = None) -> dict[str, Any]:
    """A trajectory of ``steps`` turns; ``loop`` repeats one (state, action) pair throughout."""
    turns = [{"action": "x" if loop else str(i), "state": {"s": 0 if loop else i + 1},
              "valid": True, "tokens": {"total_tokens": tokens}} for i in range(steps)]
    rec: dict[str, Any] = {"steps": steps, "turns": turns, "start_state": {"s": 0}}
    if profit is not None:
        rec["final_info"] = {"profit_rate": profit}
    return rec


def replay_of(rec: dict[str, Any] | None, perfect: bool) -> Replay | None:
    """The replay figures a judge would give the hand-built ``rec`` (the scorer reads these,
    never the record's own steps, validity, states or profit)."""
    if rec is None:
        return None
    return Replay(steps=rec["steps"], success=perfect,
                  invalid=sum(not t["valid"] for t in rec["turns"]), loops=loop_turns(rec),
                  budget=rec["steps"], facts=dict(rec.get("final_info") or {}))


def attempt(task: str, i: int, score: float | None, rec: dict[str, Any] | None = None,
            **kw: Any) -> Attempt:
    return Attempt(task_id=task, env=kw.pop("env", "lights"), level="x", attempt=i, score=score,
                   perfect=score == 100.0, record=rec, replay=replay_of(rec, score == 100.0),
                   **kw)


@pytest.fixture
def two_tasks() -> dict[str, Any]:
    """Task A scores (100, 0) in 10 and 20 calls (exact min_steps 8); task B scores (50, 50) in
    5 and 25 calls (a bounds-only certificate), its second attempt looping on every turn."""
    group = Group([attempt("A", 0, 100.0, record(10), min_steps=8),
                   attempt("A", 1, 0.0, record(20), min_steps=8),
                   attempt("B", 0, 50.0, record(5)),
                   attempt("B", 1, 50.0, record(25, loop=True))])
    return group_metrics(group, 2)


def test_avg_at_k_is_binary_and_credit_is_kept(two_tasks: dict[str, Any]) -> None:
    m = two_tasks
    assert m["avg_at_k"] == 25.0              # (1/2 + 0/2) / 2 tasks
    assert m["avg_credit_at_k"] == 50.0       # ((100 + 0)/2 + (50 + 50)/2) / 2
    assert m["avg_at_k_se"] == 25.0           # task means 50, 0: sd 35.36 / sqrt(2)
    assert m["avg_credit_at_k_se"] == 0.0     # task means 50, 50
    assert m["success_rate"] == 25.0 and m["success_rate_se"] == 25.0
    assert m["pass_at_1"] == 25.0 and m["pass_at_2"] == 50.0  # A: 1/2 and 1; B: 0
    assert m["pass_at_2_se"] == 50.0          # task values 100, 0
    assert m["pass_hat_2"] == 0.0
    assert m["avg_at_k_excluded"] == 0


def test_paper_avg_at_k_example() -> None:
    """The paper's 44.17 is 53 successes over 120 tasks at k = 1."""
    group = Group([attempt(f"t{i}", 0, 100.0 if i < 53 else 60.0) for i in range(120)])
    assert group_metrics(group, 1)["avg_at_k"] == pytest.approx(44.1667, abs=1e-4)


def test_trajectory_efficiency_in_percent_per_call(two_tasks: dict[str, Any]) -> None:
    # s_i / n_i = 100/10, 0/20, 50/5, 50/25 = 10, 0, 10, 2 -> mean 5.5 % per agent call
    assert two_tasks["trajectory_efficiency"] == 5.5
    assert two_tasks["trajectory_efficiency_se"] == 0.5  # task means 5 and 6: 0.7071 / sqrt(2)
    assert two_tasks["trajectory_efficiency_excluded"] == 0
    assert trajectory_efficiency([100.0, 50.0, 0.0], [10, 5, 20]) == pytest.approx(20 / 3)
    with pytest.raises(ValueError):
        trajectory_efficiency([100.0], [0])


def test_optimality_loops_steps_and_tokens(two_tasks: dict[str, Any]) -> None:
    m = two_tasks
    assert m["optimality_ratio"] == 0.8          # A#0 only: 8 / 10
    assert m["optimality_ratio_se"] is None      # one task: no spread to measure
    assert m["optimality_ratio_excluded"] == 1   # B has bounds only
    assert m["loop_ratio"] == 0.4                # 24 repeated turns (not the first) / 60
    assert m["loop_ratio_excluded"] == 0
    assert m["steps_mean"] == 15.0 and m["steps_se"] == 0.0  # task means 15 and 15
    assert m["tokens"] == 6000                   # 60 turns x 100
    assert m["token_efficiency_basis"] == "success_rate"
    assert m["token_efficiency"] == pytest.approx(25 / 0.006, abs=1e-6)  # % per 1M tokens
    assert m["avg_at_k_profit"] is None and m["profit_excluded"] == 2


def test_trading_profit_metrics_and_not_applicable() -> None:
    """T1 profits +10 %, +30 % (oracle 50 %); T2 -20 %, 0 % (oracle 40 %); fixed horizon."""
    group = Group([
        attempt("T1", 0, 100.0 / 3, record(3, tokens=1000, profit=0.1), env="trading",
                oracle_profit=0.5, fixed_horizon=True),
        attempt("T1", 1, 100.0, record(3, tokens=1000, profit=0.3), env="trading",
                oracle_profit=0.5, fixed_horizon=True),
        attempt("T2", 0, 0.0, record(3, tokens=1000, profit=-0.2), env="trading",
                oracle_profit=0.4, fixed_horizon=True),
        attempt("T2", 1, 0.0, record(3, tokens=1000, profit=0.0), env="trading",
                oracle_profit=0.4, fixed_horizon=True)])
    m = group_metrics(group, 2)
    assert m["avg_at_k_profit"] == 5.0 and m["avg_at_k_profit_se"] == 15.0  # means 20, -10
    assert m["best_at_k_profit"] == 15.0 and m["best_at_k_profit_se"] == 15.0  # bests 30, 0
    assert m["profit_rate_median"] == 5.0                                  # of -20, 0, 10, 30
    growth = ((math.log(1.1) + math.log(1.3)) / 2 + (math.log(0.8) + math.log(1.0)) / 2) / 2
    assert m["log_growth"] == pytest.approx(growth, abs=1e-6)
    assert m["normalized_profit"] == pytest.approx(((0.2 + 0.6) / 2 + (-0.5 + 0) / 2) / 2)
    assert m["profit_excluded"] == 0
    assert m["token_efficiency_basis"] == "avg_at_k_profit"
    assert m["token_efficiency"] == pytest.approx(5 / 0.012, abs=1e-6)   # 12 000 tokens
    for key in ("trajectory_efficiency", "loop_ratio", "optimality_ratio"):
        assert m[key] is None, key               # undefined on a fixed horizon, not 0
        assert m[f"{key}_excluded"] == 2, key


def test_huge_profit_rates_stay_finite() -> None:
    """A long horizon can compound to 1e14 %: the mean explodes, log growth and median do not."""
    group = Group([attempt("T", 0, 0.0, record(1, profit=1e12), fixed_horizon=True),
                   attempt("T", 1, 0.0, record(1, profit=0.0), fixed_horizon=True),
                   attempt("T", 2, 0.0, record(1, profit=0.1), fixed_horizon=True)])
    m = group_metrics(group, 3)
    assert m["best_at_k_profit"] == 1e14
    assert m["profit_rate_median"] == 10.0
    assert m["log_growth"] == pytest.approx((math.log1p(1e12) + 0 + math.log(1.1)) / 3, abs=1e-6)
    assert log_growth(-1.0) is None and log_growth(0.0) == 0.0


def test_terminal_headline_is_median_and_log_growth_not_the_mean_of_rates() -> None:
    """The terminal table shows what stays finite: the 1e14 % attempt does not set the cell."""
    summary = aggregate([attempt("T", a, 0.0, record(1, profit=p), env="trading",
                                 fixed_horizon=True) for a, p in enumerate((1e12, 0.0, 0.1))], 3)
    assert "avg_at_k_profit" not in ALL_METRICS and "best_at_k_profit" not in ALL_METRICS
    table = score_table(summary, ["all"])
    row = {r[0]: r for r in table.rows}["trading"]
    assert row[1 + table.keys.index("profit_rate_median")] == "10"
    growth = (math.log1p(1e12) + 0 + math.log(1.1)) / 3
    assert row[1 + table.keys.index("log_growth")] == f"{growth:.4g}"
    assert summary["envs"]["trading"]["avg_at_k_profit"] > 1e13   # still in summary.json


def test_infra_errors_are_excluded_tasks_not_zeros() -> None:
    group = Group([attempt("A", 0, 100.0, record(4), min_steps=4),
                   attempt("A", 1, None, record(2), min_steps=4),   # infra error
                   attempt("C", 0, None, record(1), min_steps=2)])  # only an infra error
    m = group_metrics(group, 2)
    assert m["tasks"] == 2 and m["scored"] == 1 and m["infra_errors"] == 2
    assert m["avg_at_k"] == 100.0 and m["avg_at_k_excluded"] == 1
    assert m["optimality_ratio"] == 1.0 and m["optimality_ratio_excluded"] == 1
    assert m["trajectory_efficiency"] == 25.0 and m["trajectory_efficiency_excluded"] == 1
    assert m["pass_at_2"] is None                # A has one scored attempt


def test_standard_errors_are_over_tasks() -> None:
    # A: successes (100, 100, 0); B: (0). Pooled 2/4 = 50; task-first (66.67 + 0) / 2 = 33.33.
    per_task = [[100.0, 100.0, 0.0], [0.0]]
    mean, se = clustered_mean_se(per_task)
    assert mean == 50.0
    assert se == pytest.approx(math.sqrt(2 / 1 * (50.0 ** 2 + 50.0 ** 2)) / 4)  # = 25
    mean, se = task_mean_se(per_task)
    assert mean == pytest.approx(100 / 3) and se == pytest.approx(100 / 3)
    # balanced attempts: the clustered SE is the SE of the task means
    balanced = [[100.0, 0.0], [0.0, 0.0], [100.0, 100.0]]
    assert clustered_mean_se(balanced)[1] == pytest.approx(task_mean_se(balanced)[1])
    # ... and not the naive SE over the 6 attempts as if they were independent
    naive = math.sqrt(sum((x - 50) ** 2 for v in balanced for x in v) / 5 / 6)
    assert task_mean_se(balanced)[1] == pytest.approx(math.sqrt(2500 / 3)) != naive
    assert median([]) is None and clustered_mean_se([]) == (None, None)


def test_fixed_horizon_envs_from_the_released_suite() -> None:
    suite = read_suite(str(SUITES / "lite"))
    first = {}
    for task in suite.all_tasks():
        first.setdefault(task.env, task)
    assert {env: fixed_horizon(t) for env, t in first.items()} == {
        "energy": True, "lights": False, "repo": False, "trading": True}


def test_not_applicable_in_tables_and_definitions_in_json(two_tasks: dict[str, Any]) -> None:
    summary = aggregate([attempt("A", 0, 100.0, record(10), min_steps=8),
                         attempt("T", 0, 0.0, record(3, profit=0.1), env="trading",
                                 fixed_horizon=True)], 1)
    trading = summary["envs"]["trading"]
    assert trading["trajectory_efficiency"] is None and trading["loop_ratio"] is None
    assert summary["envs"]["lights"]["avg_at_k_profit"] is None
    rows = {r["env"]: r for r in csv.DictReader(io.StringIO(summary_csv(summary)))}
    assert rows["trading"]["trajectory_efficiency"] == "n/a"
    assert rows["lights"]["trajectory_efficiency"] == "10.0"
    assert rows["*"]["trajectory_efficiency_excluded"] == "1"   # the trading task
    assert "pass_at_1" in rows["*"] and "pass_hat_1_se" in rows["*"]
    shown = score_table(summary, ["all"])
    table = {r[0]: r for r in shown.rows}
    assert table["trading"][1 + shown.keys.index("loop_ratio")] == "n/a"
    assert fmt(None) == "n/a" and fmt(0.0) == "0" and fmt(5.5) == "5.5"
    defs = summary["metric_definitions"]
    assert defs == metric_definitions()
    assert defs["avg_at_k"]["source"].startswith("OdysseyArena")
    assert defs["trajectory_efficiency"]["unit"] == "% per agent call"
    for key in [*CSV_COLUMNS, *two_tasks]:
        if key in ("env", "level") or key.endswith(
                ("_se", "_excluded")):
            continue
        d = definition_of(key)
        assert d is not None and d.definition and d.source, key
    assert heading("pass_at_3") == "Pass@3 (%)" and heading("avg_at_k") == "Avg@k (%)"
