"""AI Trading v5: knowledge graded on the place the agent names as tomorrow's best, every day.

The transition, price and trade rules are v1's (:mod:`.game_v1`, frozen). v5 adds one optional
action key, ``"expect"``: the place (``"cash"`` or a stock) the agent expects to gain most by
tomorrow. The knowledge score grades that named place every day, whatever the book does, so no
allocation rule applied to a fixed forecast moves it (see :class:`TradingGameV5`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

import numpy as np

from arena_gen.core.game import ActionError, Event
from arena_gen.core.task import RubricItem
from arena_gen.envs.trading.game_v1 import (
    BASE_RUBRIC,
    Book,
    Order,
    TradingFacts,
    TradingGame,
    parse_order,
)
from arena_gen.envs.trading.game_v3 import KNOWLEDGE_ITEM, TradingFactsV3
from arena_gen.envs.trading.game_v4 import BookV4, TradingGameV4

__all__ = ["CASH", "EXPECT_KEY", "HOPELESS_MARGIN", "BookV5", "DayGrades", "OrderV5",
           "TradingGameV5", "day_credit", "day_grades", "day_scale", "knowledge_of_v5",
           "parse_order_v5"]

#: The action key naming the place expected to gain most by tomorrow.
EXPECT_KEY = "expect"
#: The name of cash as a place.
CASH = "cash"
#: How far below the knowledge bar the best reachable score must be before a book is called
#: hopeless: the score is rounded to 6 decimals and its sums run in another order.
HOPELESS_MARGIN = 1e-6


@dataclass
class OrderV5(Order):
    """A v5 action: v1's order plus the named place (0 cash, ``i + 1`` stock ``i``; None if
    the action names none)."""

    expect: int | None = None


def parse_order_v5(text: str, stocks: list[str]) -> OrderV5:
    """Parse a v5 action (v1's grammar plus ``"expect"``), or raise ValueError with a one-line
    reason (nothing may execute)."""
    try:
        data = json.loads(text.strip())
    except (ValueError, RecursionError):
        data = None
    named = data.pop(EXPECT_KEY, None) if isinstance(data, dict) else None
    places = [CASH, *stocks]
    if named is not None and (not isinstance(named, str) or named not in places):
        raise ValueError(f"'{EXPECT_KEY}' must name {CASH!r} or a stock ({stocks[0]} to "
                         f"{stocks[-1]}), got {str(named)[:30]!r}")
    try:  # v1's grammar and its messages for the rest
        order = parse_order(text if data is None else json.dumps(data), stocks)
    except RecursionError:
        raise ValueError("the action is nested too deeply") from None
    except ValueError as exc:
        if str(exc).startswith("unknown key"):
            raise ValueError(f"{str(exc).split(';')[0]}; use only 'buy', 'sell' and "
                             f"'{EXPECT_KEY}'") from None
        raise
    return OrderV5(sells=order.sells, buys=order.buys,
                   expect=None if named is None else places.index(named))


def day_scale(returns: np.ndarray) -> float:
    """A day's scale: the best place's true expected return over the average place's (what
    naming the best earns; no action changes it)."""
    return float(returns.max()) - float(returns.mean())


def day_credit(values: np.ndarray, returns: np.ndarray, expect: int | None) -> tuple[float, float]:
    """One day's (credit, scale): the true expected return of the named place over the
    average place's, and the best place's over the average (what naming the best earns).

    ``returns`` and ``values`` are per place, cash first. With no named place the day grades
    the place holding most of the book after the trade (several at the same value: their
    mean), so a book that names nothing and spreads evenly earns about 0 on a day that
    counts."""
    mean = float(returns.mean())
    scale = float(returns.max()) - mean  # day_scale's, from the mean already taken
    if expect is not None:
        return float(returns[expect]) - mean, scale
    if float(values.sum()) <= 0:
        return 0.0, scale
    top = values >= float(values.max())
    return float(returns[top].mean()) - mean, scale


@dataclass(frozen=True)
class DayGrades:
    """What every book of one day is graded against, computed once per day (the same
    expressions :func:`~.game_v4.day_terms` and :func:`day_credit` evaluate per book)."""

    returns: np.ndarray
    mean: float
    scale: float
    excess: np.ndarray
    ranked: np.ndarray
    best_excess: float
    near: np.ndarray

    @classmethod
    def of(cls, returns: np.ndarray, tolerance: float) -> DayGrades:
        mean = float(returns.mean())
        excess = returns - float(returns.mean())
        return cls(returns=returns, mean=mean, scale=float(returns.max()) - mean, excess=excess,
                   ranked=np.sort(excess)[::-1], best_excess=float(excess.max()),
                   near=float(returns.max()) - returns <= tolerance)


@lru_cache(maxsize=8192)
def _grades_of(returns: bytes, tolerance: float) -> DayGrades:
    """A day's :class:`DayGrades` by the bytes of its returns: a game is built again for
    every episode of a task (ladder rungs, attempts, the random bound), its days the same."""
    grades = DayGrades.of(np.frombuffer(returns, dtype=float).copy(), tolerance)
    for shared in (grades.returns, grades.excess, grades.ranked, grades.near):
        shared.flags.writeable = False  # shared by every game of the day's world
    return grades


def day_grades(values: np.ndarray, kept: np.ndarray, g: DayGrades, expect: int | None
               ) -> tuple[float, float, float, float, float, float]:
    """One day's v4 ``day_terms`` (edge, judged room, room, scale) and v5 ``day_credit``
    (credit, scale) of a book, bit for bit, with the day's fixed parts from ``g``."""
    total = float(values.sum())
    if expect is not None:
        credit = float(g.returns[expect]) - g.mean
    elif total <= 0:
        credit = 0.0
    else:
        credit = float(g.returns[values >= float(values.max())].mean()) - g.mean
    if total <= 0:
        return 0.0, 0.0, 0.0, 0.0, credit, g.scale
    w = values / total
    matched = np.empty_like(g.excess)
    matched[np.argsort(-w, kind="stable")] = g.ranked
    judged = w - np.where(g.near & (matched > g.excess), kept / total, 0.0)
    judged_room = float(judged @ matched)
    return (min(float(judged @ g.excess), judged_room), judged_room, float(w @ matched),
            g.best_excess, credit, g.scale)


@dataclass(frozen=True)
class BookV5(BookV4):
    """A v5 state: v4's sums plus the v5 credit and scale over the days so far."""

    credit: float = 0.0
    weight: float = 0.0


def knowledge_of_v5(book: BookV5) -> tuple[float, float]:
    """(knowledge, exposure): ``credit / weight`` (0 when no day had a best place) and v3's
    ``room / scale``."""
    knowledge = book.credit / book.weight if book.weight > 0 else 0.0
    exposure = book.room / book.scale if book.scale > 0 else 0.0
    return knowledge, exposure


class TradingGameV5(TradingGameV4):
    """AI Trading, v5: knowledge graded on the place named as tomorrow's best, every day.

    Description:
        As :class:`TradingGameV4` (v1's transition, price and trade rules).
    Action Space:
        v1's JSON order plus one optional key, ``"expect"``: ``"cash"`` or a stock symbol,
        the place the agent expects to gain most by tomorrow (it trades nothing). A value that
        names no place rejects the whole action (a hold), like any malformed action.
    Observation:
        As :class:`TradingGameV4`.
    Starting State:
        As :class:`TradingGameV4`: day 0, all cash.
    Rewards:
        As :class:`TradingGameV4`: the day's change in total value.
    Episode End:
        As :class:`TradingGameV4`: terminated at day ``horizon``.
    Information:
        As :class:`TradingGameV4` (``knowledge`` and ``exposure`` at the horizon only).
    Rubric:
        ``profitable``, ``beats_hold`` and ``knows_the_map``. Each day, with ``r`` the true
        expected returns to tomorrow (cash 0, stock i ``(W dF)_i / p_i``, noise ignored), the
        day's *credit* is ``r[named] - mean(r)`` for the place the action names (a rejected
        action, or one that names none: the place holding most of the book after the trade;
        several at the same value: their mean), its *scale* ``max(r) - mean(r)``.
        ``knowledge = sum(credit) / sum(scale)``: 1 when the named place is always the best,
        0 for chance; every day counts whatever the book does, so spreading the money on
        uncertain days neither removes them from the score nor raises it, and how the money
        is split does not enter. ``exposure`` is v3's. The item needs ``knowledge >= 1 -
        knowledge_regret`` and ``exposure >= min_exposure``; the money still has to earn
        (``profitable``, ``beats_hold``). Success: all three met.
    Arguments:
        ``task``: a trading v5 task or Draft (its ``params`` hold v4's thresholds).
    Version History:
        v1-v4: see :class:`TradingGameV4`.
        v5: knowledge graded on the place the agent names each day (``"expect"``), every day
        counting, instead of the book's order over the days it staked. Why (#38): under v4 an
        even spread scores 0 in both the numerator and the denominator, so uncertain days
        stopped counting: the ladder's own ridge forecaster, spreading evenly on its unsure
        days, passed 60 of 90 v4 Lite tasks against the all-in rung's 47 (seeds 32-34), and
        any book-only score either lets abstaining gain or makes it cost a trader told W who
        spreads while warming up. Figures in docs/envs/trading.md.
    """

    def initial(self) -> BookV5:
        return BookV5(day=0, cash=self.initial_cash, holdings=(0,) * len(self.stocks))

    def parse(self, text: str) -> OrderV5:
        try:
            return parse_order_v5(text, self.stocks)
        except ValueError as exc:
            raise ActionError(str(exc)) from None

    def _credited(self, before: Book, after: Book, expect: int | None) -> BookV5:
        """v4's book ``after`` with the day's v5 credit and scale added."""
        values, _, returns = self.day_book(before, after)
        credit, scale = day_credit(values, returns, expect)
        assert isinstance(after, BookV4)
        return BookV5(day=after.day, cash=after.cash, holdings=after.holdings,
                      refused=after.refused, edge=after.edge, judged=after.judged,
                      room=after.room, scale=after.scale,
                      credit=getattr(before, "credit", 0.0) + credit,
                      weight=getattr(before, "weight", 0.0) + scale)

    def _judged(self, before: Book, after: Book, expect: int | None) -> BookV5:
        """v1's book ``after`` with v4's sums (:meth:`_scored`) and v5's credit and scale
        (:meth:`_credited`) added, from one day book and the day's :class:`DayGrades`."""
        grades: list[DayGrades | None] | None = getattr(self, "_grades", None)
        if grades is None:
            grades = [None] * len(self._returns)
            self._grades = grades
        g = grades[before.day]
        if g is None:
            returns = np.ascontiguousarray(self._returns[before.day], dtype=float)
            g = grades[before.day] = _grades_of(returns.tobytes(), self.tolerance)
        values, kept, _ = self.day_book(before, after)
        edge, judged, room, scale, credit, weight = day_grades(values, kept, g, expect)
        return BookV5(day=after.day, cash=after.cash, holdings=after.holdings,
                      refused=after.refused, edge=getattr(before, "edge", 0.0) + edge,
                      judged=getattr(before, "judged", 0.0) + judged,
                      room=getattr(before, "room", 0.0) + room,
                      scale=getattr(before, "scale", 0.0) + scale,
                      credit=getattr(before, "credit", 0.0) + credit,
                      weight=getattr(before, "weight", 0.0) + weight)

    def step(self, state: Book, action: Order) -> tuple[Book, Event]:
        after, event = TradingGame.step(self, state, action)  # v1's transition, as v3's
        return self._judged(state, after, getattr(action, "expect", None)), event

    def reject(self, state: Book, error: ActionError) -> tuple[Book, Event]:
        after, event = TradingGame.reject(self, state, error)
        return self._judged(state, after, None), event

    def hopeless(self, state: Book) -> bool:
        """True when the knowledge item is out of reach: no day's credit exceeds its scale, so
        the credit so far plus every later day's scale bounds the final credit."""
        regret = (getattr(self.task, "params", None) or {}).get("knowledge_regret")
        if regret is None or not isinstance(state, BookV5) or state.day >= self.horizon:
            return False
        later = self._later_scales()
        if later[0] <= 0:
            return False
        best = (state.credit + later[state.day]) / later[0]
        return best < 1.0 - float(regret) - HOPELESS_MARGIN

    def _later_scales(self) -> list[float]:
        """Per day, the scale of that day and every later one (the first: the whole weight)."""
        kept: list[float] | None = getattr(self, "_later", None)
        if kept is None:
            kept = [0.0] * (self.horizon + 1)
            for day in range(self.horizon - 1, -1, -1):
                kept[day] = kept[day + 1] + day_scale(self._returns[day])
            self._later = kept
        return kept

    def facts(self, state: Book) -> TradingFacts:
        """v4's facts, with v5's knowledge score at the horizon."""
        base = super().facts(state)
        if not isinstance(base, TradingFactsV3) or base.knowledge is None or not isinstance(
                state, BookV5):
            return base
        knowledge, exposure = (round(x, 6) for x in knowledge_of_v5(state))
        return replace(base, knowledge=knowledge, exposure=exposure)

    @classmethod
    def rubric(cls, params: Mapping[str, Any], world: Mapping[str, Any]) -> list[RubricItem]:
        """v1's first two items and the v5 knowledge item, with the task's thresholds."""
        regret, exposure = float(params["knowledge_regret"]), float(params["min_exposure"])
        return [*BASE_RUBRIC, RubricItem(
            KNOWLEDGE_ITEM, f"Knowledge of the factor map, every day counting: each day "
                            f"name the place you expect to gain most by tomorrow with "
                            f"\"{EXPECT_KEY}\" (\"{CASH}\" or a stock; it trades nothing). "
                            f"It is graded against the true expected returns (factor matrix "
                            f"x exact changes, noise ignored): the named place's return over "
                            f"the average place's, summed over the days, divided by the "
                            f"best place's, summed (1 = always the best, 0 = chance). A day "
                            f"that names nothing is graded on the place holding most of your "
                            f"money after the trade. The score must be at least "
                            f"{1 - regret:g}, and the exposure at least {exposure:g} (1 = "
                            f"all-in every day, 0 = spread evenly).")]
