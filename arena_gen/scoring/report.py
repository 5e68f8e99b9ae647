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

The work is split in three: :mod:`.report_data` reads the runs into a plain model,
:mod:`.report_plots` draws its figures (matplotlib, the ``report`` extra, imported only then) and
:mod:`.report_html` fills the page templates in ``templates/``; this module runs them in turn.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path

from arena_gen.core.errors import ArenaGenError
from arena_gen.core.paths import check_creatable
from arena_gen.scoring.report_check import CheckedRun, check_run
from arena_gen.scoring.report_data import TABLE_METRICS, build_model
from arena_gen.scoring.report_html import render_page
from arena_gen.scoring.report_plots import STEPS_X, STEPS_Y, draw_figures, plot_problem

__all__ = ["NO_PLOTS", "STEPS_X", "STEPS_Y", "TABLE_METRICS", "build_report", "ensure_scored",
           "write_report"]

#: What the page says in place of its plots when matplotlib (the ``report`` extra) is absent.
NO_PLOTS = ("Plots are drawn with matplotlib, an optional extra that is not installed: "
            "pip install 'arena-gen[report]' and run arena-gen report again to add them. "
            "Every table below is complete without it.")


def plots_available() -> bool:
    """Whether matplotlib is installed (the report draws its plots only then)."""
    try:
        return importlib.util.find_spec("matplotlib") is not None
    except (ImportError, ValueError):  # a module entry of None (blocked), or a broken one
        return False


def plots_notice() -> str | None:
    """What the page (and the command, once) says in place of the plots, or None when they
    are drawn: matplotlib not installed, or installed but failing to import."""
    if not plots_available():
        return NO_PLOTS
    problem = plot_problem()
    if problem is None:
        return None
    return (f"Plots are left out: matplotlib is installed but could not be imported "
            f"({problem}); reinstall it (pip install --force-reinstall matplotlib) and run "
            f"arena-gen report again. Every table below is complete without it.")


def ensure_scored(run_dir: str | Path) -> bool:
    """Check a run's figures against the judge's replay (scoring it first when summary.json is
    missing or older than its trajectories); return whether it scored. A summary.json or
    findings.jsonl that differs from the replay is refused (:mod:`.report_check`)."""
    return check_run(run_dir).scored


def build_report(run_dirs: Sequence[str | Path],
                 checked: Sequence[CheckedRun] | None = None) -> str:
    """Return the HTML text of a report comparing the given runs, every figure from the
    judge's replay (without matplotlib, the page says how to add the plots and keeps every
    table)."""
    model = build_model(run_dirs, checked)
    notice = plots_notice()
    if notice is not None:
        return render_page(model, [], notice=notice)
    return render_page(model, draw_figures(model))


def write_report(run_dirs: Sequence[str | Path], out: str | Path,
                 checked: Sequence[CheckedRun] | None = None) -> Path:
    """Write the report HTML to ``out`` atomically: a failed write (a full disk) leaves no
    partial page and no temporary file."""
    out = check_creatable(out, "--html")
    text = build_report(run_dirs, checked)
    tmp = out.with_name(f".{out.name}.tmp")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(out)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise ArenaGenError(f"--html {out}: cannot write: {exc.strerror}") from None
    return out
