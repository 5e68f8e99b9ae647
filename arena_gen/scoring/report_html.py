"""The report page: the :class:`.ReportModel` and its figures poured into the HTML templates.

All HTML, CSS and script text lives in ``templates/`` (shipped as package data): ``report.html``
is the page, ``parts.html`` its pieces, each a ``<template id='name'>`` filled with
:class:`string.Template`. Every value is HTML-escaped as it goes in; only a piece filled here
(an :class:`Html`) is inserted as it is, so no run, suite or finding text can add markup.
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Iterable, Sequence
from importlib import resources
from string import Template
from typing import Any

from arena_gen.scoring.definitions import (
    ATTEMPT,
    CONVENTIONS,
    LADDER,
    MetricDef,
    definition_of,
    fmt,
    heading,
)
from arena_gen.scoring.knowledge import KNOWLEDGE_LEGEND, knowledge_table
from arena_gen.scoring.report_data import (
    TABLE_METRICS,
    EnvLadder,
    LadderRow,
    MetricRow,
    ReportModel,
    SuiteLadder,
    TaskEntry,
    pct,
)
from arena_gen.scoring.report_plots import STEPS_X, STEPS_Y, Figure

#: Where the templates are, inside the installed package.
TEMPLATES = resources.files("arena_gen.scoring") / "templates"
#: A judge finding's status as a mark.
STATUS_MARKS = {"met": "✓", "violated": "✗", "not_assessable": "?"}


class Html(str):
    """Text that is already markup (a filled piece): inserted as it is, never escaped again."""


def template_text(name: str) -> str:
    """One file of ``templates/``, read from the installed package."""
    return (TEMPLATES / name).read_text(encoding="utf-8")


@functools.cache
def _parts() -> dict[str, Template]:
    """The pieces of ``parts.html`` by id (each between lines ``<template id='…'>`` and
    ``</template>``)."""
    text = template_text("parts.html")
    found = re.finditer(r"^<template id='(\w+)'>\n(.*?)\n</template>$", text,
                        re.DOTALL | re.MULTILINE)
    return {m.group(1): Template(m.group(2)) for m in found}


def fill(template: Template, /, **values: object) -> Html:
    """The template with its values in, each HTML-escaped unless it is already :class:`Html`."""
    return Html(template.substitute(
        {k: v if isinstance(v, Html) else html.escape(str(v)) for k, v in values.items()}))


def part(piece: str, /, **values: object) -> Html:
    """The piece of that id in ``parts.html``, filled."""
    return fill(_parts()[piece], **values)


def join(pieces: Iterable[Html], sep: str = "") -> Html:
    """Filled pieces one after the other."""
    return Html(sep.join(pieces))


# --- Definitions --------------------------------------------------------------------------------

def _th(d: MetricDef) -> Html:
    """A header cell: label and unit, the definition as its tooltip."""
    unit = f" ({d.unit})" if d.unit and d.unit != "count" else ""
    return part("th", title=d.definition, label=d.label + unit)


def _definitions(rows: Sequence[tuple[str, MetricDef]], kind: str) -> Html:
    """Definitions beside a table: term, unit, definition, source."""
    body = join(part("definitions_row", term=k, unit=d.unit, definition=d.definition,
                     source=d.source) for k, d in rows)
    return part("definitions", kind=kind, rows=body)


def _terms(table: dict[str, MetricDef]) -> list[tuple[str, MetricDef]]:
    return [(d.label, d) for d in table.values()]


def _metric_definitions(shown: Sequence[str] = TABLE_METRICS) -> Html:
    """Each reported metric's definition, unit and source, beside the numbers (Pass@k once)."""
    keys = [*(k for k in shown if not k.startswith("pass_at_") or k == "pass_at_1"),
            "steps_mean"]
    rows = [(heading(k), d) for k in keys if (d := definition_of(k))] + list(CONVENTIONS.items())
    return _definitions(rows, "metrics")


# --- Sections -----------------------------------------------------------------------------------

def _metric_head(key: str, k: int | None) -> str:
    """A metrics-table header: the runs' own k in Avg@k (``Avg@4 (%)``) when they share one."""
    label = heading(key)
    return label.replace("@k", f"@{k}") if k is not None else label


def _metrics_table(rows: Sequence[MetricRow], keys: Sequence[str] = TABLE_METRICS,
                   k: int | None = None) -> Html:
    """Every metric per env and run, its definition as the header's tooltip."""
    head = join(part("th", title=d.definition if (d := definition_of(key)) else key,
                     label=_metric_head(key, k)) for key in keys)
    body = join(part("metrics_row", env=r.env, run=r.run, cells=join(
        part("metrics_cell", value=c.value) if c.excluded is None
        else part("metrics_cell_excluded", value=c.value, excluded=c.excluded)
        for c in r.cells)) for r in rows)
    return part("metrics_table", head=head, rows=body)


def _references(summaries: Sequence[tuple[str, dict[str, Any]]]) -> Html:
    """What each run's induction efficiency is scored against, per env (nothing when no env
    has a reference)."""
    items = [f"{env} ({label}): {kind}" for label, summary in summaries
             for env, entry in sorted(summary["envs"].items())
             if (kind := entry.get("induction_efficiency_reference"))]
    return part("references", items="; ".join(items)) if items else Html()


def _ladder_row(r: LadderRow) -> Html:
    return part("ladder_row", kind=r.kind, name=r.name, mode=r.mode, solved=r.solved,
                tasks=r.tasks, successes=r.successes, attempts=r.attempts, rate=pct(r.rate),
                lo=pct(r.lo), hi=pct(r.hi), width=pct(r.hi - r.lo), price=r.price)


def _env_ladder(e: EnvLadder) -> Html:
    """One env's ladder table and its calibration targets."""
    if not e.rows:
        return part("env_no_ladder", env=e.env)
    scope = f"over the {e.played} tasks played"
    if e.played < e.in_suite:
        scope += f" (of {e.in_suite} in the suite)"
    targets = Html("")
    if e.targets is not None:
        verdict = "all met" if not e.missed else "missed: " + "; ".join(e.missed)
        targets = part("targets", targets=", ".join(e.targets) or "none recorded",
                       verdict=verdict)
    head = join(_th(LADDER[k]) for k in ("rung", "mode", "tasks_solved", "ladder_successes",
                                         "ladder_rate", "ci95", "price"))
    return part("env_ladder", anchor=e.anchor, env=e.env, scope=scope, head=head,
                rows=join(_ladder_row(r) for r in e.rows), targets=targets)


def _ladders(suites: Sequence[SuiteLadder]) -> Html:
    """Per suite its heading and env ladders (or why there are none)."""
    parts = []
    for s in suites:
        if s.note is not None:
            parts.append(part("suite_missing", name=s.name, note=s.note))
            continue
        parts.append(part("suite_heading", name=s.name, digest=s.digest, path=s.path))
        parts.extend(_env_ladder(e) for e in s.envs)
    return join(parts, "\n")


def _figure(f: Figure) -> Html:
    if f.hist is None:
        return part("figure", alt=f.alt, png=f.png, caption=f.caption)
    return part("hist_figure", env=f.env, xlabel=STEPS_X, ylabel=STEPS_Y, width=f.hist.width,
                bins=f.hist.bins, alt=f.alt, png=f.png, caption=f.caption)


def _score_text(score: float | None) -> str:
    return "n/a" if score is None else f"{score:.4g}"


def _task(t: TaskEntry) -> Html:
    """A task's collapsible entry: per run a summary line, per attempt its row and findings."""
    heads, rows = [], []
    for label, mine in t.runs:
        heads.append(f"{label}: {sum(a.perfect for a in mine)}/{len(mine)} solved, "
                     f"steps {', '.join(str(a.steps) for a in mine)}, "
                     f"score{'s' if len(mine) > 1 else ''} "
                     f"{', '.join(_score_text(a.score) for a in mine)}"
                     + (f", ind.eff {', '.join(fmt(a.efficiency) for a in mine)}"
                        if t.reference != "n/a" else ""))
        for a in mine:
            items = [part("finding", status=f.get("status"), item=f.get("item"),
                          mark=STATUS_MARKS.get(str(f.get("status")), ""),
                          evidence=f.get("evidence", "")) for f in a.findings]
            if flags := [k for k, on in a.flags.items() if on]:
                items.append(part("flags", flags=", ".join(flags)))
            rows.append(part("attempt_row", run=label, attempt=a.attempt, steps=a.steps,
                             end=a.end_reason, score=_score_text(a.score),
                             efficiency=fmt(a.efficiency), items=join(items)))
    ladder = Html("")
    if t.ladder:
        ladder = part("task_ladder", rungs="; ".join(
            f"{r.rung} ({r.mode}) {r.successes}/{r.attempts} solved, steps "
            f"{', '.join(str(s) for s in r.steps)}" for r in t.ladder))
    return part("task", id=t.task_id, min_steps=t.min_steps, budget=t.budget,
                reference=t.reference, kind=t.reference_kind,
                heads=" | ".join(heads), rows=join(rows), ladder=ladder,
                head=join(_th(ATTEMPT[k]) for k in ("steps", "end", "score", "efficiency",
                                                     "findings")))


def _tasks(tasks: dict[str, list[TaskEntry]]) -> Html:
    """Per env a heading and its task entries."""
    parts = []
    for env, entries in tasks.items():
        parts.append(part("tasks_heading", env=env, count=len(entries)))
        parts.extend(_task(t) for t in entries)
    return join(parts, "\n")


def _knowledge(summaries: Sequence[tuple[str, dict[str, Any]]]) -> Html:
    """The knows-vs-succeeds table of each run that asked probes (nothing when none did)."""
    tables = []
    for label, summary in summaries:
        table = knowledge_table(summary)
        if table is None:
            continue
        headers, rows = table
        tables.append(part("knowledge_table", run=label,
                           head=join(part("knowledge_th", label=h) for h in headers),
                           rows=join(part("knowledge_row", cells=join(
                               part("metrics_cell", value=c) for c in row)) for row in rows)))
    return part("knowledge", legend=KNOWLEDGE_LEGEND, tables=join(tables)) if tables else Html()


def render_page(model: ReportModel, figures: Sequence[Figure], notice: str | None = None) -> str:
    """The whole self-contained page (``report.html`` with every section filled in); a
    ``notice`` stands in the plots section (e.g. why there are no plots)."""
    run_list = join(part("run_item", label=r.label, suite=r.suite, mode=r.mode,
                         harness=r.harness, k=r.k, tasks=r.tasks, coverage=r.coverage,
                         coverage_class="complete" if r.complete else "incomplete")
                    for r in model.runs)
    return fill(Template(template_text("report.html")),
                run_list=run_list,
                metrics_table=join([_metrics_table(model.metric_rows, model.metric_keys,
                                                   model.k), _references(model.summaries)]),
                metric_definitions=_metric_definitions(model.metric_keys),
                knowledge=_knowledge(model.summaries),
                ladders=_ladders(model.ladders),
                ladder_definitions=_definitions(_terms(LADDER), "ladder"),
                figures=join([*([part("notice", text=notice)] if notice else []),
                              *(_figure(f) for f in figures)]),
                attempt_definitions=_definitions(_terms(ATTEMPT), "tasks"),
                tasks=_tasks(model.tasks))
