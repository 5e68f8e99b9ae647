"""A self-contained HTML report comparing runs: tables, plots embedded as PNG, task drill-down.

Sections, each with the definitions and units of what it shows beside it (all from
:mod:`.definitions`, the one source ``summary.json`` and the terminal use too):

- **Metrics**: every metric per env and overall for each run, its unit in the header, ``n/a``
  where it is undefined and the tasks it left out beside the value.
- **Baseline ladder**: per suite and env, the success rate of each rung the certificates carry
  (``certificate.facts["ladder"]``: seeded random, the scripted inductive baselines, the
  with-rules planner) with its Wilson 95 % interval, over the tasks the runs played, beside the
  same figures for each run's agent; the manifest's calibration targets and what they miss.
- **Plots**: per-env scores with standard-error bars, success rates, loop ratios, token
  efficiency, evolution curves (cumulative success by turn) and step histograms (integer-aligned
  bins, labelled axes, the turn budget marked).
- **Tasks**: one collapsible entry per task: its certified minimum and budget, each attempt's
  steps, end, score and the judge's findings with their evidence, and the task's own ladder.

A small inline script counts what rendered (plots, table rows, ladder rows, histograms, task
entries) into a hidden ``#render-check`` element, so a headless browser can check the page.
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

from arena_gen.core.calibration import rung_rates, wilson  # noqa: E402
from arena_gen.core.errors import ArenaGenError  # noqa: E402
from arena_gen.core.paths import check_creatable  # noqa: E402
from arena_gen.core.schema import read_json  # noqa: E402
from arena_gen.core.suite_io import Suite, read_suite  # noqa: E402
from arena_gen.core.task import Task  # noqa: E402
from arena_gen.runner.rundir import RunDir  # noqa: E402
from arena_gen.scoring.definitions import (  # noqa: E402
    ATTEMPT,
    CONVENTIONS,
    LADDER,
    MetricDef,
    definition_of,
    fmt,
    heading,
)
from arena_gen.scoring.policy import attempt_score, is_perfect  # noqa: E402

#: The metrics table's columns (definitions and units from ``definitions.METRICS``).
TABLE_METRICS = ["success_rate", "avg_at_k", "avg_credit_at_k", "pass_at_1",
                 "trajectory_efficiency", "optimality_ratio", "loop_ratio", "invalid_action_rate",
                 "token_efficiency", "avg_at_k_profit", "best_at_k_profit", "profit_rate_median",
                 "log_growth", "normalized_profit", "infra_errors", "missing"]
#: Bins a step histogram aims at (integer-aligned; wider bins when the range is long).
HIST_BINS = 20
#: Axis labels of the step histograms (also on each figure's data attributes).
STEPS_X, STEPS_Y = "steps (agent turns per attempt)", "attempts (count)"


def load_summary(run_dir: str | Path) -> dict[str, Any]:
    """Read a scored run's summary.json (run ``arena-gen score`` first)."""
    path = Path(run_dir) / "summary.json"
    if not path.is_file():
        raise ArenaGenError(f"{run_dir}: no summary.json; run `arena-gen score {run_dir}` first")
    return read_json(path, "summary")


def run_label(summary: dict[str, Any], path: str | Path) -> str:
    """A short name for a run: its agent, mode and folder."""
    agent = (summary.get("run") or {}).get("agent") or {}
    return f"{agent.get('name', '?')} ({Path(path).name})"


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
        run = self.summary.get("run") or {}
        return str(run.get("suite_sha256") or run.get("suite") or self.path)

    def task(self, task_id: str) -> Task | None:
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


def _findings_lines(path: Path) -> dict[tuple[str, int], dict[str, Any]]:
    out: dict[tuple[str, int], dict[str, Any]] = {}
    file = path / "findings.jsonl"
    if not file.is_file():
        return out
    for raw in file.read_text(encoding="utf-8").splitlines():
        if raw.strip():
            line = json.loads(raw)
            out[(str(line["task_id"]), int(line["attempt"]))] = line
    return out


def load_run(run_dir: str | Path) -> RunView:
    """A scored run directory read for the report (summary, findings, trajectories, suite)."""
    path = Path(run_dir)
    summary = load_summary(path)
    rundir = RunDir(path)
    meta = rundir.read_meta() if rundir.exists() else {}
    suite, note = _suite_of(meta) if meta else (None, "no run.json")
    lines = _findings_lines(path)
    latest: dict[tuple[str, int], dict[str, Any]] = {}
    for rec in rundir.records():
        latest[(rec["task_id"], int(rec["attempt"]))] = rec
    view = RunView(run_label(summary, path), path, summary, suite, note, [])
    for key, rec in sorted(latest.items()):
        line = lines.get(key) or {"findings": [], "flags": {}}
        task = view.task(key[0])
        rubric = ([r.id for r in task.rubric] if task is not None
                  else [f["item"] for f in line.get("findings") or []])
        score = attempt_score(line, rubric) if rubric else None
        if rec.get("end_reason") == "infra_error":
            score = None
        view.attempts.append(AttemptRow(
            task_id=key[0], env=str(rec.get("env") or (task.env if task else "?")),
            attempt=key[1], steps=int(rec.get("steps") or 0),
            budget=rec.get("budget") if isinstance(rec.get("budget"), int) else None,
            end_reason=str(rec.get("end_reason")), score=score,
            perfect=score is not None and is_perfect(line.get("findings") or [], rubric),
            findings=list(line.get("findings") or []), flags=dict(line.get("flags") or {})))
    return view


def _png(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _bar_plot(envs: Sequence[str], runs: Sequence[tuple[str, dict[str, Any]]], key: str,
              se_key: str | None, title: str, ylabel: str) -> str:
    fig, ax = plt.subplots(figsize=(7, 3.2))
    width = 0.8 / max(1, len(runs))
    empty = all(s["envs"].get(env, {}).get(key) is None for _, s in runs for env in envs)
    for i, (label, summary) in enumerate(runs):
        raw = [summary["envs"].get(env, {}).get(key) for env in envs]
        values = [v or 0.0 for v in raw]
        errors = ([summary["envs"].get(env, {}).get(se_key) or 0.0 for env in envs]
                  if se_key else None)
        xs = [j + i * width for j in range(len(envs))]
        ax.bar(xs, values, width=width, yerr=errors, capsize=3, label=label)
        for x, v in zip(xs, raw, strict=True):
            if v is None and not empty:  # undefined here: say so rather than draw a zero
                ax.annotate("n/a", (x, 0), ha="center", va="bottom", fontsize=7, color="#888")
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(envs))], list(envs))
    ax.set_ylim(bottom=0)
    if empty:
        ax.text(0.5, 0.5, "undefined for every env and run (n/a)", transform=ax.transAxes,
                ha="center", color="#888")
    ax.set_title(title)
    ax.set_xlabel("env")
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=8)
    return _png(fig)


def _evolution_plot(env: str, runs: Sequence[tuple[str, dict[str, Any]]]) -> str:
    fig, ax = plt.subplots(figsize=(7, 3.2))
    for label, summary in runs:
        curve = (summary.get("curves") or {}).get(env, {}).get("evolution") or []
        ax.plot(range(1, len(curve) + 1), [100 * c for c in curve], label=label)
    ax.set_title(f"{env}: cumulative success by turn")
    ax.set_xlabel("turn (agent calls so far)")
    ax.set_ylabel("attempts succeeded by then (%)")
    ax.set_ylim(0, 100)
    ax.legend(fontsize=8)
    return _png(fig)


@dataclass(frozen=True)
class Histogram:
    """A step histogram and what its caption states."""

    png: str
    lo: int
    hi: int
    width: int
    bins: int
    budget: int | None

    def caption(self) -> str:
        unit = "turn" if self.width == 1 else "turns"
        text = (f"x: {STEPS_X}, {self.bins} bins of {self.width} {unit} from {self.lo} to "
                f"{self.hi}; y: {STEPS_Y}")
        if self.budget is not None:
            text += f"; dashed line: the turn budget ({self.budget})"
        return text


def step_bins(steps: Sequence[int], target: int = HIST_BINS) -> tuple[list[float], int]:
    """Bin edges centred on whole turns (each bin holds ``width`` whole step counts)."""
    lo, hi = min(steps), max(steps)
    width = max(1, math.ceil((hi - lo + 1) / target))
    n = math.ceil((hi - lo + 1) / width)
    return [lo - 0.5 + i * width for i in range(n + 1)], width


def _steps_plot(env: str, series: Sequence[tuple[str, list[int]]],
                budget: int | None) -> Histogram | None:
    series = [(label, s) for label, s in series if s]
    if not series:
        return None
    every = [x for _, s in series for x in s]
    edges, width = step_bins(every)
    fig, ax = plt.subplots(figsize=(7, 3.2))
    ax.hist([s for _, s in series], bins=edges, label=[f"{lb} (n={len(s)})" for lb, s in series],
            edgecolor="white", linewidth=0.5)
    if budget is not None:
        ax.axvline(budget, color="#555", linestyle="--", linewidth=1)
    ax.set_title(f"{env}: steps per attempt")
    ax.set_xlabel(STEPS_X)
    ax.set_ylabel(STEPS_Y)
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.legend(fontsize=8)
    return Histogram(_png(fig), min(every), max(every), width, len(edges) - 1, budget)


def _cell(metrics: dict[str, Any], key: str) -> str:
    """One metric's cell: its value (``n/a`` when undefined) and the tasks it left out."""
    text = html.escape(fmt(metrics.get(key)))
    excluded = metrics.get(f"{key}_excluded")
    if key in ("avg_at_k_profit", "best_at_k_profit", "profit_rate_median"):
        excluded = metrics.get("profit_excluded")
    if excluded and metrics.get(key) is not None:
        text += f" <span class='excl'>({excluded} excl.)</span>"
    return f"<td>{text}</td>"


def _table(envs: Sequence[str], runs: Sequence[tuple[str, dict[str, Any]]]) -> str:
    head = "".join(
        f"<th title='{html.escape(d.definition if (d := definition_of(key)) else key)}'>"
        f"{html.escape(heading(key))}</th>" for key in TABLE_METRICS)
    rows = []
    for env in [*envs, "overall"]:
        for label, summary in runs:
            metrics = summary["overall"] if env == "overall" else summary["envs"].get(env)
            if not metrics:
                continue
            cells = "".join(_cell(metrics, key) for key in TABLE_METRICS)
            rows.append(f"<tr><td>{html.escape(env)}</td><td>{html.escape(label)}</td>"
                        f"{cells}</tr>")
    return (f"<table class='metrics'><thead><tr><th>env</th><th>run</th>{head}</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>")


def _th(d: MetricDef) -> str:
    """A header cell: label and unit, the definition as its tooltip."""
    unit = f" ({d.unit})" if d.unit and d.unit != "count" else ""
    return f"<th title='{html.escape(d.definition)}'>{html.escape(d.label + unit)}</th>"


def _terms(table: dict[str, MetricDef]) -> list[tuple[str, MetricDef]]:
    return [(d.label, d) for d in table.values()]


def _defs_table(rows: Sequence[tuple[str, MetricDef]], kind: str) -> str:
    """Definitions beside a table: term, unit, definition, source."""
    body = "".join(f"<tr><td>{html.escape(k)}</td>"
                   f"<td>{html.escape(d.unit)}</td><td>{html.escape(d.definition)}</td>"
                   f"<td>{html.escape(d.source)}</td></tr>" for k, d in rows)
    return (f"<table class='definitions' data-for='{kind}'><thead><tr><th>term</th>"
            f"<th>unit</th><th>definition</th><th>source</th></tr></thead>"
            f"<tbody>{body}</tbody></table>")


def _definitions_table() -> str:
    """Each reported metric's definition, unit and source, beside the numbers."""
    keys = [*TABLE_METRICS, "tokens", "steps_mean"]
    rows = [(heading(k), d) for k in keys if (d := definition_of(k))] + list(CONVENTIONS.items())
    return _defs_table(rows, "metrics")


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def _ladder_row(name: str, mode: str, cls: str, attempts: int, successes: int, tasks: int,
                solved: int) -> str:
    """A ladder table row: the rate with its Wilson interval drawn as a bar."""
    rate = successes / attempts if attempts else 0.0
    lo, hi = wilson(successes, attempts)
    bar = (f"<span class='ci'><span class='range' style='left:{_pct(lo)}%;"
           f"width:{_pct(hi - lo)}%'></span><span class='mark' style='left:{_pct(rate)}%'>"
           f"</span></span>")
    return (f"<tr class='{cls}' data-rung='{html.escape(name)}'><td>{html.escape(name)}</td>"
            f"<td>{html.escape(mode)}</td><td>{solved} / {tasks}</td>"
            f"<td>{successes} / {attempts}</td><td>{_pct(rate)}</td>"
            f"<td>[{_pct(lo)}, {_pct(hi)}]</td><td class='cibar'>{bar}</td></tr>")


def _targets_text(calibration: dict[str, Any]) -> str:
    """The manifest's calibration targets for one env, and the targets missed."""
    t = calibration.get("targets") or {}
    parts = []
    if t.get("inductive"):
        lo, hi = t["inductive"]
        parts.append(f"best scripted inductive baseline {_pct(lo)} to {_pct(hi)} %")
    if t.get("planner_floor") is not None:
        parts.append(f"planner ≥ {_pct(t['planner_floor'])} %")
    if t.get("random_ceiling") is not None:
        parts.append(f"random ≤ {_pct(t['random_ceiling'])} %")
    if t.get("trivial_share") is not None:
        parts.append(f"a task random solves in ≥ {_pct(t['trivial_share'])} % of its "
                     f"{t.get('random_attempts', '?')} attempts is rejected")
    missed = calibration.get("missed") or []
    verdict = ("all met" if not missed else "missed: " + "; ".join(str(m) for m in missed))
    return (f"<p class='targets'>Calibration targets (suite manifest): "
            f"{html.escape(', '.join(parts) or 'none recorded')}; {html.escape(verdict)}.</p>")


def _ladder_env(env: str, suite: Suite, runs: Sequence[RunView], anchor: str) -> str:
    played = sorted({a.task_id for r in runs for a in r.attempts if a.env == env})
    tasks = [t for t in suite.tasks.get(env, []) if t.id in played]
    ladders = [t.certificate.facts["ladder"] for t in tasks
               if isinstance(t.certificate.facts.get("ladder"), dict)]
    calibration = (suite.manifest.get("calibration") or {}).get(env)
    if not ladders:
        return (f"<p class='no-ladder'>{html.escape(env)}: no baseline ladder in these "
                "certificates (its env version is not calibrated).</p>")
    rates = rung_rates(ladders)
    rows = [_ladder_row(rung, str(next((lad[rung]["mode"] for lad in ladders if rung in lad),
                                       "")), "rung", r["attempts"], r["successes"], r["tasks"],
                        r["tasks_solved"])
            for rung, r in rates.items()]
    with_ladder = {t.id for t in tasks if isinstance(t.certificate.facts.get("ladder"), dict)}
    for run in runs:
        mine = [a for a in run.attempts if a.env == env and a.task_id in with_ladder
                and a.score is not None]
        mode = str((run.summary.get("run") or {}).get("mode") or "")
        solved = len({a.task_id for a in mine if a.perfect})
        rows.append(_ladder_row(f"this run: {run.label}", mode, "agent", len(mine),
                                sum(a.perfect for a in mine), len({a.task_id for a in mine}),
                                solved))
    scope = f"over the {len(ladders)} tasks played"
    total = len(suite.tasks.get(env, []))
    if len(ladders) < total:
        scope += f" (of {total} in the suite)"
    out = [f"<h4 id='{html.escape(anchor)}'>{html.escape(env)}</h4>",
           f"<p>Success rates {html.escape(scope)}; the runs' rows count their scored "
           "attempts of the same tasks.</p>",
           "<table class='ladder'><thead><tr>"
           + "".join(_th(LADDER[k]) for k in ("rung", "mode", "tasks_solved",
                                               "ladder_successes", "ladder_rate", "ci95"))
           + "<th>rate and CI on 0 to 100 %</th></tr></thead>"
           f"<tbody>{''.join(rows)}</tbody></table>"]
    if calibration:
        out.append(_targets_text(calibration))
    return "\n".join(out)


def _ladder_section(views: Sequence[RunView]) -> str:
    groups: dict[str, list[RunView]] = {}
    for v in views:
        groups.setdefault(v.suite_key, []).append(v)
    parts = []
    for group in groups.values():
        suite = group[0].suite
        name = str((group[0].summary.get("run") or {}).get("suite") or "?")
        if suite is None:
            parts.append(f"<p>Suite {html.escape(name)}: no baseline ladder shown "
                         f"({html.escape(group[0].suite_note or 'suite not found')}).</p>")
            continue
        envs = sorted({a.env for r in group for a in r.attempts})
        digest = str(suite.manifest.get("suite_sha256", ""))[:12]
        parts.append(f"<h3>Suite {html.escape(name)} <span class='excl'>(sha256 "
                     f"{html.escape(digest)}…, {html.escape(str(suite.path))})</span></h3>")
        parts.extend(_ladder_env(env, suite, group, f"ladder-{digest}-{env}") for env in envs)
    return "\n".join(parts) + _defs_table(_terms(LADDER), "ladder")


_STATUS = {"met": "✓", "violated": "✗", "not_assessable": "?"}


def _natural(text: str) -> list[Any]:
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", text)]


def _score_text(score: float | None) -> str:
    return "n/a" if score is None else f"{score:.4g}"


def _task_entry(task_id: str, views: Sequence[RunView]) -> str:
    task = next((t for v in views if (t := v.task(task_id)) is not None), None)
    facts = [f"min {fmt(task.certificate.min_steps) if task else 'n/a'}",
             f"budget {task.budget if task else 'n/a'}"]
    heads, rows = [], []
    for v in views:
        mine = [a for a in v.attempts if a.task_id == task_id]
        if not mine:
            continue
        heads.append(f"{v.label}: {sum(a.perfect for a in mine)}/{len(mine)} solved, "
                     f"steps {', '.join(str(a.steps) for a in mine)}, "
                     f"score{'s' if len(mine) > 1 else ''} "
                     f"{', '.join(_score_text(a.score) for a in mine)}")
        for a in mine:
            items = "".join(
                f"<li><span class='st st-{html.escape(str(f.get('status')))}'>"
                f"{_STATUS.get(str(f.get('status')), '')} {html.escape(str(f.get('status')))}"
                f"</span> <b>{html.escape(str(f.get('item')))}</b>: "
                f"<span class='evidence'>{html.escape(str(f.get('evidence', '')))}</span></li>"
                for f in a.findings)
            flags = [k for k, on in a.flags.items() if on]
            if flags:
                items += f"<li class='flags'>flags: {html.escape(', '.join(flags))}</li>"
            rows.append(f"<tr><td>{html.escape(v.label)}</td><td>{a.attempt}</td>"
                        f"<td>{a.steps}</td><td>{html.escape(a.end_reason)}</td>"
                        f"<td>{_score_text(a.score)}</td><td><ul>{items}</ul></td></tr>")
    ladder = task.certificate.facts.get("ladder") if task else None
    ladder_html = ""
    if isinstance(ladder, dict) and ladder:
        bits = []
        for rung in rung_rates([ladder]):  # the ladder's order: random ... planner
            r = ladder[rung]
            steps = ", ".join(str(x.get("steps")) for x in r.get("results") or [])
            bits.append(f"{html.escape(rung)} ({html.escape(str(r.get('mode')))}) "
                        f"{r.get('successes')}/{r.get('attempts')} solved, steps {steps}")
        ladder_html = f"<p class='task-ladder'>Baseline ladder: {'; '.join(bits)}.</p>"
    return (f"<details class='task' id='task-{html.escape(task_id)}'><summary><code>"
            f"{html.escape(task_id)}</code> · {' · '.join(facts)} · "
            f"{html.escape(' | '.join(heads))}</summary>"
            "<table class='attempts'><thead><tr><th>run</th><th>attempt</th>"
            + "".join(_th(ATTEMPT[k]) for k in ("steps", "end", "score", "findings"))
            + f"</tr></thead><tbody>{''.join(rows)}</tbody></table>"
            f"{ladder_html}</details>")


def _tasks_section(views: Sequence[RunView]) -> str:
    envs = sorted({a.env for v in views for a in v.attempts})
    parts = [_defs_table(_terms(ATTEMPT), "tasks")]
    for env in envs:
        ids = sorted({a.task_id for v in views for a in v.attempts if a.env == env},
                     key=_natural)
        parts.append(f"<h3 id='tasks-{html.escape(env)}'>{html.escape(env)} "
                     f"({len(ids)} tasks)</h3>")
        parts.extend(_task_entry(tid, views) for tid in ids)
    return "\n".join(parts)


def _budget(views: Sequence[RunView], env: str) -> int | None:
    budgets = {a.budget for v in views for a in v.attempts if a.env == env}
    return budgets.pop() if len(budgets) == 1 else None


CHECK_SCRIPT = """
<script>
window.addEventListener('load', function () {
  var imgs = Array.prototype.slice.call(document.querySelectorAll('img.plot'));
  var ok = imgs.filter(function (i) { return i.complete && i.naturalWidth > 0; }).length;
  var count = function (sel) { return document.querySelectorAll(sel).length; };
  var el = document.getElementById('render-check');
  el.setAttribute('data-plots', imgs.length);
  el.setAttribute('data-plots-rendered', ok);
  el.setAttribute('data-table-rows', count('table.metrics tbody tr'));
  el.setAttribute('data-ladder-rows', count('table.ladder tbody tr'));
  el.setAttribute('data-histograms', count('figure.hist img.plot'));
  el.setAttribute('data-tasks', count('details.task'));
  el.setAttribute('data-definitions', count('table.definitions'));
  el.setAttribute('data-done', 'yes');
});
</script>
"""

STYLE = """
body { font-family: sans-serif; margin: 2em; color: #222; max-width: 1500px; }
nav a { margin-right: 1em; }
table { border-collapse: collapse; font-size: 13px; margin: 0.5em 0 1em; }
th, td { border: 1px solid #ccc; padding: 3px 6px; text-align: right; vertical-align: top; }
td:first-child, td:nth-child(2) { text-align: left; }
table.definitions { font-size: 12px; color: #333; }
table.definitions td, table.definitions th,
table.attempts td, table.attempts th { text-align: left; }
.excl { color: #888; font-size: 11px; }
figure { display: inline-block; margin: 1em; max-width: 640px; vertical-align: top; }
figcaption { font-size: 12px; color: #444; }
tr.agent td { background: #f3f7ff; font-weight: bold; }
.ci { position: relative; display: inline-block; width: 160px; height: 10px;
      background: #eee; }
.ci .range { position: absolute; top: 0; height: 10px; background: #9bb7e0; }
.ci .mark { position: absolute; top: -2px; width: 2px; height: 14px; background: #123; }
details.task { border-top: 1px solid #ddd; padding: 3px 0; }
details.task summary { cursor: pointer; font-size: 13px; }
table.attempts ul { margin: 0; padding-left: 1em; }
.st-met { color: #176b24; } .st-violated { color: #a31515; } .st-not_assessable { color: #886400; }
.evidence { font-family: monospace; font-size: 12px; }
"""


def build_report(run_dirs: Sequence[str | Path]) -> str:
    """Return the HTML text of a report comparing the given scored runs."""
    if not run_dirs:
        raise ArenaGenError("report needs at least one run directory")
    views = [load_run(p) for p in run_dirs]
    runs = [(v.label, v.summary) for v in views]
    envs = sorted({env for _, s in runs for env in s["envs"]})
    plots = [("Scores by env (± standard error)",
              _bar_plot(envs, runs, "avg_at_k", "avg_at_k_se", "Avg@k by env", "Avg@k (%)")),
             ("Success rate by env (± standard error)",
              _bar_plot(envs, runs, "success_rate", "success_rate_se", "Success rate",
                        "success (%)")),
             ("Loop ratio by env", _bar_plot(envs, runs, "loop_ratio", None, "Loop ratio",
                                             "share of turns")),
             ("Token efficiency by env",
              _bar_plot(envs, runs, "token_efficiency", None, "Token efficiency",
                        "success % (trading: profit %) per 1M tokens"))]
    figures = [f"<figure><img class='plot' alt='{html.escape(t)}' "
               f"src='data:image/png;base64,{b}'><figcaption>{html.escape(t)}</figcaption>"
               f"</figure>" for t, b in plots]
    for env in envs:
        figures.append(f"<figure><img class='plot' alt='{html.escape(env)}: evolution curve' "
                       f"src='data:image/png;base64,{_evolution_plot(env, runs)}'><figcaption>"
                       f"{html.escape(env)}: evolution curve (x: turn; y: % of attempts "
                       "succeeded by that turn)</figcaption></figure>")
        series = [(v.label, sorted(a.steps for a in v.attempts
                                   if a.env == env and a.end_reason != "infra_error"))
                  for v in views]
        hist = _steps_plot(env, series, _budget(views, env))
        if hist is not None:
            figures.append(
                f"<figure class='hist' data-env='{html.escape(env)}' "
                f"data-xlabel='{STEPS_X}' data-ylabel='{STEPS_Y}' data-bin-width='{hist.width}'"
                f" data-bins='{hist.bins}'><img class='plot' alt='{html.escape(env)}: step "
                f"histogram' src='data:image/png;base64,{hist.png}'><figcaption>"
                f"{html.escape(env)}: step histogram ({html.escape(hist.caption())})"
                "</figcaption></figure>")
    run_list = "".join(
        f"<li><b>{html.escape(v.label)}</b>: suite {html.escape(str(s['run'].get('suite')))}"
        f", mode {html.escape(str(s['run'].get('mode')))}"
        f", harness {html.escape(str(s['run'].get('harness', 'arena-gen')))}"
        f", {s.get('k', 1)} attempt(s) per task, {len({a.task_id for a in v.attempts})} tasks"
        f"</li>" for v in views for s in [v.summary])
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>arena-gen report</title>
<style>{STYLE}</style></head><body>
<h1>arena-gen report</h1>
<ul>{run_list}</ul>
<nav><a href="#metrics">Metrics</a><a href="#ladder">Baseline ladder</a>
<a href="#plots">Plots</a><a href="#tasks">Tasks</a></nav>
<div id="render-check" hidden></div>
<h2 id="metrics">Metrics</h2>
<p>n/a: undefined for that env (e.g. efficiency on fixed-horizon envs), not zero. "excl.": tasks
left out of that metric. Standard errors are over tasks (summary.json, summary.csv).</p>
{_table(envs, runs)}
{_definitions_table()}
<h2 id="ladder">Baseline ladder</h2>
<p>What scripted agents achieve on the same tasks, as the certificates record it: the seeded
random agent, the env's inductive baselines (rules hidden) and the with-rules planner (reads only
the rules text), beside each run's agent.</p>
{_ladder_section(views)}
<h2 id="plots">Plots</h2>
{''.join(figures)}
<h2 id="tasks">Tasks</h2>
<p>One entry per task (click to open): per attempt its steps, how it ended, its score and the
judge's findings with their evidence.</p>
{_tasks_section(views)}
{CHECK_SCRIPT}
</body></html>
"""


def write_report(run_dirs: Sequence[str | Path], out: str | Path) -> Path:
    """Write the report HTML to ``out``."""
    out = check_creatable(out, "--html")
    text = build_report(run_dirs)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ArenaGenError(f"--html {out}: cannot write: {exc.strerror}") from None
    return out
