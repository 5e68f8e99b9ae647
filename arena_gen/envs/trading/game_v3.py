"""AI Trading v3: the v1 rules, with success measured as knowledge of W, whatever the allocation.

The transition, price and trade rules are v1's (:mod:`.game_v1`, frozen); the state also keeps
three running sums of what the agent's exposure earns in *expectation* under the true factor
map (the knowledge score), and the rubric's third item reads them (see :class:`TradingGameV3`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena_gen.core.game import ActionError, Check, Event, TaskLike
from arena_gen.core.task import RubricItem
from arena_gen.envs.trading.game_v1 import (
    BASE_RUBRIC,
    BEATS_HOLD,
    PROFITABLE,
    Book,
    Order,
    TradingFacts,
    TradingGame,
)

#: The v3 rubric item: the agent's exposure is ordered by the true expected returns.
KNOWLEDGE_ITEM = "knows_the_map"
#: Fees per unit of kept money credited to a day's edge: a switch is a sell and a buy.
STAY_CREDIT_FEES = 2.0


@dataclass(frozen=True)
class BookV3(Book):
    """A v3 state: v1's book plus the knowledge sums over the days traded so far.

    Per day (after the day's trade, at that day's prices), with ``w`` the book's weights over
    cash and the stocks and ``r`` their true expected returns to tomorrow (cash 0, stock i
    ``(W dF)_i / p_i``, noise has mean 0): ``edge`` adds ``w.r - mean(r)``, ``room`` adds
    ``sorted(w).sorted(r) - mean(r)`` (the best arrangement of the same weights) and ``scale``
    adds ``max(r) - mean(r)`` (all-in on the best). With a fee, the day's edge is credited up
    to the round-trip fee (``2 x cost_rate``) on the share of the book that stayed in its
    stocks, never above the day's room."""

    edge: float = 0.0
    room: float = 0.0
    scale: float = 0.0


@dataclass(frozen=True)
class TradingFactsV3(TradingFacts):
    """v1's facts plus the knowledge score and the exposure (both None before the horizon, so
    no running score is a signal about W)."""

    knowledge: float | None = None
    exposure: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """v1's dict plus the two v3 keys."""
        out = super().to_dict()
        out["knowledge"] = self.knowledge
        out["exposure"] = self.exposure
        return out


def knowledge_of(book: BookV3) -> tuple[float, float]:
    """(knowledge, exposure) of a book's sums: ``edge / room`` (0 without room) and
    ``room / scale`` (0 without scale)."""
    knowledge = book.edge / book.room if book.room > 0 else 0.0
    exposure = book.room / book.scale if book.scale > 0 else 0.0
    return knowledge, exposure


class TradingGameV3(TradingGame):
    """AI Trading, v3: the same rules and observations; success is knowledge of the factor map.

    Description:
        As :class:`TradingGame`: ``p(t+1) = max(p(t) + W @ dF(t+1) + noise(t+1), 0.1)``, the
        news of tomorrow's changes shown today (the same transition, price and trade rules).
    Action Space:
        As :class:`TradingGame` (one JSON ``buy``/``sell`` object per day).
    Observation:
        As :class:`TradingGame`.
    Starting State:
        As :class:`TradingGame`: day 0, all cash.
    Rewards:
        As :class:`TradingGame`: the day's change in total value.
    Episode End:
        As :class:`TradingGame`: terminated at day ``horizon``.
    Information:
        As :class:`TradingGame`, plus ``knowledge`` and ``exposure`` at the horizon (None
        before it); the ladder value of a state is its profit rate.
    Rubric:
        ``profitable`` and ``beats_hold`` as in v1; ``knows_the_map`` replaces v2's
        ``planner_growth``. Each day, after the agent's trade, the book's weights ``w`` over
        cash and the stocks meet the true expected returns ``r`` to tomorrow (cash 0, stock i
        ``(W dF)_i / p_i``: the factor map times the exact changes, over the price; the noise
        has mean 0 and is ignored). The day's *edge* is ``w.r - mean(r)``, its *room* the edge
        of the same weights arranged best (largest weight on the best return, and so on), its
        *scale* ``max(r) - mean(r)``. ``knowledge = sum(edge) / sum(room)`` (1: every day the
        money sits in order of the true returns, whatever the split; 0: no better than
        chance), ``exposure = sum(room) / sum(scale)`` (1: all-in every day; 0: money spread
        evenly, nothing staked on a view). With a fee, money that stayed in its stocks is
        credited up to the round-trip fee it saved (``2 x cost_rate`` of its share, the day's
        edge never above its room): a trader who skips a switch worth less than the fee is not
        blamed for it. The item needs ``knowledge >= 1 -
        knowledge_regret`` and ``exposure >= min_exposure`` (task parameters, in the rubric
        text). All three at the horizon only. Success: all three met.
    Arguments:
        ``task``: a trading v3 task or Draft (its ``params`` hold ``knowledge_regret`` and
        ``min_exposure``).
    Version History:
        v1: initial release; success needed half the perfect-foresight oracle's profit.
        v2: success from the W-known planner's log growth (``planner_growth``).
        v3: success from the knowledge score, which does not depend on how an agent splits its
        money: on v2 a trader told W that splits across its best two or three stocks earns
        0.6-0.7 of the all-in planner's log growth and fails most tasks, while a rough ridge
        estimate all-in passes; the v3 score gives every W-known allocation about 1 and the
        learners what they learnt; with a fee, kept money is credited up to the round-trip fee
        (a knowing trader that switches only past the fee kept yesterday's stock for days and
        passed 63 % of 300-day Challenge tasks). Figures in docs/envs/trading.md.
    """

    def __init__(self, task: TaskLike) -> None:
        super().__init__(task)
        world = task.world
        matrix = np.asarray(world["matrix"], dtype=float)
        changes = np.asarray(world["changes"], dtype=float)
        moves = np.zeros((changes.shape[0], matrix.shape[0]))
        for f in range(matrix.shape[1]):  # factor order, as the price rule sums
            moves = moves + changes[:, f:f + 1] * matrix[:, f]
        returns = moves / self.prices[:-1]
        #: Per day: the true expected returns of cash (0) and every stock to the next day.
        self._returns: list[np.ndarray] = [np.concatenate([[0.0], row]) for row in returns]

    def initial(self) -> BookV3:
        return BookV3(day=0, cash=self.initial_cash, holdings=(0,) * len(self.stocks))

    def _scored(self, before: Book, after: Book) -> BookV3:
        """``after`` with the day's knowledge sums added (its book at ``before``'s prices)."""
        prices = self._rows[before.day]
        values = np.array([after.cash, *(h * p for h, p in zip(after.holdings, prices,
                                                                strict=True))])
        total = float(values.sum())
        edge, room, scale = (getattr(before, k, 0.0) for k in ("edge", "room", "scale"))
        if total > 0:
            w = values / total
            r = self._returns[before.day]
            mean = float(r.mean())
            best = float(np.sort(w)[::-1] @ np.sort(r)[::-1]) - mean
            day = float(w @ r) - mean
            # Money left where it was is not blamed for a gain smaller than the round-trip fee
            # moving it would have cost: the day's edge is credited up to that fee on the
            # share of the book that stayed in its stocks (never above the day's room).
            kept = sum(min(a, b) * p for a, b, p in zip(before.holdings, after.holdings, prices,
                                                        strict=True)) / total
            credit = STAY_CREDIT_FEES * self.cost_rate * kept
            if credit > 0:
                day = min(day + credit, best)
            edge += day
            room += best
            scale += float(r.max()) - mean
        return BookV3(day=after.day, cash=after.cash, holdings=after.holdings,
                      refused=after.refused, edge=edge, room=room, scale=scale)

    def step(self, state: Book, action: Order) -> tuple[Book, Event]:
        after, event = super().step(state, action)
        return self._scored(state, after), event

    def reject(self, state: Book, error: ActionError) -> tuple[Book, Event]:
        after, event = super().reject(state, error)
        return self._scored(state, after), event

    def facts(self, state: Book) -> TradingFacts:
        if self._facts_of is not None and self._facts_of[0] is state:
            return self._facts_of[1]
        base = super().facts(state)
        knowledge = exposure = None
        if state.day >= self.horizon and isinstance(state, BookV3):
            knowledge, exposure = (round(x, 6) for x in knowledge_of(state))
        facts = TradingFactsV3(**{k: getattr(base, k) for k in base.__dataclass_fields__},
                               knowledge=knowledge, exposure=exposure)
        self._facts_of = (state, facts)
        return facts

    @classmethod
    def rubric(cls, params: Mapping[str, Any], world: Mapping[str, Any]) -> list[RubricItem]:
        """v1's first two items and the knowledge item, with the task's two thresholds."""
        regret, exposure = float(params["knowledge_regret"]), float(params["min_exposure"])
        fee = float(world.get("cost_rate", 0.0))
        kept = (f" Money that stays in its stocks is credited up to the round-trip fee it saves "
                f"({STAY_CREDIT_FEES * fee:g} of its value per day)." if fee > 0 else "")
        return [*BASE_RUBRIC, RubricItem(
            KNOWLEDGE_ITEM, f"Knowledge of the factor map: over the days, the money sits in "
                            f"order of the true expected returns (factor matrix x exact "
                            f"changes, noise ignored) with a knowledge score of at least "
                            f"{1 - regret:g} (1 = the best order for its split, 0 = chance) "
                            f"and an exposure of at least {exposure:g} (1 = all-in every day, "
                            f"0 = spread evenly).{kept}")]

    def checks(self, facts: TradingFacts) -> list[Check]:
        items = (PROFITABLE, BEATS_HOLD, KNOWLEDGE_ITEM)
        if facts.day < facts.horizon:
            why = f"episode stopped at day {facts.day} of {facts.horizon}"
            return [Check(item, None, why) for item in items]
        cash, value, rate = facts.initial_cash, facts.total_value, facts.profit_rate
        profitable = Check(PROFITABLE, value > cash,
                           f"final value {value:.2f} vs initial cash {cash:.2f} "
                           f"(profit {rate:+.2%})")
        certificate = getattr(self.task, "certificate", None)
        cert = certificate.facts if certificate is not None else {}
        if "hold_profit" in cert:
            hold = float(cert["hold_profit"])
            beats = Check(BEATS_HOLD, rate > hold,
                          f"profit {rate:+.2%} vs equal-weight buy-and-hold {hold:+.2%}")
        else:
            beats = Check(BEATS_HOLD, None, "the certificate records no baselines")
        params = getattr(self.task, "params", {})
        floor = 1.0 - float(params["knowledge_regret"])
        min_exposure = float(params["min_exposure"])
        knowledge = getattr(facts, "knowledge", None)
        exposure = getattr(facts, "exposure", None)
        if knowledge is None or exposure is None:
            known = Check(KNOWLEDGE_ITEM, None, "no knowledge score (not a v3 book)")
        else:
            known = Check(KNOWLEDGE_ITEM,
                          knowledge >= floor and exposure >= min_exposure and math.isfinite(
                              knowledge),
                          f"knowledge {knowledge:.3f} (needs {floor:g}), exposure "
                          f"{exposure:.3f} (needs {min_exposure:g})")
        return [profitable, beats, known]
