"""A self-contained HTML report comparing runs: tables plus plots embedded as PNG (offline).

Tables: every metric with its unit in the header (its definition as a tooltip), ``n/a`` where it
is undefined, the tasks it left out beside it, and a definitions table (metric, unit, definition,
source) below. Plots: per-env scores with standard-error bars, evolution curves (cumulative
success by turn), step distributions, loop ratios and token efficiency. A small inline script
counts the plots and tables that rendered, so a headless browser can check the page
(``#render-check``).
"""

from __future__ import annotations

import base64
import html
import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from ..core.errors import ArenaGenError  # noqa: E402
from ..core.paths import check_creatable  # noqa: E402
from ..core.schema import read_json  # noqa: E402
from .definitions import CONVENTIONS, definition_of, fmt, heading  # noqa: E402

#: The metrics table's columns (definitions and units from ``definitions.METRICS``).
TABLE_METRICS = ["success_rate", "avg_at_k", "avg_credit_at_k", "pass_at_1",
                 "trajectory_efficiency", "optimality_ratio", "loop_ratio", "invalid_action_rate",
                 "token_efficiency", "avg_at_k_profit", "best_at_k_profit", "profit_rate_median",
                 "log_growth", "normalized_profit", "infra_errors", "missing"]


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


def _png(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _bar_plot(envs: Sequence[str], runs: Sequence[tuple[str, dict[str, Any]]], key: str,
              se_key: str | None, title: str, ylabel: str) -> str:
    fig, ax = plt.subplots(figsize=(7, 3.2))
    width = 0.8 / max(1, len(runs))
    for i, (label, summary) in enumerate(runs):
        raw = [summary["envs"].get(env, {}).get(key) for env in envs]
        values = [v or 0.0 for v in raw]
        errors = ([summary["envs"].get(env, {}).get(se_key) or 0.0 for env in envs]
                  if se_key else None)
        xs = [j + i * width for j in range(len(envs))]
        ax.bar(xs, values, width=width, yerr=errors, capsize=3, label=label)
        for x, v in zip(xs, raw, strict=True):
            if v is None:  # undefined for this env: say so rather than draw a zero
                ax.annotate("n/a", (x, 0), ha="center", va="bottom", fontsize=7, color="#888")
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(envs))], list(envs))
    if all(not (s["envs"].get(env, {}).get(key) or 0) for _, s in runs for env in envs):
        ax.text(0.5, 0.5, "no data recorded", transform=ax.transAxes, ha="center",
                color="#888")
    ax.set_title(title)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=8)
    return _png(fig)


def _evolution_plot(env: str, runs: Sequence[tuple[str, dict[str, Any]]]) -> str:
    fig, ax = plt.subplots(figsize=(7, 3.2))
    for label, summary in runs:
        curve = (summary.get("curves") or {}).get(env, {}).get("evolution") or []
        ax.plot(range(1, len(curve) + 1), [100 * c for c in curve], label=label)
    ax.set_title(f"{env}: cumulative success by turn")
    ax.set_xlabel("turn")
    ax.set_ylabel("success %")
    ax.set_ylim(0, 100)
    ax.legend(fontsize=8)
    return _png(fig)


def _steps_plot(env: str, runs: Sequence[tuple[str, dict[str, Any]]]) -> str:
    fig, ax = plt.subplots(figsize=(7, 3.2))
    for label, summary in runs:
        steps = (summary.get("curves") or {}).get(env, {}).get("steps") or []
        if steps:
            ax.hist(steps, bins=20, alpha=0.5, label=label)
    ax.set_title(f"{env}: steps per attempt")
    ax.set_xlabel("agent turns")
    ax.set_ylabel("attempts")
    ax.legend(fontsize=8)
    return _png(fig)


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


def _definitions_table() -> str:
    """Each reported metric's definition, unit and source, beside the numbers."""
    keys = [*TABLE_METRICS, "tokens", "steps_mean"]
    rows = [(heading(k), d) for k in keys if (d := definition_of(k))] + list(CONVENTIONS.items())
    body = "".join(f"<tr><td>{html.escape(k)}</td>"
                   f"<td>{html.escape(d.unit)}</td><td>{html.escape(d.definition)}</td>"
                   f"<td>{html.escape(d.source)}</td></tr>" for k, d in rows)
    return ("<table class='definitions'><thead><tr><th>metric</th><th>unit</th>"
            f"<th>definition</th><th>source</th></tr></thead><tbody>{body}</tbody></table>")


CHECK_SCRIPT = """
<script>
window.addEventListener('load', function () {
  var imgs = Array.prototype.slice.call(document.querySelectorAll('img.plot'));
  var ok = imgs.filter(function (i) { return i.complete && i.naturalWidth > 0; }).length;
  var tables = document.querySelectorAll('table.metrics tbody tr').length;
  var el = document.getElementById('render-check');
  el.setAttribute('data-plots', imgs.length);
  el.setAttribute('data-plots-rendered', ok);
  el.setAttribute('data-table-rows', tables);
  el.textContent = ok + '/' + imgs.length + ' plots rendered, ' + tables + ' table rows';
});
</script>
"""


def build_report(run_dirs: Sequence[str | Path]) -> str:
    """Return the HTML text of a report comparing the given scored runs."""
    if not run_dirs:
        raise ArenaGenError("report needs at least one run directory")
    runs = [(run_label(s, p), s) for p, s in ((p, load_summary(p)) for p in run_dirs)]
    envs = sorted({env for _, s in runs for env in s["envs"]})
    plots = [("Scores by env (± standard error)",
              _bar_plot(envs, runs, "avg_at_k", "avg_at_k_se", "Avg@k by env", "score (0-100)")),
             ("Success rate by env",
              _bar_plot(envs, runs, "success_rate", "success_rate_se", "Success rate",
                        "success %")),
             ("Loop ratio by env", _bar_plot(envs, runs, "loop_ratio", None, "Loop ratio",
                                             "share of turns")),
             ("Token efficiency by env",
              _bar_plot(envs, runs, "token_efficiency", None, "Token efficiency",
                        "success % (trading: profit %) per 1M tokens"))]
    for env in envs:
        plots.append((f"{env}: evolution curve", _evolution_plot(env, runs)))
        plots.append((f"{env}: step distribution", _steps_plot(env, runs)))
    figures = "\n".join(
        f"<figure><img class='plot' alt='{html.escape(t)}' src='data:image/png;base64,{b}'>"
        f"<figcaption>{html.escape(t)}</figcaption></figure>" for t, b in plots)
    run_list = "".join(f"<li>{html.escape(label)}: suite {html.escape(str(s['run'].get('suite')))}"
                       f", mode {html.escape(str(s['run'].get('mode')))}"
                       f", harness {html.escape(str(s['run'].get('harness', 'arena-gen')))}"
                       f"</li>"
                       for label, s in runs)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>arena-gen report</title>
<style>
body {{ font-family: sans-serif; margin: 2em; color: #222; }}
table {{ border-collapse: collapse; font-size: 13px; }}
th, td {{ border: 1px solid #ccc; padding: 3px 6px; text-align: right; }}
td:first-child, td:nth-child(2) {{ text-align: left; }}
table.definitions td, table.definitions th {{ text-align: left; }}
.excl {{ color: #888; font-size: 11px; }}
figure {{ display: inline-block; margin: 1em; }}
</style></head><body>
<h1>arena-gen report</h1>
<ul>{run_list}</ul>
<p id="render-check">not rendered</p>
<h2>Metrics</h2>
<p>n/a: undefined for that env (e.g. efficiency on fixed-horizon envs), not zero. "excl.": tasks
left out of that metric. Standard errors are over tasks (summary.json, summary.csv).</p>
{_table(envs, runs)}
<h3>Definitions</h3>
{_definitions_table()}
<h2>Plots</h2>
{figures}
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
