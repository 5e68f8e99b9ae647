"""The report's data: scored runs and their suites read from disk, and the plain model the page
shows (metrics rows, per-suite baseline ladders, per-task drill-down), with no HTML in it.

:mod:`.report_plots` draws figures from this model and :mod:`.report_html` fills the template
with it; :mod:`.report` ties the three together.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena_gen.core.calibration import rung_rates, wilson
from arena_gen.core.errors import ArenaGenError
from arena_gen.core.suite_io import Suite, read_suite
from arena_gen.core.task import Task
from arena_gen.runner.rundir import RunDir
from arena_gen.scoring.cost import cost_usd
from arena_gen.scoring.definitions import fmt
from arena_gen.scoring.induction_efficiency import (
    Price,
    Reference,
    episode_efficiency,
    price_text,
    reference_of,
    rung_prices,
)
from arena_gen.scoring.policy import attempt_score, is_perfect
from arena_gen.scoring.report_check import CheckedRun, check_run
from arena_gen.scoring.table import cost_text

#: The metrics table's columns (definitions and units from ``definitions.METRICS``); the page
#: adds Pass@k for each run's k after ``pass_at_1``, and the cost after the tokens when a run
#: was scored with prices (:func:`table_metrics`).
TABLE_METRICS = ["success_rate", "avg_at_k", "avg_credit_at_k", "pass_at_1",
                 "trajectory_efficiency", "optimality_ratio", "induction_efficiency",
                 "loop_ratio", "invalid_action_rate",
                 "tokens", "token_efficiency", "avg_at_k_profit", "best_at_k_profit",
                 "profit_rate_median", "log_growth", "normalized_profit", "infra_errors",
                 "missing"]
#: Metrics whose excluded tasks are counted once, as ``profit_excluded``.
PROFIT_METRICS = ("avg_at_k_profit", "best_at_k_profit", "profit_rate_median")


# --- Reading runs -------------------------------------------------------------------------------

def run_label(summary: dict[str, Any], path: str | Path) -> str:
    """A short name for a run: its agent, mode and folder, marked when the run is incomplete
    (so every table row of it says so)."""
    agent = (summary.get("run") or {}).get("agent") or {}
    mark = "" if summary.get("complete", True) else ", INCOMPLETE"
    return f"{agent.get('name', '?')} ({Path(path).name}{mark})"


@dataclass
class AttemptRow:
    """One judged attempt as the drill-down shows it."""

    task_id: str
    env: str
    attempt: int
    steps: int
    budget: int | None
    end_reason: str
    score: float | None
    perfect: bool
    findings: list[dict[str, Any]] = field(default_factory=list)
    flags: dict[str, Any] = field(default_factory=dict)
    #: induction efficiency against the task's reference (None: no reference, or excluded)
    efficiency: float | None = None


@dataclass
class RunView:
    """A scored run with what the report needs: its summary, suite (if found) and attempts."""

    label: str
    path: Path
    summary: dict[str, Any]
    suite: Suite | None
    suite_note: str | None
    attempts: list[AttemptRow]

    @property
    def suite_key(self) -> str:
        """What groups runs of the same suite: its hash, else its name, else the run."""
        run = self.summary.get("run") or {}
        return str(run.get("suite_sha256") or run.get("suite") or self.path)

    def task(self, task_id: str) -> Task | None:
        """The suite's task of that id, if the suite was found."""
        if self.suite is None:
            return None
        for env_tasks in self.suite.tasks.values():
            for t in env_tasks:
                if t.id == task_id:
                    return t
        return None


def _suite_of(meta: dict[str, Any]) -> tuple[Suite | None, str | None]:
    """The run's suite, hash-checked against run.json, or None and why."""
    where = meta.get("suite_path") or meta.get("suite")
    if not where:
        return None, "run.json names no suite"
    try:
        suite = read_suite(where)
    except ArenaGenError as exc:
        return None, f"suite {where} not readable ({exc})"
    if meta.get("suite_sha256") not in (None, suite.manifest.get("suite_sha256")):
        return None, f"suite {where} has changed since the run (hash differs)"
    return suite, None


def load_run(run_dir: str | Path, checked: CheckedRun | None = None) -> RunView:
    """A run read for the report: its summary and findings from the judge's replay
    (``checked``, else :func:`~.report_check.check_run` now), its trajectories and suite."""
    path = Path(run_dir)
    checked = checked if checked is not None else check_run(path)
    summary = checked.summary
    rundir = RunDir(path)
    meta = rundir.read_meta() if rundir.exists() else {}
    suite: Suite | None = checked.suite  # the suite the replay read, hash-checked already
    note: str | None = None
    if suite is None:
        suite, note = _suite_of(meta) if meta else (None, "no run.json")
    lines = {(str(line["task_id"]), int(line["attempt"])): line for line in checked.findings}
    latest: dict[tuple[str, int], dict[str, Any]] = {}
    for _, rec in rundir.iter_numbered_records():  # one line held at a time
        key = (rec["task_id"], int(rec["attempt"]))
        if key in lines:  # the lines score judged (a line it refused has no findings)
            latest[key] = {"env": rec.get("env"), "end_reason": rec.get("end_reason")}
    view = RunView(run_label(summary, path), path, summary, suite, note, [])
    for key, rec in sorted(latest.items()):
        line = lines[key]
        found = line.get("replay")
        replay: dict[str, Any] = found if isinstance(found, dict) else {}
        task = view.task(key[0])
        rubric = ([r.id for r in task.rubric] if task is not None
                  else [f["item"] for f in line.get("findings") or []])
        score = attempt_score(line, rubric) if rubric else None
        if rec.get("end_reason") == "infra_error":
            score = None
        perfect = score is not None and is_perfect(line.get("findings") or [], rubric)
        steps = replay.get("steps") if isinstance(replay.get("steps"), int) else None
        view.attempts.append(AttemptRow(
            task_id=key[0], env=str(rec.get("env") or (task.env if task else "?")),
            attempt=key[1], steps=int(replay.get("steps") or 0),  # the replay's, not claimed
            budget=replay.get("budget") if isinstance(replay.get("budget"), int) else None,
            end_reason=str(rec.get("end_reason")), score=score,
            perfect=perfect, findings=list(line.get("findings") or []),
            flags=dict(line.get("flags") or {}),
            efficiency=None if score is None or task is None else episode_efficiency(
                reference_of(task), perfect, steps)))
    return view


# --- The model ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class RunLine:
    """One run in the page's opening list."""

    label: str
    suite: str
    mode: str
    harness: str
    k: int
    tasks: int
    coverage: str = ""     # the plan it covers, in words (summary.json's coverage text)
    complete: bool = True  # False: missing or infra-error attempts (marked in every row)


@dataclass(frozen=True)
class MetricCell:
    """One metrics-table value (``n/a`` when undefined) and how many tasks it left out."""

    value: str
    excluded: int | None  # None: nothing left out, or nothing to say (the value is n/a)


@dataclass(frozen=True)
class MetricRow:
    """One metrics-table row: a run's metrics on one env (or overall)."""

    env: str
    run: str
    cells: list[MetricCell]


@dataclass(frozen=True)
class LadderRow:
    """A ladder row: a rung's (or a run's) success rate over the same tasks, Wilson 95 % CI."""

    name: str
    mode: str
    kind: str  # "rung" (a scripted baseline from the certificates) or "agent" (a run)
    attempts: int
    successes: int
    tasks: int
    solved: int
    rate: float
    lo: float
    hi: float
    price: str = "n/a"  # price of discovery: mean excess steps of its successes


@dataclass(frozen=True)
class EnvLadder:
    """One env's ladder within a suite; no rows when its certificates carry no ladder."""

    env: str
    anchor: str
    played: int      # tasks the runs played that carry a ladder
    in_suite: int    # tasks of this env in the suite
    rows: list[LadderRow]
    targets: list[str] | None  # the manifest's calibration targets; None: no calibration
    missed: list[str]


@dataclass(frozen=True)
class SuiteLadder:
    """The ladders of one suite the runs played; ``note`` says why there are none."""

    name: str
    digest: str
    path: str
    note: str | None
    envs: list[EnvLadder]


@dataclass(frozen=True)
class RungResult:
    """One rung of a task's own ladder: its mode, successes and steps per attempt."""

    rung: str
    mode: str
    successes: Any
    attempts: Any
    steps: list[Any]


@dataclass(frozen=True)
class TaskEntry:
    """A task's drill-down: its certified minimum, induction-efficiency reference and budget,
    each run's attempts, its ladder."""

    task_id: str
    min_steps: str
    budget: str
    runs: list[tuple[str, list[AttemptRow]]]  # (run label, its attempts), runs that played it
    ladder: list[RungResult]
    reference: str = "n/a"  # its steps, ``n/a`` without one
    reference_kind: str = "no reference"


@dataclass(frozen=True)
class EnvSteps:
    """Steps per attempt on one env, per run (infra errors left out), and the turn budget."""

    env: str
    series: list[tuple[str, list[int]]]
    budget: int | None  # None: the attempts do not share one budget


@dataclass(frozen=True)
class ReportModel:
    """Everything the page and its plots show, computed from the runs."""

    runs: list[RunLine]
    envs: list[str]
    summaries: list[tuple[str, dict[str, Any]]]  # (run label, summary.json) for the plots
    metric_rows: list[MetricRow]
    ladders: list[SuiteLadder]
    tasks: dict[str, list[TaskEntry]]  # env -> its tasks in natural id order
    steps: list[EnvSteps]
    #: the metrics table's columns (:func:`table_metrics`) and the runs' k when they share one
    metric_keys: list[str] = field(default_factory=lambda: list(TABLE_METRICS))
    k: int | None = None


def table_metrics(runs: Sequence[tuple[str, dict[str, Any]]]) -> list[str]:
    """The metrics table's columns: :data:`TABLE_METRICS`, Pass@k for every run's k after
    Pass@1 (a run of 4 attempts shows Pass@4), the cost after the tokens when a run has
    prices."""
    ks = sorted({int(s.get("k", 1)) for _, s in runs} - {1})
    keys = list(TABLE_METRICS)
    at = keys.index("pass_at_1") + 1
    keys[at:at] = [f"pass_at_{k}" for k in ks]
    if any(s.get("prices") for _, s in runs):
        keys.insert(keys.index("tokens") + 1, "cost")
    return keys


def _cell(metrics: dict[str, Any], key: str, prices: dict[str, Any] | None = None
          ) -> MetricCell:
    """One metric's value and the tasks it left out (shown only beside a defined value)."""
    if key == "cost":
        return MetricCell(cost_text(cost_usd(metrics, prices)), None)
    excluded = metrics.get("profit_excluded" if key in PROFIT_METRICS else f"{key}_excluded")
    shown = excluded if excluded and metrics.get(key) is not None else None
    return MetricCell(fmt(metrics.get(key)), shown)


def metric_rows(envs: Sequence[str], runs: Sequence[tuple[str, dict[str, Any]]],
                keys: Sequence[str] | None = None) -> list[MetricRow]:
    """Per env then overall, one row per run that has metrics there (``keys``: the columns,
    :func:`table_metrics` of the runs by default)."""
    keys = table_metrics(runs) if keys is None else keys
    rows = []
    for env in [*envs, "overall"]:
        for label, summary in runs:
            metrics = summary["overall"] if env == "overall" else summary["envs"].get(env)
            if metrics:
                rows.append(MetricRow(env, label, [_cell(metrics, k, summary.get("prices"))
                                                   for k in keys]))
    return rows


def pct(x: float) -> str:
    """A share (0 to 1) as a percentage with one decimal."""
    return f"{100 * x:.1f}"


def ladder_row(name: str, mode: str, kind: str, attempts: int, successes: int, tasks: int,
               solved: int, price: Price | None = None) -> LadderRow:
    """A ladder row with its rate, Wilson interval and price of discovery."""
    lo, hi = wilson(successes, attempts)
    return LadderRow(name, mode, kind, attempts, successes, tasks, solved,
                     successes / attempts if attempts else 0.0, lo, hi, price_text(price))


def run_price(attempts: Sequence[AttemptRow], refs: dict[str, Reference | None]) -> Price:
    """A run's price of discovery on these tasks: the mean over its successful attempts of
    replayed steps - the task's reference (:mod:`.induction_efficiency`)."""
    excess = [a.steps - ref.steps for a in attempts
              if a.perfect and (ref := refs.get(a.task_id)) is not None]
    return Price(sum(excess) / len(excess) if excess else None, len(excess))


def target_texts(targets: dict[str, Any]) -> list[str]:
    """The manifest's calibration targets for one env, in words."""
    parts = []
    if targets.get("inductive"):
        lo, hi = targets["inductive"]
        parts.append(f"best scripted inductive baseline {pct(lo)} to {pct(hi)} %")
    if targets.get("planner_floor") is not None:
        parts.append(f"planner ≥ {pct(targets['planner_floor'])} %")
    if targets.get("random_ceiling") is not None:
        parts.append(f"random ≤ {pct(targets['random_ceiling'])} %")
    if targets.get("trivial_share") is not None:
        parts.append(f"a task random solves in ≥ {pct(targets['trivial_share'])} % of its "
                     f"{targets.get('random_attempts', '?')} attempts is rejected")
    return parts


def env_ladder(env: str, suite: Suite, runs: Sequence[RunView], anchor: str) -> EnvLadder:
    """One env's rungs over the tasks the runs played, then each run's own row."""
    played = sorted({a.task_id for r in runs for a in r.attempts if a.env == env})
    tasks = [t for t in suite.tasks.get(env, []) if t.id in played]
    ladders = [t.certificate.facts["ladder"] for t in tasks
               if isinstance(t.certificate.facts.get("ladder"), dict)]
    calibration = (suite.manifest.get("calibration") or {}).get(env)
    in_suite = len(suite.tasks.get(env, []))
    if not ladders:
        return EnvLadder(env, anchor, 0, in_suite, [], None, [])
    refs = {t.id: reference_of(t) for t in tasks}
    prices = rung_prices((t.certificate.facts["ladder"], refs[t.id]) for t in tasks
                         if isinstance(t.certificate.facts.get("ladder"), dict))
    rows = [ladder_row(rung, str(next((lad[rung]["mode"] for lad in ladders if rung in lad), "")),
                       "rung", r["attempts"], r["successes"], r["tasks"], r["tasks_solved"],
                       prices.get(rung))
            for rung, r in rung_rates(ladders).items()]
    with_ladder = {t.id for t in tasks if isinstance(t.certificate.facts.get("ladder"), dict)}
    for run in runs:
        mine = [a for a in run.attempts if a.env == env and a.task_id in with_ladder
                and a.score is not None]
        mode = str((run.summary.get("run") or {}).get("mode") or "")
        rows.append(ladder_row(f"this run: {run.label}", mode, "agent", len(mine),
                               sum(a.perfect for a in mine), len({a.task_id for a in mine}),
                               len({a.task_id for a in mine if a.perfect}),
                               run_price(mine, refs)))
    targets = target_texts(calibration.get("targets") or {}) if calibration else None
    missed = [str(m) for m in calibration.get("missed") or []] if calibration else []
    return EnvLadder(env, anchor, len(ladders), in_suite, rows, targets, missed)


def suite_ladders(views: Sequence[RunView]) -> list[SuiteLadder]:
    """Runs grouped by suite, each suite's ladders per env they played."""
    groups: dict[str, list[RunView]] = {}
    for v in views:
        groups.setdefault(v.suite_key, []).append(v)
    out = []
    for group in groups.values():
        suite = group[0].suite
        name = str((group[0].summary.get("run") or {}).get("suite") or "?")
        if suite is None:
            out.append(SuiteLadder(name, "", "", group[0].suite_note or "suite not found", []))
            continue
        envs = sorted({a.env for r in group for a in r.attempts})
        digest = str(suite.manifest.get("suite_sha256", ""))[:12]
        out.append(SuiteLadder(name, digest, str(suite.path), None,
                               [env_ladder(env, suite, group, f"ladder-{digest}-{env}")
                                for env in envs]))
    return out


def _natural(text: str) -> list[Any]:
    """Sort key: digits compare as numbers (task-2 before task-10)."""
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", text)]


def task_entry(task_id: str, views: Sequence[RunView]) -> TaskEntry:
    """A task's drill-down across the runs that played it."""
    task = next((t for v in views if (t := v.task(task_id)) is not None), None)
    runs = [(v.label, mine) for v in views
            if (mine := [a for a in v.attempts if a.task_id == task_id])]
    ladder = task.certificate.facts.get("ladder") if task else None
    rungs = []
    if isinstance(ladder, dict) and ladder:
        for rung in rung_rates([ladder]):  # the ladder's order: random ... planner
            r = ladder[rung]
            rungs.append(RungResult(rung, str(r.get("mode")), r.get("successes"),
                                    r.get("attempts"),
                                    [x.get("steps") for x in r.get("results") or []]))
    ref = reference_of(task) if task else None
    return TaskEntry(task_id, fmt(task.certificate.min_steps) if task else "n/a",
                     str(task.budget) if task else "n/a", runs, rungs,
                     fmt(ref.steps) if ref else "n/a",
                     ref.kind if ref else "no reference" if task else "suite not found")


def _budget(views: Sequence[RunView], env: str) -> int | None:
    """The env's turn budget when every attempt on it had the same one."""
    budgets = {a.budget for v in views for a in v.attempts if a.env == env}
    return budgets.pop() if len(budgets) == 1 else None


def build_model(run_dirs: Sequence[str | Path],
                checked: Sequence[CheckedRun] | None = None) -> ReportModel:
    """Read the runs and compute everything the report shows (``checked``: the runs' replayed
    figures, one per run directory, when the caller has them already)."""
    if not run_dirs:
        raise ArenaGenError("report needs at least one run directory")
    views = [load_run(p, checked[i] if checked is not None else None)
             for i, p in enumerate(run_dirs)]
    summaries = [(v.label, v.summary) for v in views]
    envs = sorted({env for _, s in summaries for env in s["envs"]})
    runs = [RunLine(v.label, str(s["run"].get("suite")), str(s["run"].get("mode")),
                    str(s["run"].get("harness", "arena-gen")), s.get("k", 1),
                    len({a.task_id for a in v.attempts}),
                    str((s.get("coverage") or {}).get("text") or "coverage not recorded"),
                    bool(s.get("complete", True))) for v in views for s in [v.summary]]
    tasks: dict[str, list[TaskEntry]] = {}
    for env in sorted({a.env for v in views for a in v.attempts}):
        ids = {a.task_id for v in views for a in v.attempts if a.env == env}
        tasks[env] = [task_entry(tid, views) for tid in sorted(ids, key=_natural)]
    steps = [EnvSteps(env, [(v.label, sorted(a.steps for a in v.attempts
                                             if a.env == env and a.end_reason != "infra_error"))
                            for v in views], _budget(views, env)) for env in envs]
    keys = table_metrics(summaries)
    ks = {int(s.get("k", 1)) for _, s in summaries}
    return ReportModel(runs, envs, summaries, metric_rows(envs, summaries, keys),
                       suite_ladders(views), tasks, steps, keys,
                       ks.pop() if len(ks) == 1 else None)
