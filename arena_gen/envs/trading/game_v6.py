"""AI Trading v6: v5's rules and knowledge score, with hidden regime changes of the factor map.

A v6 world may carry ``regimes``: a list of ``{"day": d, "matrix": W}``, each a factor matrix
that moves the prices from day ``d`` on (the move from day ``d`` to ``d + 1`` and later), until
the next one; ``matrix`` is the map of the first regime, from day 0. A world without
``regimes`` is a v5 world and plays exactly as v5 plays it. The price rule is v1's
(:func:`~.game_v1.price_path`), applied regime by regime from where the last one left the
prices, so the one price rule keeps its one owner (see :class:`TradingGameV6`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from arena_gen.core.game import ActionError, Event, TaskLike
from arena_gen.core.probes import Probe
from arena_gen.core.task import RubricItem
from arena_gen.envs.trading.game_v1 import Book, Order, TradingGame, price_deltas, price_path
from arena_gen.envs.trading.game_v3 import KNOWLEDGE_ITEM
from arena_gen.envs.trading.game_v5 import BookV5, TradingGameV5

__all__ = ["REGIMES", "TradingGameV6", "price_path_v6", "regime_at",
           "regime_starts", "segments"]

#: The world key holding the regime changes (absent: one regime, a v5 world).
REGIMES = "regimes"


def regime_starts(world: Mapping[str, Any]) -> list[int]:
    """The first day of every regime: 0, then each change's day (validated: increasing,
    inside the horizon)."""
    horizon = len(world["changes"])
    starts = [0]
    for k, change in enumerate(world.get(REGIMES) or []):
        day = change.get("day") if isinstance(change, Mapping) else None
        if not isinstance(day, int) or isinstance(day, bool) or not starts[-1] < day < horizon:
            raise ValueError(f"world.{REGIMES}[{k}].day must be a whole day after "
                             f"{starts[-1]} and before the horizon {horizon}, got {day!r}")
        starts.append(day)
    return starts


def segments(world: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The world cut at its regime changes: one v1 world per regime (its matrix, changes and
    noise rows), in day order."""
    starts = regime_starts(world)
    matrices = [world["matrix"], *(c["matrix"] for c in world.get(REGIMES) or [])]
    ends = [*starts[1:], len(world["changes"])]
    return [{"matrix": m, "changes": world["changes"][a:b], "noise": world["noise"][a:b]}
            for m, a, b in zip(matrices, starts, ends, strict=True)]


def regime_at(world: Mapping[str, Any], day: int) -> int:
    """The index of the regime whose map moves the prices from ``day`` to ``day + 1`` (the
    last one at or after the horizon)."""
    return sum(1 for s in regime_starts(world)[1:] if s <= day)


def price_path_v6(world: Mapping[str, Any]) -> tuple[np.ndarray, bool]:
    """Prices of days 0..D and whether the floor applied: v1's price rule on each regime in
    turn, each starting from the prices the last one ended at (one regime: v1's path)."""
    parts = segments(world)
    start: Any = world["initial_prices"]
    rows: list[np.ndarray] = []
    floored = False
    for part in parts:
        path, hit = price_path({**part, "initial_prices": start})
        rows.append(path if not rows else path[1:])
        floored = floored or hit
        start = path[-1]
    return np.vstack(rows), floored


class TradingGameV6(TradingGameV5):
    """AI Trading, v6: v5's game on worlds whose factor map changes at hidden days.

    Description:
        As :class:`TradingGameV5`, except that the factor matrix W may change: a world's
        ``regimes`` list the days from which a new matrix moves the prices
        (``p(t+1) = max(p(t) + W_k @ dF(t+1) + noise(t+1), 0.1)`` for the regime ``k`` holding
        day ``t``). The days and the matrices are hidden (the with-rules text states them);
        the public intro says that the map changes a few times at days not announced.
    Action Space:
        As :class:`TradingGameV5` (v1's JSON order plus the optional ``"expect"``).
    Observation:
        As :class:`TradingGameV5`.
    Starting State:
        As :class:`TradingGameV5`: day 0, all cash.
    Rewards:
        As :class:`TradingGameV5`: the day's change in total value.
    Episode End:
        As :class:`TradingGameV5`: terminated at day ``horizon``.
    Information:
        As :class:`TradingGameV5` (``knowledge`` and ``exposure`` at the horizon only).
    Rubric:
        v5's, stated for regimes: each day's true expected returns ``r`` come from the factor
        matrix in force that day (cash 0, stock i ``(W_k dF)_i / p_i``), so a trader that
        keeps the old map after a change names the wrong places until it re-learns.
        ``knowledge = sum(credit) / sum(scale)`` of the named place (a day naming none: the
        place holding most of the book), every day counting; ``exposure``, ``profitable`` and
        ``beats_hold`` as in v5.
    Probes:
        v5's ``move_sign`` and ``move_rank``, answered from the map of the regime holding the
        state's day (the moves the next news would cause from there).
    Arguments:
        ``task``: a trading v6 task or Draft (v5's ``params``; with regimes, also
        ``regimes`` and ``min_regime_days``).
    Version History:
        v1-v5: see :class:`TradingGameV5`.
        v6: (a preview) the factor map may change at hidden days (Challenge: 2-4 regimes of
        at least 150 days over 1,000 days), the knowledge score graded against the map in
        force each day; a world without changes plays as v5 (Lite's worlds are v5's). Why
        (#42): the paper's Challenge runs 1,000+ steps, and over 1,000 days of one fixed map
        a learner amortises its first days and matches its Lite rate (v3's finding); a map
        that changes makes it detect the change and learn again. Figures in
        docs/envs/trading.md.
    """

    def __init__(self, task: TaskLike) -> None:
        super().__init__(task)
        world = task.world
        self.starts = regime_starts(world)
        for k, change in enumerate(world.get(REGIMES) or []):  # a hostile world, named
            rows = change["matrix"]
            if len(rows) != len(self.stocks) or any(len(r) != len(self.factors) for r in rows):
                raise ValueError(f"world.{REGIMES}[{k}].matrix: {len(self.stocks)} rows of "
                                 f"{len(self.factors)} values needed")
        self.prices, self.floored = price_path_v6(world)
        self._rows = self.prices.tolist()
        parts = segments(world)
        moves = np.vstack([price_deltas({**p, "noise": np.zeros((len(p["changes"]),
                                                                  len(self.stocks)))})
                           for p in parts])
        returns = moves / self.prices[:-1]
        self._returns = [np.concatenate([[0.0], row]) for row in returns]
        self._day_tables()
        self._maps = [p["matrix"] for p in parts]
        self._probe_day = 0

    # -- the knowledge sums: v5's credit and v3's room and scale, one pass a day -------------

    def _day_tables(self) -> None:
        """Per day, as Python floats: the returns, their mean, the best excess return and the
        excess returns sorted best first (what every book of the day is graded against)."""
        table = np.array(self._returns)
        means = table.mean(axis=1)
        excess = table - means[:, None]
        self._r_rows: list[list[float]] = table.tolist()
        self._means: list[float] = means.tolist()
        self._scales: list[float] = excess.max(axis=1).tolist()
        self._ranked: list[list[float]] = (-np.sort(-excess, axis=1)).tolist()

    def _lean(self, before: Book, after: Book, expect: int | None) -> BookV5:
        """``after`` (v1's book) with v5's credit and weight and v3's room and scale added
        (v4's judged sums are not kept: no v5 or v6 score reads them). The same terms as
        :func:`~.game_v5.day_credit` and v4's ``day_terms`` (room, scale), in plain floats: a
        day's book has at most 17 places, where array calls cost more than the arithmetic."""
        day = before.day
        values = [after.cash, *(h * p for h, p in zip(after.holdings, self._rows[day],
                                                      strict=True))]
        returns, mean, scale = self._r_rows[day], self._means[day], self._scales[day]
        total = sum(values)
        room = 0.0
        if expect is not None:
            credit = returns[expect] - mean
        elif total > 0:
            top = max(values)
            picked = [r for r, v in zip(returns, values, strict=True) if v >= top]
            credit = sum(picked) / len(picked) - mean
        else:
            credit = 0.0
        if total > 0:
            order = sorted(range(len(values)), key=lambda i: -values[i])
            room = sum(values[i] / total * e for i, e in zip(order, self._ranked[day],
                                                            strict=True))
        return BookV5(day=after.day, cash=after.cash, holdings=after.holdings,
                      refused=after.refused,
                      room=getattr(before, "room", 0.0) + room,
                      scale=getattr(before, "scale", 0.0) + (scale if total > 0 else 0.0),
                      credit=getattr(before, "credit", 0.0) + credit,
                      weight=getattr(before, "weight", 0.0) + scale)

    def step(self, state: Book, action: Order) -> tuple[Book, Event]:
        after, event = TradingGame.step(self, state, action)
        return self._lean(state, after, getattr(action, "expect", None)), event

    def reject(self, state: Book, error: ActionError) -> tuple[Book, Event]:
        after, event = TradingGame.reject(self, state, error)
        return self._lean(state, after, None), event

    @classmethod
    def rubric(cls, params: Mapping[str, Any], world: Mapping[str, Any]) -> list[RubricItem]:
        """v5's items; with regimes, the knowledge item says the map in force each day counts."""
        items = TradingGameV5.rubric(params, world)
        if not world.get(REGIMES):
            return items
        knows = items[-1]
        text = knows.text.replace(
            "(factor matrix x exact changes, noise ignored)",
            "(the factor matrix in force that day x exact changes, noise ignored; the matrix "
            "changes at a few days that are not announced)")
        return [*items[:-1], RubricItem(KNOWLEDGE_ITEM, text)]

    # -- probes: the map of the regime holding the state's day ---------------------------

    def expected_moves(self, news: Sequence[float]) -> np.ndarray:
        """Tomorrow's moves under ``news`` by the map in force on the probed state's day."""
        one_day = {"matrix": self._maps[regime_at(self.task.world, self._probe_day)],
                   "changes": [[float(x) for x in news]], "noise": [[0.0] * len(self.stocks)]}
        return price_deltas(one_day)[0]

    def probes(self, state: Book, visited: Sequence[Book], rng: np.random.Generator,
               count: int) -> list[Probe]:
        """v5's questions about the map in force on ``state``'s day."""
        self._probe_day = min(state.day, self.horizon - 1)
        return super().probes(state, visited, rng, count)

    def probe_answer(self, state: Book, probe: Probe) -> str:
        """v5's answer, from the map in force on ``state``'s day."""
        self._probe_day = min(state.day, self.horizon - 1)
        return super().probe_answer(state, probe)

