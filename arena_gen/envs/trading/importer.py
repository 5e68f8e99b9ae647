"""Import released OdysseyArena trading configs (``test_trade_config_N.json``) as trading drafts.

A released config holds a 500-day timeline; the benchmark plays its first 120 days, so the draft
keeps days 1..120. The dependency matrix, initial prices and factor changes are kept exactly as
released (no rounding), which reproduces the released prices. The released news texts are kept
too (``world.news``): they were written from the changes before those were rounded to 4 decimals,
so about 1 day in 30 reads differently from text regenerated from the stored changes (e.g.
0.075 shown as +0.08); agents must see what released agents saw. Noise must be 0: the released
env draws noise at run time, which no stored world can reproduce. :func:`derive` gives the rest
of a draft from the world and two source facts, for the importer and ``verify`` alike.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from arena_gen.core.bounded_io import read_import_file
from arena_gen.core.schema import loads
from arena_gen.core.task import Draft
from arena_gen.envs.trading.game_v1 import NEWS_ITEM, news_text
from arena_gen.envs.trading.sampler_v1 import make_draft

#: Days the released benchmark plays (``--max_steps 120`` in its inference script).
PLAYED_DAYS = 120
REQUIRED = ("num_days", "stocks", "variables", "dependency_matrix", "initial_prices",
            "initial_cash", "timeline")


def _fail(path: Path, why: str) -> ValueError:
    return ValueError(f"{path}: not a released trading config: {why}")


def _numbers(path: Path, value: Any, length: int, what: str) -> list[float]:
    if not isinstance(value, list) or len(value) != length:
        raise _fail(path, f"{what} must be a list of {length} numbers")
    for x in value:
        if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
            raise _fail(path, f"{what} holds a non-number {x!r}")
    return [float(x) for x in value]


#: The phrases a released news item uses (the wording of :func:`~..envs.trading.news_phrase`).
PHRASES = ("increased significantly", "rose slightly", "decreased significantly",
           "dropped slightly", "stable")
_ITEM = re.compile(r"(F\d+) ([a-z ]+) \(([+-]?\d+\.\d+)\)")


def _same_news(released: str, ours: str) -> bool:
    """Same factors in the same order with values within one cent (rounding before storage),
    and nothing else: every item is one of the released phrases (no other text is shown)."""
    items = [_ITEM.fullmatch(item) for item in released.split(" | ")]
    b = NEWS_ITEM.findall(ours)
    return len(items) == len(b) and all(
        x is not None and x[2] in PHRASES and x[1] == y[0]
        and abs(float(x[3]) - float(y[1])) <= 0.0101 for x, y in zip(items, b, strict=True))


def parse_config(path: Path, data: Any, days: int = PLAYED_DAYS) -> Draft:
    """Validate one released config and turn its first ``days`` days into a Draft."""
    if not isinstance(data, dict) or any(k not in data for k in REQUIRED):
        missing = [k for k in REQUIRED if not isinstance(data, dict) or k not in data]
        raise _fail(path, f"missing fields {missing}")
    stocks, factors = data["stocks"], data["variables"]
    if (not isinstance(stocks, list) or not isinstance(factors, list) or not stocks or not factors
            or stocks != [f"S{i}" for i in range(len(stocks))]
            or factors != [f"F{j}" for j in range(len(factors))]):
        raise _fail(path, "stocks must be S0.. and variables F0..")
    n_stocks, n_factors = len(stocks), len(factors)
    matrix_in = data["dependency_matrix"]
    if not isinstance(matrix_in, list) or len(matrix_in) != n_stocks:
        raise _fail(path, f"dependency_matrix must have {n_stocks} rows")
    matrix = [_numbers(path, row, n_factors, "a dependency_matrix row") for row in matrix_in]
    prices = _numbers(path, data["initial_prices"], n_stocks, "initial_prices")
    if min(prices) <= 0:
        raise _fail(path, "initial_prices must be positive")
    if "initial_variables" in data:
        _numbers(path, data["initial_variables"], n_factors, "initial_variables")
    noise_scale = data.get("price_noise_scale", 0.0)
    if noise_scale not in (0, 0.0):
        raise _fail(path, f"price_noise_scale {noise_scale!r} is drawn at run time and cannot "
                          f"be reproduced; only noise-free configs import")
    cash = data["initial_cash"]
    if isinstance(cash, bool) or not isinstance(cash, (int, float)) or not cash > 0:
        raise _fail(path, "initial_cash must be a positive number")
    num_days = data["num_days"]
    if isinstance(num_days, bool) or not isinstance(num_days, int) or num_days < days:
        raise _fail(path, f"num_days must be an integer >= {days}")
    timeline = data["timeline"]
    if not isinstance(timeline, dict):
        raise _fail(path, "timeline must be an object of day_k entries")
    changes: list[list[float]] = []
    news: list[str] = []
    for day in range(1, days + 1):
        entry = timeline.get(f"day_{day}")
        if not isinstance(entry, dict) or "variable_changes" not in entry:
            raise _fail(path, f"timeline has no day_{day}.variable_changes "
                              f"({days} days are played)")
        row = _numbers(path, entry["variable_changes"], n_factors, f"day_{day}.variable_changes")
        text = entry.get("news_text")
        if not isinstance(text, str) or not _same_news(text, news_text(factors, row)):
            raise _fail(path, f"day_{day}.news_text is missing or does not describe its "
                              f"variable_changes")
        changes.append(row)
        news.append(text)
    world = {"matrix": matrix, "initial_prices": prices, "changes": changes,
             "initial_cash": float(cash), "news": news}
    return derive(world, {"source": path.name, "released_days": num_days})


def derive(world: Mapping[str, Any], source: Mapping[str, Any]) -> Draft:
    """The draft an imported world gives with its source facts (file name, released days):
    noise, costs and the profit floor are the importer's constants, so ``verify`` re-derives
    them with the params, budget, public view, rules and rubric; a day's news must still
    describe its changes."""
    matrix, changes, news = world["matrix"], world["changes"], world["news"]
    factors = [f"F{j}" for j in range(len(matrix[0]))]
    if len(news) != len(changes):
        raise ValueError(f"{len(news)} news texts for {len(changes)} days")
    for day, (text, row) in enumerate(zip(news, changes, strict=True), start=1):
        if not isinstance(text, str) or not _same_news(text, news_text(factors, row)):
            raise ValueError(f"the news of day {day} does not describe its changes")
    return make_draft(matrix=matrix, initial_prices=world["initial_prices"], changes=changes,
                      noise=[[0.0] * len(matrix) for _ in changes], noise_scale=0.0,
                      cost_rate=0.0, initial_cash=float(world["initial_cash"]),
                      min_oracle_profit=0.0,
                      extra_params={"source": source.get("source"),
                                    "released_days": source.get("released_days")},
                      news=list(news))


def importer(path: Path) -> list[Draft]:
    """Parse one released trading config file into a one-draft list (ValueError names the file)."""
    path = Path(path)
    try:
        data = loads(read_import_file(path), file=str(path))
    except OSError as exc:
        raise _fail(path, f"unreadable JSON ({str(exc)[:80]})") from None
    return [parse_config(path, data)]
