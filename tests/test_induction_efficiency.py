"""Induction efficiency: exact values on hand-made groups, the cap, failures at 0, the reference
kinds, and a run whose lines claim fewer steps than their replay (the judge recounts)."""

from __future__ import annotations

import copy
import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from chain_util import reseal

from arena_gen.core.errors import SchemaError
from arena_gen.core.suite_io import read_suite
from arena_gen.core.task import Task
from arena_gen.scoring.induction_efficiency import (
    EXPECTED,
    INDUCTION_LOWER,
    WITH_RULES,
    Price,
    Reference,
    efficiency,
    price_text,
    reference_of,
    reference_text,
    rung_prices,
)
from arena_gen.scoring.judge import Replay
from arena_gen.scoring.score import Attempt, Group, aggregate, group_metrics, summary_csv

LITE = read_suite("lite")


def played(task: str, i: int, steps: int, success: bool, ref: Reference | None) -> Attempt:
    """An attempt whose replay took ``steps`` agent calls."""
    return Attempt(task_id=task, env="lights", level="x", attempt=i,
                   score=100.0 if success else 0.0, perfect=success,
                   replay=Replay(steps=steps, success=success, invalid=0, loops=0, budget=50,
                                 facts={}), reference=ref)


def test_exact_values_on_two_tasks() -> None:
    """A (with-rules minimum 10): solved in 10 and 20 steps -> 1 and 0.25, mean 0.625;
    B (expected induction cost 8): solved in 16 steps -> 0.25, failed -> 0, mean 0.125."""
    a, b = Reference(10.0, WITH_RULES), Reference(8.0, EXPECTED)
    m = group_metrics(Group([played("A", 0, 10, True, a), played("A", 1, 20, True, a),
                             played("B", 0, 16, True, b), played("B", 1, 5, False, b)]), 2)
    assert m["induction_efficiency"] == 0.375             # (0.625 + 0.125) / 2
    assert m["induction_efficiency_se"] == 0.25           # task means 0.625, 0.125
    assert m["induction_efficiency_excluded"] == 0
    assert m["induction_efficiency_reference"] == (
        "mixed: expected induction cost (1 task); lower bound: with-rules minimum (1 task)")


def test_the_mean_is_over_episodes() -> None:
    """Unbalanced: A once at 1, B three times at 0.25, 0, 0 -> 1.25 / 4 (not (1 + 1/12) / 2)."""
    a, b = Reference(10.0, WITH_RULES), Reference(10.0, WITH_RULES)
    m = group_metrics(Group([played("A", 0, 10, True, a), played("B", 0, 20, True, b),
                             played("B", 1, 9, False, b), played("B", 2, 50, False, b)]), 3)
    assert m["induction_efficiency"] == 0.3125
    assert m["induction_efficiency_reference"] == WITH_RULES


def test_failures_score_zero_whatever_their_steps() -> None:
    ref = Reference(10.0, WITH_RULES)
    assert efficiency(10.0, 1, False) == 0.0 and efficiency(10.0, 10, False) == 0.0
    m = group_metrics(Group([played("A", 0, 3, False, ref)]), 1)
    assert m["induction_efficiency"] == 0.0 and m["induction_efficiency_reference"] == WITH_RULES


def test_the_cap_and_the_square() -> None:
    assert efficiency(12.5, 10, True) == 1.0   # faster than an expected cost: capped at 1
    assert efficiency(10.0, 10, True) == 1.0
    assert efficiency(10.0, 30, True) == pytest.approx(1 / 9)
    assert efficiency(7.0, 0, True) == 1.0     # a success with no call cannot be beaten
    m = group_metrics(Group([played("A", 0, 10, True, Reference(12.5, EXPECTED))]), 1)
    assert m["induction_efficiency"] == 1.0


def test_no_reference_is_excluded_not_zero() -> None:
    """A fixed-horizon task (no minimum, no induction certificate) is left out, counted."""
    m = group_metrics(Group([played("A", 0, 20, True, Reference(10.0, WITH_RULES)),
                             played("T", 0, 120, True, None)]), 1)
    assert m["induction_efficiency"] == 0.25 and m["induction_efficiency_excluded"] == 1
    only = group_metrics(Group([played("T", 0, 120, True, None)]), 1)
    assert only["induction_efficiency"] is None
    assert only["induction_efficiency_reference"] is None


def test_summary_json_and_csv_carry_the_figure_and_its_kind() -> None:
    ref = Reference(10.0, WITH_RULES)
    summary = aggregate([played("A", 0, 20, True, ref)], 1)
    lights = summary["envs"]["lights"]
    assert (lights["induction_efficiency"], lights["induction_efficiency_reference"]) == (
        0.25, WITH_RULES)
    assert summary["metric_definitions"]["induction_efficiency"]["source"].startswith(
        "ARC-AGI-3")
    row = next(csv.DictReader(io.StringIO(summary_csv(summary))))
    assert row["induction_efficiency"] == "0.25"
    assert row["induction_efficiency_reference"] == WITH_RULES


def _with_induction(task: Task, induction: Any) -> Task:
    """A copy of ``task`` whose certificate carries ``induction``."""
    out = copy.deepcopy(task)
    out.certificate.facts["induction"] = induction
    return out


def test_reference_kinds_of_a_certificate() -> None:
    lights = LITE.tasks["lights"][0]
    floor = lights.certificate.min_steps
    assert floor is not None
    assert reference_of(lights) == Reference(float(floor), WITH_RULES)
    assert reference_of(LITE.tasks["trading"][0]) is None  # fixed horizon, no induction
    bounds = {"expected": None, "lower": floor + 3, "upper": floor + 9, "method": "adversary"}
    assert reference_of(_with_induction(lights, bounds)) == Reference(floor + 3.0,
                                                                      INDUCTION_LOWER)
    assert reference_of(_with_induction(lights, {**bounds, "expected": floor + 4.5})) == (
        Reference(floor + 4.5, EXPECTED))


@pytest.mark.parametrize(("edit", "path"), [
    ({"lower": 1}, "$.certificate.induction.lower"),           # below the with-rules minimum
    ({"lower": "12"}, "$.certificate.induction.lower"),
    ({"expected": float("inf")}, "$.certificate.induction.expected"),
    ({"expected": 100.0}, "$.certificate.induction.expected"),  # above the upper bound
    ({"expected": None, "upper": 1.0}, "$.certificate.induction.upper"),  # below lower
    ({"method": ""}, "$.certificate.induction.method"),
])
def test_a_malformed_induction_certificate_is_named(edit: dict[str, Any], path: str) -> None:
    lights = LITE.tasks["lights"][0]
    floor = lights.certificate.min_steps
    assert floor is not None
    good = {"expected": floor + 2.0, "lower": floor + 1, "upper": floor + 9, "method": "m"}
    with pytest.raises(SchemaError) as err:
        reference_of(_with_induction(lights, {**good, **edit}))
    assert err.value.json_path == path and err.value.task_id == lights.id


def test_reference_text_and_prices() -> None:
    assert reference_text([]) is None
    assert reference_text([WITH_RULES] * 3) == WITH_RULES
    ladder = {"planner": {"results": [{"steps": 10, "success": True}]},
              "heuristic": {"results": [{"steps": 27, "success": True},
                                        {"steps": 50, "success": False}]},
              "random": {"results": [{"steps": 50, "success": False}]}}
    other = {"heuristic": {"results": [{"steps": 14, "success": True}]}}
    prices = rung_prices([(ladder, Reference(10.0, WITH_RULES)),
                          (other, Reference(12.0, WITH_RULES)), (other, None)])
    assert prices == {"planner": Price(0.0, 1), "heuristic": Price(9.5, 2),  # (17 + 2) / 2
                      "random": Price(None, 0)}
    assert price_text(prices["heuristic"]) == "+9.5" and price_text(prices["random"]) == "n/a"


# -- a run scored end to end ---------------------------------------------------------------------
SOLVED = "lights-lite-7-0002"  # the heuristic solves it, in more steps than the minimum


def _small_suite(folder: Path, ids: list[str]) -> Path:
    """Lite's tasks ``ids`` as a suite folder (the forgery fuzzer's helper)."""
    from fuzz_forgery import _small_suite as small

    return small(folder, ids)


@pytest.fixture(scope="module")
def heuristic_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """The heuristic's run of one lights task it solves and one it fails, scored."""
    from arena_gen.runner.run import RunConfig, run_suite
    from arena_gen.scoring.score import score_run

    root = tmp_path_factory.mktemp("induction")
    ids = [SOLVED, "lights-lite-7-0001"]
    suite = _small_suite(root / "suite", ids)
    out = root / "run"
    run_suite(RunConfig(suite=str(suite), agent="heuristic", attempts=1, out=str(out),
                        tasks=ids))
    return out, score_run(out)


def test_a_run_scores_against_the_with_rules_minimum(
        heuristic_run: tuple[Path, dict[str, Any]]) -> None:
    out, summary = heuristic_run
    lines = {r["task_id"]: r for r in map(json.loads, (out / "trajectories.jsonl")
                                          .read_text().splitlines())}
    solved, failed = lines[SOLVED], lines["lights-lite-7-0001"]
    assert solved["success"] and not failed["success"]
    floor = next(t for t in LITE.tasks["lights"] if t.id == SOLVED).certificate.min_steps
    assert floor is not None and len(solved["turns"]) > floor
    expected = round(((floor / len(solved["turns"])) ** 2 + 0.0) / 2, 4)
    lights = json.loads((out / "summary.json").read_text())["envs"]["lights"]
    assert lights["induction_efficiency"] == expected == summary["envs"]["lights"][
        "induction_efficiency"]
    assert lights["induction_efficiency_reference"] == WITH_RULES


def test_a_forged_step_count_does_not_raise_the_score(
        heuristic_run: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    """Lines rewritten to claim the minimum's steps (and a minimum of 1), re-chained as a forger
    would: the judge recounts the replay's steps, so the figure does not move."""
    import shutil

    from arena_gen.scoring.score import score_run

    out, honest = heuristic_run
    forged = tmp_path / "forged"
    shutil.copytree(out, forged)
    records = [json.loads(x) for x in (forged / "trajectories.jsonl").read_text().splitlines()]
    for rec in records:
        rec.update(steps=1, min_steps=1000)
    reseal(forged, records)
    summary = score_run(forged)
    assert summary["envs"]["lights"]["induction_efficiency"] == honest["envs"]["lights"][
        "induction_efficiency"]
    findings = [json.loads(x) for x in (forged / "findings.jsonl").read_text().splitlines()]
    assert all(f["flags"]["replay_mismatch"] for f in findings)


def test_score_shows_the_column_and_its_reference(
        heuristic_run: tuple[Path, dict[str, Any]]) -> None:
    from click.testing import CliRunner

    from arena_gen.cli import main

    out, summary = heuristic_run
    result = CliRunner().invoke(main, ["score", str(out), "--display", "plain"],
                                env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    header = next(x for x in result.output.splitlines() if x.startswith("env "))
    assert "ind.eff" in header.split()
    lights = next(x for x in result.output.splitlines() if x.startswith("lights"))
    column = header.split().index("ind.eff") - 3  # after "Avg@1 %", "Pass@1 %", "credit %"
    assert lights.split()[column] == f"{summary['envs']['lights']['induction_efficiency']:.4g}"
    assert "lights: lower bound: with-rules minimum" in " ".join(result.output.split())


def test_the_column_shows_a_zero_and_hides_only_when_undefined() -> None:
    from arena_gen.scoring.table import score_table

    failed = aggregate([played("A", 0, 50, False, Reference(10.0, WITH_RULES))], 1)
    shown = score_table(failed)
    assert "induction_efficiency" in shown.keys
    assert shown.rows[0][1 + shown.keys.index("induction_efficiency")] == "0"
    fixed = aggregate([played("T", 0, 120, True, None)], 1)
    assert "induction_efficiency" not in score_table(fixed).keys


def test_show_reveal_prices_each_rung() -> None:
    """lights-lite-7-0000 (minimum 10): the heuristic rung solved it in 27 steps, the planner
    in 10, the others failed."""
    from click.testing import CliRunner

    from arena_gen.cli import main

    result = CliRunner().invoke(main, ["show", "lights-lite-7-0000", "--reveal"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    ladder = lines[lines.index("-- baseline ladder (re-played by verify) --") + 1:]
    assert ladder[1] == "heuristic    (inductive)  1/1 solved  steps 27  credit 1.00  price +17"
    assert ladder[3].startswith("planner ") and ladder[3].endswith("price +0")
    assert ladder[4].startswith("random ") and ladder[4].endswith("price n/a")
    assert ladder[6] == ("price: price of discovery, mean steps of the rung's successes - 10 "
                         "(lower bound: with-rules minimum)")


def test_the_report_shows_the_figure_its_reference_and_the_prices(
        heuristic_run: tuple[Path, dict[str, Any]]) -> None:
    """The ladder over the two tasks played: the heuristic rung solved lights-lite-7-0002 in 15
    steps (minimum 11) and failed the other, so its price is +4; the run's own row likewise."""
    from arena_gen.scoring.report import build_report

    out, summary = heuristic_run
    text = build_report([out])
    assert ">induction eff. (ratio [0-1])</th>" in text
    assert "Induction efficiency is scored against: lights (heuristic (run)): lower bound: " \
           "with-rules minimum." in text
    rows = {r.split("data-rung='")[1].split("'")[0]: r.split("</tr>")[0]
            for r in text.split("<tr class=")[1:] if "data-rung='" in r}
    assert "<td>+4</td>" in rows["heuristic"] and "<td>+0</td>" in rows["planner"]
    assert "<td>n/a</td>" in rows["random"]
    assert "<td>+4</td>" in rows["this run: heuristic (run)"]


def test_the_report_drill_down_shows_each_tasks_reference_and_each_attempts_efficiency(
        heuristic_run: tuple[Path, dict[str, Any]]) -> None:
    """lights-lite-7-0002: minimum 11, solved in 15 replayed steps, (11/15)^2 = 0.5378;
    lights-lite-7-0001 (minimum 11): failed, 0, whatever its steps."""
    from arena_gen.scoring.report import build_report

    out, _ = heuristic_run
    text = build_report([out])

    def entry(task_id: str) -> str:
        found = text[text.index(f"id='task-{task_id}'"):]
        return found[:found.index("</details>")]

    solved, failed = entry(SOLVED), entry("lights-lite-7-0001")
    assert "min 11 · reference 11 (lower bound: with-rules minimum) · budget 50" in solved
    assert "steps 15, score 100, ind.eff 0.5378" in solved
    assert "<td>15</td><td>success</td><td>100</td><td>0.5378</td>" in solved
    assert "ind.eff (ratio [0-1])</th>" in solved
    assert "min 11 · reference 11 (lower bound: with-rules minimum)" in failed
    assert "steps 50, score 0, ind.eff 0</summary>" in failed
    assert "<td>50</td><td>budget</td><td>0</td><td>0</td>" in failed
