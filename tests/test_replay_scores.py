"""Scores from replays only (issue 26): every figure of ``score`` comes from the suite and the
replay of the recorded actions under the run's plan. Each test edits a real run directory the
way the attack did and checks the figure is the honest run's (or the line is refused)."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from chain_util import reseal
from click.testing import CliRunner

from arena_gen.cli import main
from arena_gen.core.errors import ArenaGenError, PlanError
from arena_gen.core.suite_io import write_suite
from arena_gen.runner.run import RunConfig, run_suite
from arena_gen.scoring.score import score_run
from arena_gen.suite.build import build_suite

#: 5 lights and 2 trading Lite tasks: the heuristic solves lights 2 and 4 and trading 1 (both
#: attempts each), so 6 of the 14 planned attempts succeed.
TASKS = [f"lights-lite-7-{i:04d}" for i in range(5)] + [f"trading-lite-7-{i:04d}"
                                                          for i in range(2)]
Record = dict[str, Any]


@pytest.fixture(scope="module")
def honest(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """A heuristic run of TASKS, 2 attempts each, and its (honest) summary: the tasks of the
    Lite suite released until 2026-12-02 (lights v2, trading v2), rebuilt from seed 7."""
    root = tmp_path_factory.mktemp("replay")
    built = build_suite("lite", 7, ["lights", "trading"], counts={"lights": 5, "trading": 2},
                        versions={"lights": 2, "trading": 2})
    suite = write_suite(root / "lite", built.manifest, built.tasks)
    out = root / "run"
    run_suite(RunConfig(suite=str(suite), agent="heuristic", attempts=2, out=str(out),
                        tasks=TASKS))
    return out, score_run(out)


def forged(honest: tuple[Path, dict[str, Any]], tmp_path: Path,
           edit: Callable[[list[Record]], list[Record]]) -> Path:
    """A copy of the honest run whose trajectory lines ``edit`` rewrote, the chain recomputed
    (a forger who re-chains: the replay must still refuse or out-score the edit)."""
    out = tmp_path / "forged"
    shutil.copytree(honest[0], out)
    path = out / "trajectories.jsonl"
    records = [json.loads(x) for x in path.read_text().splitlines()]
    reseal(out, edit(records))
    return out


def each(pred: Callable[[Record], bool], change: Callable[[Record], None]
         ) -> Callable[[list[Record]], list[Record]]:
    """An edit applying ``change`` to the lines ``pred`` selects."""
    def edit(records: list[Record]) -> list[Record]:
        for r in records:
            if pred(r):
                change(r)
        return records
    return edit


def test_the_honest_run_is_what_the_tests_assume(honest: tuple[Path, dict[str, Any]]) -> None:
    summary = honest[1]
    assert summary["overall"]["success_rate"] == pytest.approx(100 * 6 / 14, abs=1e-3)
    assert summary["complete"] is True and summary["overall"]["planned"] == 14
    assert summary["coverage"]["text"] == ("complete: 42.86 % success over 14 of 14 planned "
                                           "attempts")
    assert 0 < summary["envs"]["lights"]["optimality_ratio"] <= 1


def test_claimed_steps_do_not_set_optimality_or_efficiency(
        honest: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    """steps set to 1 on the successes (real turns kept): was optimality 11.5, efficiency 94x."""
    out = forged(honest, tmp_path, each(lambda r: r["success"], lambda r: r.update(steps=1)))
    summary = score_run(out)
    lights, clean = summary["envs"]["lights"], honest[1]["envs"]["lights"]
    for key in ("optimality_ratio", "trajectory_efficiency", "steps_mean"):
        assert lights[key] == clean[key], key
    assert lights["optimality_ratio"] <= 1
    lines = [json.loads(x) for x in (out / "findings.jsonl").read_text().splitlines()]
    flagged = {(x["task_id"], x["attempt"]) for x in lines if x["flags"]["replay_mismatch"]}
    assert flagged == {("lights-lite-7-0002", 0), ("lights-lite-7-0002", 1),
                       ("lights-lite-7-0004", 0), ("lights-lite-7-0004", 1),
                       ("trading-lite-7-0001", 0), ("trading-lite-7-0001", 1)}
    assert {x["replay"]["steps"] for x in lines if x["task_id"] == "lights-lite-7-0004"} == {157}


def test_a_claimed_profit_rate_is_not_the_profit(honest: tuple[Path, dict[str, Any]],
                                                 tmp_path: Path) -> None:
    """final_info.profit_rate 5.0 on every trading line: was avg_at_k_profit 500."""
    out = forged(honest, tmp_path, each(lambda r: r["env"] == "trading",
                                        lambda r: r["final_info"].update(profit_rate=5.0)))
    trading, clean = score_run(out)["envs"]["trading"], honest[1]["envs"]["trading"]
    for key in ("avg_at_k_profit", "best_at_k_profit", "profit_rate_median", "log_growth",
                "normalized_profit"):
        assert trading[key] == clean[key], key
    assert trading["avg_at_k_profit"] != 500.0


def test_claimed_success_and_steps_do_not_move_the_evolution_curve(
        honest: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    """Failures claiming success at step 1 once lifted the curve's first point to 8/14."""
    def claim(r: Record) -> None:
        r.update(success=True, steps=1, end_reason="success")

    out = forged(honest, tmp_path, each(lambda r: not r["success"], claim))
    summary = score_run(out)
    assert summary["curves"] == honest[1]["curves"]
    assert summary["curves"]["lights"]["evolution"][0] == 0.0
    assert summary["overall"]["success_rate"] == honest[1]["overall"]["success_rate"]


def test_loops_and_invalid_turns_come_from_the_replay(honest: tuple[Path, dict[str, Any]],
                                                      tmp_path: Path) -> None:
    """Five malformed actions claimed valid, with claimed states that all differ: the replay
    finds 5 invalid turns, 4 of them repeating the previous (state, action) pair."""
    def bogus(r: Record) -> None:
        r["turns"] = [{**r["turns"][0], "turn": i + 1, "action": "bogus", "raw": "bogus",
                       "valid": True, "state": {"claimed": i}} for i in range(5)]
        r.update(steps=5, success=False, end_reason="budget")

    out = forged(honest, tmp_path, each(
        lambda r: (r["task_id"], r["attempt"]) == ("lights-lite-7-0000", 0), bogus))
    summary = score_run(out)
    line = next(json.loads(x) for x in (out / "findings.jsonl").read_text().splitlines()
                if json.loads(x)["task_id"] == "lights-lite-7-0000")
    assert line["replay"] == {"steps": 5, "success": False, "invalid_turns": 5,
                              "loop_turns": 4, "budget": 200}
    assert line["flags"]["replay_mismatch"]  # the claimed validity is refuted
    lights = summary["envs"]["lights"]
    assert lights["turns"] == honest[1]["envs"]["lights"]["turns"] - 200 + 5
    assert lights["invalid_action_rate"] == round(5 / lights["turns"], 4)
    assert lights["loop_ratio"] == round(4 / lights["turns"], 4)
    assert summary["curves"]["lights"]["loop_ratio"].count(0.8) == 1  # 4 of its 5 turns


def _dup(records: list[Record]) -> list[Record]:
    return [*records, dict(records[3])]


def _outside_plan(records: list[Record]) -> list[Record]:
    return [*records, {**records[0], "task_id": "lights-lite-7-0009"}]


@pytest.mark.parametrize(("edit", "line", "why"), [
    (each(lambda r: r["task_id"] == "lights-lite-7-0003" and r["attempt"] == 1,
          lambda r: r.update(attempt=7)), 8, "attempt 7 is outside the run's 2 attempt"),
    (each(lambda r: r["task_id"] == "lights-lite-7-0000" and r["attempt"] == 0,
          lambda r: r.update(attempt=10000)), 1, "attempt 10000 is outside"),
    (_dup, 15, "a second line for attempt 1 (the first is line 4)"),
    (_outside_plan, 15, "not in the run's plan"),
    (each(lambda r: r["task_id"] == "trading-lite-7-0000" and r["attempt"] == 0,
          lambda r: r.update(agent="oracle")), 11, "agent 'oracle' is not the run's"),
    (each(lambda r: r["task_id"] == "lights-lite-7-0001" and r["attempt"] == 0,
          lambda r: r.update(mode="with-rules")), 3, "mode 'with-rules' is not the run's"),
    (each(lambda r: r["task_id"] == "lights-lite-7-0001" and r["attempt"] == 1,
          lambda r: r.update(env="trading")), 4, "env 'trading' is not the task's"),
])
def test_lines_the_run_never_planned_are_refused(
        honest: tuple[Path, dict[str, Any]], tmp_path: Path,
        edit: Callable[[list[Record]], list[Record]], line: int, why: str) -> None:
    """Were all counted (36.7 % -> 86-100 %); now refused, naming file and line."""
    out = forged(honest, tmp_path, edit)
    with pytest.raises(PlanError, match=re.escape(why)) as err:
        score_run(out)
    assert isinstance(err.value, ArenaGenError)
    assert f"trajectories.jsonl:{line}" in str(err.value)
    assert (out / "summary.json").read_text() == (honest[0] / "summary.json").read_text()


def test_a_resume_retry_after_an_infra_error_is_not_a_duplicate(
        honest: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    """The one duplicate a run leaves before finalize: an infra_error line, then its retry."""
    def retried(records: list[Record]) -> list[Record]:
        first = {**records[0], "end_reason": "infra_error", "success": False}
        return [first, *records]

    summary = score_run(forged(honest, tmp_path, retried))
    assert summary["overall"] == honest[1]["overall"] and summary["complete"]


def _relabel(r: Record) -> None:
    r.update(end_reason="infra_error")


@pytest.mark.parametrize(("edit", "infra", "missing"), [
    (each(lambda r: not r["success"], _relabel), 8, 0),
    (lambda records: [r for r in records if r["success"]], 0, 8),
])
def test_hidden_failures_make_the_run_incomplete_everywhere(
        honest: tuple[Path, dict[str, Any]], tmp_path: Path,
        edit: Callable[[list[Record]], list[Record]], infra: int, missing: int) -> None:
    """Failures relabelled infra_error, or deleted: success 42.9 % -> 100 %, flagged only by the
    infra_errors/missing columns. Now every output says incomplete, with the coverage, and
    --strict counts them as failures."""
    out = forged(honest, tmp_path, edit)
    summary = score_run(out)
    assert summary["overall"]["success_rate"] == 100.0
    assert summary["complete"] is False and summary["overall"]["complete"] is False
    text = (f"incomplete ({infra} infra error(s), {missing} missing; --strict counts them as "
            f"failures): 100 % success over 6 of 14 planned attempts")
    assert summary["coverage"] == {"planned": 14, "scored": 6, "infra_errors": infra,
                                   "missing": missing, "complete": False, "strict": False,
                                   "text": text}
    assert json.loads((out / "summary.json").read_text())["coverage"]["text"] == text
    csv_text = (out / "summary.csv").read_text().splitlines()
    header = csv_text[0].split(",")
    overall = dict(zip(header, csv_text[-1].split(","), strict=True))
    assert (overall["complete"], overall["planned"]) == ("False", "14")

    strict = score_run(out, strict=True)
    assert strict["overall"]["success_rate"] == pytest.approx(100 * 6 / 14, abs=1e-3)
    assert strict["envs"]["lights"]["success_rate"] == 40.0
    assert strict["complete"] is False and strict["coverage"]["strict"] is True

    result = CliRunner().invoke(main, ["score", str(out), "--display", "plain"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "INCOMPLETE RUN: incomplete (" in result.output
    result = CliRunner().invoke(main, ["score", str(out), "--strict", "--display", "plain"],
                                catch_exceptions=False)
    said = " ".join(result.output.split())  # the title is wrapped to the terminal's width
    assert "counted as failures by --strict): 42.86 % success over 14 planned" in said

    pytest.importorskip("matplotlib")
    from arena_gen.scoring.report import build_report

    page = build_report([out])
    assert "INCOMPLETE" in page and "42.86 % success over 14 planned attempts" in page
