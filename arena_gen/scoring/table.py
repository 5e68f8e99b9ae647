"""The score's terminal table: the headline figures for the run's k, readable at 80 columns.

``arena-gen score`` shows one row per env (and per difficulty level when an env has several)
and overall, with Avg@k and Pass@k for the run's own k (its attempts per task), partial credit,
tokens and, with prices, the cost. ``--metrics`` picks other columns (any of
:data:`ALL_METRICS`, or ``all``); :meth:`arena_gen.ui.Reporter.table` prints a table too wide
for the terminal one row at a time instead of cutting its cells. summary.csv and summary.json
hold every figure with its standard error.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arena_gen.core.errors import ArenaGenError
from arena_gen.scoring.cost import cost_usd
from arena_gen.scoring.definitions import definition_of, fmt
from arena_gen.scoring.score import summary_rows

#: The default columns (``pass_at_k`` is Pass@k for the run's k; ``cost`` needs prices).
DEFAULT_METRICS = ("tasks", "avg_at_k", "pass_at_k", "avg_credit_at_k",
                   "induction_efficiency", "tokens", "cost", "infra_errors", "missing")
#: Every figure the terminal shows (``--metrics all``). Trading's headline is the median profit
#: rate and the mean log growth: a 1000-day task compounds to rates of 1e14 %, which the mean of
#: rates (Avg@k and Best@k profit, in summary.csv and the report) lets one attempt dominate.
ALL_METRICS = ("tasks", "attempts", "scored", "success_rate", "avg_at_k", "avg_credit_at_k",
               "pass_at_1", "pass_at_k", "pass_hat_k", "trajectory_efficiency",
               "optimality_ratio", "induction_efficiency", "loop_ratio", "invalid_action_rate",
               "steps_mean", "turns", "tokens", "prompt_tokens", "completion_tokens", "cost",
               "token_efficiency", "profit_rate_median", "log_growth", "normalized_profit",
               "infra_errors", "missing")
#: Columns left out when every row has nothing to say (0 or n/a; induction efficiency: n/a,
#: no reference), unless asked for by name.
OPTIONAL = ("induction_efficiency", "tokens", "cost", "missing")
#: What "nothing to say" is per optional column (a 0 induction efficiency is a figure).
SILENT = {"induction_efficiency": ("n/a",)}
#: Short terminal headers (the vertical layout and the HTML use the definitions' labels).
SHORT = {"tasks": "tasks", "attempts": "attempts", "scored": "scored", "success_rate": "success %",
         "avg_at_k": "Avg@{k} %", "avg_credit_at_k": "credit %", "pass_at_k": "Pass@{k} %",
         "pass_hat_k": "Pass^{k} %", "trajectory_efficiency": "traj.eff.",
         "optimality_ratio": "optimal", "induction_efficiency": "ind.eff", "loop_ratio": "loops",
         "invalid_action_rate": "invalid",
         "steps_mean": "steps", "turns": "turns", "tokens": "tokens", "prompt_tokens": "prompt",
         "completion_tokens": "completion", "cost": "cost $", "token_efficiency": "tok.eff.",
         "profit_rate_median": "profit med %", "log_growth": "log growth",
         "normalized_profit": "norm.profit", "infra_errors": "infra", "missing": "missing"}
_PASS = re.compile(r"^(pass_at|pass_hat)_(\d+)$")


def resolve_metrics(k: int, metrics: Sequence[str] | None = None,
                    has_prices: bool = False) -> list[str]:
    """The summary keys of the columns: ``pass_at_k`` read as ``pass_at_<k>``, ``all`` as
    :data:`ALL_METRICS`; an unknown name is an error that lists the choices."""
    wanted: list[str] = []
    for name in metrics or DEFAULT_METRICS:
        wanted.extend(ALL_METRICS if name == "all" else [name])
    if "cost" in (metrics or ()) and not has_prices:
        raise ArenaGenError("--metrics cost needs --price-in and --price-out")
    out: list[str] = []
    for name in wanted:
        match = _PASS.match(name)
        if name in ("pass_at_k", "pass_hat_k"):
            name = f"{name[:-2]}_{k}"
        elif match and not 1 <= int(match.group(2)) <= k:
            raise ArenaGenError(f"--metrics {name}: this run has {k} attempt(s) per task, so "
                                f"pass_at_1 .. pass_at_{k} (or pass_at_k)")
        elif not match and name not in ALL_METRICS and not name.endswith(("_se", "_excluded")):
            raise ArenaGenError(f"--metrics: unknown metric {name!r}; choose from all, "
                                f"{', '.join(ALL_METRICS)} (or a summary.csv column)")
        if name not in out:
            out.append(name)
    return out


def header(key: str, k: int) -> str:
    """A column's short header, e.g. ``Avg@4 %`` for a run of 4 attempts per task."""
    match = _PASS.match(key)
    if match:
        return f"{'Pass@' if match.group(1) == 'pass_at' else 'Pass^'}{match.group(2)} %"
    if key in SHORT:
        return SHORT[key].format(k=k)
    return key


def long_header(key: str, k: int) -> str:
    """A figure's label and unit for the one-row-at-a-time layout, e.g. ``Avg@4 (%)``."""
    d = definition_of(key)
    if d is None:
        return key
    label = d.label.replace("@k", f"@{k}")
    match = _PASS.match(key)
    if match:
        label = label[:-1] + match.group(2)
    return f"{label} ({d.unit})" if d.unit and d.unit not in ("count", *label.split()) else label


def count_text(n: Any) -> str:
    """A count as a person reads it: ``812``, ``45.6k``, ``1.23M``."""
    if not isinstance(n, (int, float)) or isinstance(n, bool):
        return fmt(n)
    for size, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(n) >= size:
            return f"{n / size:.3g}{suffix}"
    return str(int(n))


def cost_text(usd: float | None) -> str:
    """Dollars with cents, or with 3 significant digits below a dollar (``n/a``: no prices)."""
    if usd is None:
        return "n/a"
    return f"{usd:.2f}" if usd >= 1 else f"{usd:.3g}"


def cell(row: dict[str, Any], key: str, prices: dict[str, Any] | None) -> str:
    """One cell: counts of tokens shortened, cost in USD, ``n/a`` where undefined."""
    if key == "cost":
        return cost_text(cost_usd(row, prices))
    if key in ("tokens", "prompt_tokens", "completion_tokens"):
        return count_text(row.get(key))
    return fmt(row.get(key)) if key in row else "n/a"


def group_name(row: dict[str, Any]) -> str:
    """The first column: the env, its level indented below it, ``overall`` for everything."""
    if row["env"] == "*":
        return "overall"
    return row["env"] if row["level"] == "*" else f"  {row['level']}"


def table_rows(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """The summary's rows, an env's only level left out (it repeats the env's row)."""
    rows = summary_rows(summary)
    levels = {env: len(e.get("levels") or {}) for env, e in summary["envs"].items()}
    return [r for r in rows if r["level"] == "*" or levels.get(r["env"], 0) > 1]


@dataclass(frozen=True)
class ScoreTable:
    """The table: its metric keys, short and long headers (first the group's), and cells."""

    keys: list[str]
    headers: list[str]
    long_headers: list[str]
    rows: list[list[str]]


def score_table(summary: dict[str, Any], metrics: Sequence[str] | None = None,
                prices: dict[str, Any] | None = None) -> ScoreTable:
    """The table's columns and cells: the first column names the group, then one per metric."""
    k = int(summary.get("k", 1))
    keys = resolve_metrics(k, metrics, prices is not None)
    rows = table_rows(summary)
    cells = {key: [cell(r, key, prices) for r in rows] for key in keys}
    if not metrics:  # the defaults drop what says nothing (no tokens, no prices, none missing)
        keys = [key for key in keys if key not in OPTIONAL
                or any(c not in SILENT.get(key, ("0", "n/a")) for c in cells[key])]
    first = "env"  # k is in the headers (Avg@4 %) and the title
    return ScoreTable(keys, [first, *(header(key, k) for key in keys)],
                      [first, *(long_header(key, k) for key in keys)],
                      [[group_name(r), *(cells[key][i] for key in keys)]
                       for i, r in enumerate(rows)])


def reference_words(summary: dict[str, Any]) -> str:
    """Each env's induction-efficiency reference kind, e.g. ``lights: lower bound: with-rules
    minimum``."""
    kinds = [f"{env}: {kind}" for env, entry in sorted(summary["envs"].items())
             if (kind := entry.get("induction_efficiency_reference"))]
    return "; ".join(kinds) if kinds else "no reference"


def legend(summary: dict[str, Any], keys: Sequence[str], width: int = 80) -> list[str]:
    """What the headline columns shown mean, wrapped to ``width``."""
    k = int(summary.get("k", 1))
    says = {"avg_at_k": f"Avg@{k}: success averaged over each task's {k} attempt(s), then "
                        f"over tasks",
            f"pass_at_{k}": f"Pass@{k}: unbiased chance that at least one of {k} attempts "
                            f"succeeds",
            "avg_credit_at_k": "credit: partial rubric credit (0-100)",
            "induction_efficiency": "ind.eff: induction efficiency, min(1, (reference / "
                                    "steps)^2) per attempt, 0 if failed, against "
                                    + reference_words(summary),
            "cost": "cost: USD at --price-in/--price-out per 1M prompt/completion tokens",
            "infra_errors": "infra: attempts excluded for infrastructure errors"}
    parts = [text for key, text in says.items() if key in keys]
    text = ("; ".join(parts) + ". " if parts else "") + (
        "Standard errors and every other figure: summary.csv; other columns: --metrics "
        "(e.g. --metrics all).")
    return textwrap.wrap(text, max(width, 20))
