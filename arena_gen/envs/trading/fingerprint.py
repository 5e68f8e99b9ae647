"""The fingerprint of a trading world: its stocks and its factors may be reordered.

Stocks and factors are named by position (``S0``, ``F0``), so putting stock i at position p(i)
(its price, its noise column and its row of the factor matrix moving together), or factor j at
q(j) (its column of the matrix, its column of the daily changes and its place in the news),
gives the same market under other names. The canonical form relabels both; the days keep their
order (time is not a symmetry). A near duplicate is a world equal up to that relabelling except
for one whole table: the factor matrix, the daily changes, the noise or the initial prices.
A v6 world's ``regimes`` (later factor matrices and their start days) relabel with the rest:
each stock carries its row of every regime's matrix; a world without them renders as before.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from arena_gen.core.fingerprint import Item, Label, WorldShape, render
from arena_gen.envs.trading.game_v6 import REGIMES

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


def _regime_matrices(world: Mapping[str, Any]) -> list[Any]:
    """The matrix of every regime after the first (None where masked); [] without regimes."""
    return [c.get("matrix") if isinstance(c, Mapping) else None
            for c in world.get(REGIMES) or []]


def _row(matrix: Any, i: int, labels: Mapping[Item, Label]) -> Any:
    """Stock i's row of a matrix, keyed and sorted by factor label (None if masked)."""
    if matrix is None:
        return None
    return sorted(([labels[(FACTOR, j)], v] for j, v in enumerate(matrix[i])), key=render)


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
    later = _regime_matrices(world)
    for i in range(len(world["stocks"])):
        row = sorted(([labels[(FACTOR, j)], world["matrix"][i][j]] for j in range(nf)),
                     key=render)
        stocks.append([labels[(STOCK, i)], world["initial_prices"][i],
                       _column(world["noise"], i), row,
                       *[_row(m, i, labels) for m in later]])
    out = {k: v for k, v in world.items() if k not in _PLAIN}
    if REGIMES in world:
        out[REGIMES] = [c.get("day") if isinstance(c, Mapping) else None
                        for c in world[REGIMES] or []]
    out.update(factors=sorted(factors, key=render), stocks=sorted(stocks, key=render),
               news=_news(world, labels))
    return out


def signature(world: Mapping[str, Any], item: Item, labels: Mapping[Item, Label]) -> Any:
    """What refinement sees of a stock (price, noise column, matrix rows by factor label) or of
    a factor (changes column, matrix columns by stock label), every regime's matrix included."""
    kind, k = item
    later = _regime_matrices(world)
    if kind == FACTOR:
        columns = [None if m is None else
                   sorted(([labels[(STOCK, i)], row[k]] for i, row in enumerate(m)), key=render)
                   for m in [world["matrix"], *later]]
        return [_column(world["changes"], k), *columns]
    return [world["initial_prices"][k], _column(world["noise"], k),
            *[_row(m, k, labels) for m in [world["matrix"], *later]]]


def _masked(value: Any) -> Any:
    return [_masked(v) for v in value] if isinstance(value, list) else None


def near(world: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """The world with one table blanked (same shape, every cell null), per table; a world with
    regimes also with their days and matrices blanked."""
    tables = [*TABLES, REGIMES] if world.get(REGIMES) else TABLES
    return [(table, {**world, table: _masked(world[table])}) for table in tables]


SHAPE = WorldShape(items=items, relabel=relabel, signature=signature, near=near,
                   symmetry="stock order and factor order (days keep their order)")
