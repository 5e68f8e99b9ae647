"""The fingerprint of a trading world: its stocks and its factors may be reordered.

Stocks and factors are named by position (``S0``, ``F0``), so putting stock i at position p(i)
(its price, its noise column and its row of the factor matrix moving together), or factor j at
q(j) (its column of the matrix, its column of the daily changes and its place in the news),
gives the same market under other names. The canonical form relabels both; the days keep their
order (time is not a symmetry). A near duplicate is a world equal up to that relabelling except
for one whole table: the factor matrix, the daily changes, the noise or the initial prices.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from arena_gen.core.fingerprint import Item, Label, WorldShape, render

STOCK, FACTOR = "stock", "factor"
#: The tables a near duplicate may differ in (each masked whole, cell by cell, in turn).
TABLES = ("matrix", "changes", "noise", "initial_prices")
_PLAIN = {"matrix", "changes", "noise", "initial_prices", "stocks", "factors", "news"}


def items(world: Mapping[str, Any]) -> list[Item]:
    """One item per stock and per factor."""
    return ([(STOCK, i) for i in range(len(world["stocks"]))]
            + [(FACTOR, j) for j in range(len(world["factors"]))])


def _column(rows: list[list[Any]] | None, j: int) -> list[Any]:
    return [row[j] for row in rows or []]


def _news(world: Mapping[str, Any], labels: Mapping[Item, Label]) -> list[list[str]] | None:
    """Each day's news with factor names replaced by labels, its items as a multiset."""
    news = world.get("news")
    if news is None:
        return None
    index = {name: j for j, name in enumerate(world["factors"])}
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, sorted(index, key=len,
                                                                   reverse=True))) + r")\b")

    def name(found: re.Match[str]) -> str:
        return f"<{labels[(FACTOR, index[found.group(1)])]}>"

    return [sorted(pattern.sub(name, part) for part in str(day).split(" | ")) for day in news]


def relabel(world: Mapping[str, Any], labels: Mapping[Item, Label]) -> dict[str, Any]:
    """The world as labelled factors (changes column) and labelled stocks (price, noise
    column, matrix row by factor label), each sorted: multisets while labels tie."""
    nf = len(world["factors"])
    factors = [[labels[(FACTOR, j)], _column(world["changes"], j)] for j in range(nf)]
    stocks = []
    for i in range(len(world["stocks"])):
        row = sorted(([labels[(FACTOR, j)], world["matrix"][i][j]] for j in range(nf)),
                     key=render)
        stocks.append([labels[(STOCK, i)], world["initial_prices"][i],
                       _column(world["noise"], i), row])
    out = {k: v for k, v in world.items() if k not in _PLAIN}
    out.update(factors=sorted(factors, key=render), stocks=sorted(stocks, key=render),
               news=_news(world, labels))
    return out


def signature(world: Mapping[str, Any], item: Item, labels: Mapping[Item, Label]) -> Any:
    """What refinement sees of a stock (price, noise column, matrix row by factor label) or of
    a factor (changes column, matrix column by stock label)."""
    kind, k = item
    if kind == FACTOR:
        column = sorted(([labels[(STOCK, i)], row[k]] for i, row in enumerate(world["matrix"])),
                        key=render)
        return [_column(world["changes"], k), column]
    row = sorted(([labels[(FACTOR, j)], v] for j, v in enumerate(world["matrix"][k])),
                 key=render)
    return [world["initial_prices"][k], _column(world["noise"], k), row]


def _masked(value: Any) -> Any:
    return [_masked(v) for v in value] if isinstance(value, list) else None


def near(world: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """The world with one table blanked (same shape, every cell null), per table."""
    return [(table, {**world, table: _masked(world[table])}) for table in TABLES]


SHAPE = WorldShape(items=items, relabel=relabel, signature=signature, near=near,
                   symmetry="stock order and factor order (days keep their order)")
