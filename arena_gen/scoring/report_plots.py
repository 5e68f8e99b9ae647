"""The report's plots, drawn with matplotlib from the :class:`.ReportModel` and embedded as PNG.

matplotlib is the optional extra ``report``: it is imported only when a plot is drawn, so that
importing this module (and the CLI) stays cheap.
"""

from __future__ import annotations

import base64
import functools
import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arena_gen.scoring.report_data import EnvSteps, ReportModel

#: Bins a step histogram aims at (integer-aligned; wider bins when the range is long).
HIST_BINS = 20
#: Axis labels of the step histograms (also on each figure's data attributes).
STEPS_X, STEPS_Y = "steps (agent turns per attempt)", "attempts (count)"

#: The bar plots: (caption, summary key, its standard-error key, title, y label).
BARS = [("Scores by env (± standard error)", "avg_at_k", "avg_at_k_se", "Avg@k by env",
         "Avg@k (%)"),
        ("Success rate by env (± standard error)", "success_rate", "success_rate_se",
         "Success rate", "success (%)"),
        ("Loop ratio by env", "loop_ratio", None, "Loop ratio", "share of turns"),
        ("Token efficiency by env", "token_efficiency", None, "Token efficiency",
         "success % (trading: profit %) per 1M tokens")]
#: The whole range of a bounded metric: its axis shows all of it, so a row of zeros reads as
#: zero out of 100, not as bars on an empty 0-0.05 axis.
BOUNDS = {"avg_at_k": 100.0, "success_rate": 100.0, "loop_ratio": 1.0}

Runs = Sequence[tuple[str, dict[str, Any]]]  # (run label, its summary.json)


@dataclass(frozen=True)
class Histogram:
    """A step histogram's binning, as its caption and data attributes state it."""

    lo: int
    hi: int
    width: int
    bins: int
    budget: int | None

    def caption(self) -> str:
        """The axes and bins in words, and the budget line when there is one."""
        unit = "turn" if self.width == 1 else "turns"
        bins = "1 bin" if self.bins == 1 else f"{self.bins} bins"
        span = f"at {self.lo}" if self.lo == self.hi else f"from {self.lo} to {self.hi}"
        text = f"x: {STEPS_X}, {bins} of {self.width} {unit} {span}; y: {STEPS_Y}"
        if self.budget is not None:
            text += f"; dashed line: the turn budget ({self.budget})"
        return text


@dataclass(frozen=True)
class Figure:
    """One drawn plot: its PNG (base64), alt text and caption; a step histogram's binning."""

    png: str
    alt: str
    caption: str
    env: str | None = None
    hist: Histogram | None = None


@functools.cache
def _pyplot() -> Any:
    """matplotlib's pyplot on the file-only Agg backend, imported on first use."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _png(fig: Any) -> str:
    """The figure as base64 PNG text, and the figure closed."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    _pyplot().close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def bar_plot(envs: Sequence[str], runs: Runs, key: str, se_key: str | None, title: str,
             ylabel: str) -> str:
    """One bar per env and run, with standard-error bars; ``n/a`` where undefined."""
    return _png(bar_figure(envs, runs, key, se_key, title, ylabel))


def _integer_ticks(axis: Any) -> None:
    """Ticks on whole numbers only (turns, counts)."""
    from matplotlib.ticker import MaxNLocator

    axis.set_major_locator(MaxNLocator(integer=True, min_n_ticks=1))


def bar_figure(envs: Sequence[str], runs: Runs, key: str, se_key: str | None, title: str,
               ylabel: str) -> Any:
    """:func:`bar_plot`'s figure, open: a bounded metric's axis spans its whole range and an
    unbounded one whose bars are all 0 spans 0-1, not matplotlib's empty 0-0.05."""
    fig, ax = _pyplot().subplots(figsize=(7, 3.2))
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
    tops = [(v or 0.0) + ((s["envs"].get(env, {}).get(se_key) or 0.0) if se_key else 0.0)
            for _, s in runs for env in envs for v in [s["envs"].get(env, {}).get(key)]]
    if key in BOUNDS:
        ax.set_ylim(0, max(BOUNDS[key], *tops))
    elif max(tops, default=0.0) <= 0:
        ax.set_ylim(0, 1)
    else:
        ax.set_ylim(bottom=0)
    if empty:
        ax.text(0.5, 0.5, "undefined for every env and run (n/a)", transform=ax.transAxes,
                ha="center", color="#888")
    ax.set_title(title)
    ax.set_xlabel("env")
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=8)
    return fig


def evolution_plot(env: str, runs: Runs) -> str:
    """Cumulative success by turn, one line per run."""
    return _png(evolution_figure(env, runs))


def evolution_figure(env: str, runs: Runs) -> Any:
    """:func:`evolution_plot`'s figure, open: whole turns on x, a marker on each point of a
    curve too short to draw as a line."""
    fig, ax = _pyplot().subplots(figsize=(7, 3.2))
    longest = 0
    for label, summary in runs:
        curve = (summary.get("curves") or {}).get(env, {}).get("evolution") or []
        longest = max(longest, len(curve))
        ax.plot(range(1, len(curve) + 1), [100 * c for c in curve], label=label,
                marker="o" if len(curve) <= 3 else None)
    ax.set_title(f"{env}: cumulative success by turn")
    ax.set_xlabel("turn (agent calls so far)")
    ax.set_ylabel("attempts succeeded by then (%)")
    ax.set_ylim(0, 100)
    ax.set_xlim(0.5, max(longest, 1) + 0.5)
    _integer_ticks(ax.xaxis)
    ax.legend(fontsize=8)
    return fig


def step_bins(steps: Sequence[int], target: int = HIST_BINS) -> tuple[list[float], int]:
    """Bin edges centred on whole turns (each bin holds ``width`` whole step counts)."""
    lo, hi = min(steps), max(steps)
    width = max(1, math.ceil((hi - lo + 1) / target))
    n = math.ceil((hi - lo + 1) / width)
    return [lo - 0.5 + i * width for i in range(n + 1)], width


def steps_plot(steps: EnvSteps) -> tuple[str, Histogram] | None:
    """A histogram of steps per attempt, one series per run, the budget dashed; None if empty."""
    drawn = steps_figure(steps)
    return None if drawn is None else (_png(drawn[0]), drawn[1])


def steps_figure(steps: EnvSteps) -> tuple[Any, Histogram] | None:
    """:func:`steps_plot`'s figure, open: whole-turn ticks, and a few turns either side of a
    narrow histogram (one value alone is one bar, not a plot-wide block)."""
    series = [(label, s) for label, s in steps.series if s]
    if not series:
        return None
    every = [x for _, s in series for x in s]
    edges, width = step_bins(every)
    fig, ax = _pyplot().subplots(figsize=(7, 3.2))
    ax.hist([s for _, s in series], bins=edges, label=[f"{lb} (n={len(s)})" for lb, s in series],
            edgecolor="white", linewidth=0.5)
    if steps.budget is not None:
        ax.axvline(steps.budget, color="#555", linestyle="--", linewidth=1)
    ax.set_title(f"{steps.env}: steps per attempt")
    ax.set_xlabel(STEPS_X)
    ax.set_ylabel(STEPS_Y)
    _integer_ticks(ax.yaxis)
    _integer_ticks(ax.xaxis)
    if len(edges) - 1 < 5:  # room around a narrow histogram (and the budget line, if near)
        lo, hi = edges[0] - 2 * width, edges[-1] + 2 * width
        if steps.budget is not None and hi < steps.budget <= hi + 5 * width:
            hi = steps.budget + width
        ax.set_xlim(max(lo, -0.5), hi)
    ax.legend(fontsize=8)
    return fig, Histogram(min(every), max(every), width, len(edges) - 1, steps.budget)


def plot_problem() -> str | None:
    """Why the report's plots cannot be drawn (matplotlib absent, or installed but failing to
    import: a broken build, a missing shared library), or None when they can."""
    try:
        _pyplot()
    except Exception as exc:  # a broken install fails in ways of its own; never crash report
        return f"{type(exc).__name__}: {exc}"[:300]
    return None


def draw_figures(model: ReportModel) -> list[Figure]:
    """Every plot of the report in page order: the bar plots, then per env its evolution curve
    and step histogram."""
    runs = model.summaries
    figures = [Figure(bar_plot(model.envs, runs, key, se_key, title, ylabel), caption, caption)
               for caption, key, se_key, title, ylabel in BARS]
    for env, steps in zip(model.envs, model.steps, strict=True):
        figures.append(Figure(evolution_plot(env, runs), f"{env}: evolution curve",
                              f"{env}: evolution curve (x: turn; y: % of attempts succeeded by "
                              "that turn)"))
        drawn = steps_plot(steps)
        if drawn is not None:
            png, hist = drawn
            figures.append(Figure(png, f"{env}: step histogram",
                                  f"{env}: step histogram ({hist.caption()})", env, hist))
    return figures
