"""AI Trading v4: v3's knowledge score with a switching tolerance for kept money.

The transition, price and trade rules are v1's and the knowledge sums v3's (:mod:`.game_v3`,
frozen), except that money kept in a place a switch would not have paid to leave is left out
of the score: neither credit nor blame (see :class:`TradingGameV4`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import permutations
from typing import Any, ClassVar

import numpy as np

from arena_gen.core.game import TaskLike
from arena_gen.core.probes import Probe, balanced, choice_correct, letters
from arena_gen.core.task import RubricItem
from arena_gen.envs.trading.game_v1 import (
    BASE_RUBRIC,
    Book,
    TradingFacts,
    news_text,
    price_deltas,
)
from arena_gen.envs.trading.game_v3 import (
    KNOWLEDGE_ITEM,
    BookV3,
    TradingFactsV3,
    TradingGameV3,
)

__all__ = ["KNOWLEDGE_ITEM", "MOVE_RANK", "MOVE_SIGN", "BookV4", "TradingGameV4", "day_terms",
           "knowledge_of_v4", "tolerance_of"]

#: Probe kinds: the sign of one stock's move, and the order of three stocks' moves, tomorrow
#: under a given news vector (noise and the price floor ignored: exact from W).
MOVE_SIGN, MOVE_RANK = "move_sign", "move_rank"
UP_DOWN = ("up", "down")
#: Stocks ranked per ``move_rank`` probe, and the options offered (one right).
RANKED, OPTIONS = 3, 4
#: Moves closer than this to zero (or to each other) are redrawn: no answer hangs on rounding.
_MIN_GAP = 1e-6
_TRIES = 64


def tolerance_of(params: Mapping[str, Any], cost_rate: float) -> float:
    """How far behind the best place kept money may sit unjudged: the task's ``switch_margin``
    plus the
    round-trip fee (a switch is a sell and a buy); a bare world without parameters has no
    margin."""
    return float(params.get("switch_margin", 0.0)) + 2.0 * cost_rate


def day_terms(values: np.ndarray, kept: np.ndarray, returns: np.ndarray,
              tolerance: float) -> tuple[float, float, float, float]:
    """One day's (edge, judged room, room, scale) for a book worth ``values`` (cash first, then
    each stock, after the trade), of which ``kept`` stayed put, against the true expected
    ``returns``.

    Room and scale are v3's: each position is matched with the return of its weight's rank
    (largest weight with the best return). Kept money in a place whose expected return is
    within ``tolerance`` of the best place's, and short of its matched return, is left out of
    the day's edge and judged room (moving it would have gained less than a switch is worth:
    neither credit nor blame); the rest is judged as v3 judges it, the day's edge never above
    its judged room."""
    total = float(values.sum())
    if total <= 0:
        return 0.0, 0.0, 0.0, 0.0
    w = values / total
    excess = returns - float(returns.mean())
    matched = np.empty_like(excess)
    matched[np.argsort(-w, kind="stable")] = np.sort(excess)[::-1]
    near = float(returns.max()) - returns <= tolerance
    judged = w - np.where(near & (matched > excess), kept / total, 0.0)
    judged_room = float(judged @ matched)
    return (min(float(judged @ excess), judged_room), judged_room, float(w @ matched),
            float(excess.max()))


@dataclass(frozen=True)
class BookV4(BookV3):
    """A v4 state: v3's sums (``edge`` now over the judged money) plus the judged room."""

    judged: float = 0.0


def knowledge_of_v4(book: BookV4) -> tuple[float, float]:
    """(knowledge, exposure): ``edge / judged`` (0 when nothing was judged) and v3's
    ``room / scale``."""
    knowledge = book.edge / book.judged if book.judged > 0 else 0.0
    exposure = book.room / book.scale if book.scale > 0 else 0.0
    return knowledge, exposure


class TradingGameV4(TradingGameV3):
    """AI Trading, v4: v3's knowledge rubric with a tolerance for money kept in place.

    Description:
        As :class:`TradingGameV3` (v1's transition, price and trade rules).
    Action Space:
        As :class:`TradingGameV3`.
    Observation:
        As :class:`TradingGameV3`.
    Starting State:
        As :class:`TradingGameV3`: day 0, all cash.
    Rewards:
        As :class:`TradingGameV3`: the day's change in total value.
    Episode End:
        As :class:`TradingGameV3`: terminated at day ``horizon``.
    Information:
        As :class:`TradingGameV3` (``knowledge`` and ``exposure`` at the horizon only).
    Rubric:
        ``profitable``, ``beats_hold`` and ``knows_the_map`` with v3's thresholds
        (``knowledge_regret``, ``min_exposure``) and v3's exposure; the knowledge score leaves
        out money that stayed in place (the smaller of each position before and after the
        trade, cash included) whose expected return is within the tolerance ``switch_margin +
        2 x cost_rate`` of the best place's and below the return of its weight's rank: moving
        it would have gained less than a switch is worth, so it earns neither credit nor
        blame. ``knowledge = sum(edge) / sum(judged room)`` over the rest (money moved that
        day, and kept money further behind), each day's edge at most its judged room. v3's
        flat fee credit is gone (the tolerance includes the round-trip fee). Success: all
        three met.
    Probes:
        Given a news vector (each factor's change, 2 decimals, shown as a news line), with
        noise and the price floor ignored (exact from W and the game's own price rule):
        ``move_sign`` "does S2's price go up or down tomorrow?" (``up``/``down``, half each,
        chance 50 %) and ``move_rank`` "which order ranks S1, S4, S0 from the largest rise to
        the largest fall?" (four orders offered, one right, its letter balanced: ``A``-``D``,
        chance 25 %).
    Arguments:
        ``task``: a trading v4 task or Draft (its ``params`` hold ``knowledge_regret``,
        ``min_exposure`` and ``switch_margin``).
    Version History:
        v1-v3: see :class:`TradingGameV3`.
        v4: a tolerance for kept money replaces v3's flat credit of one round-trip fee. Why
        (#25): a trader told W that switches only for a forecast gain above 0.5 % of the book
        passed 92 % of v3 Lite but 20 % of Challenge (it keeps its stock through gaps the fee
        credit does not forgive), and crediting a flat 4 fees let random books pass (17 %):
        a flat credit capped at the day's room forgives a spread book everything. v4 leaves
        out, position by position, only money in a place a switch would not have paid to
        leave, and judges the rest: random and hold books score about 0. Figures in
        docs/envs/trading.md.
    """

    #: Per probe kind, what a uniform guess or a constant reply scores (answers are balanced).
    probe_chance: ClassVar[dict[str, float]] = {MOVE_SIGN: 0.5, MOVE_RANK: 1 / OPTIONS}

    def __init__(self, task: TaskLike) -> None:
        super().__init__(task)
        #: The shortfall kept money is forgiven (the task's switch margin plus the round trip).
        self.tolerance = tolerance_of(getattr(task, "params", None) or {}, self.cost_rate)

    def initial(self) -> BookV4:
        return BookV4(day=0, cash=self.initial_cash, holdings=(0,) * len(self.stocks))

    def day_book(self, before: Book, after: Book) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The day's (values after the trade, money kept in place, true expected returns), all
        at ``before``'s prices: what ``day_terms`` judges (benchmarks re-judge the same)."""
        prices = self._rows[before.day]
        values = np.array([after.cash, *(h * p for h, p in zip(after.holdings, prices,
                                                                strict=True))])
        kept = np.array([min(before.cash, after.cash),
                         *(min(a, b) * p for a, b, p in zip(before.holdings, after.holdings,
                                                            prices, strict=True))])
        return values, kept, self._returns[before.day]

    def _scored(self, before: Book, after: Book) -> BookV4:
        """``after`` with the day's knowledge sums added (its book at ``before``'s prices)."""
        values, kept, returns = self.day_book(before, after)
        sums = [getattr(before, k, 0.0) for k in ("edge", "judged", "room", "scale")]
        day = day_terms(values, kept, returns, self.tolerance)
        edge, judged, room, scale = (a + b for a, b in zip(sums, day, strict=True))
        return BookV4(day=after.day, cash=after.cash, holdings=after.holdings,
                      refused=after.refused, edge=edge, judged=judged, room=room, scale=scale)

    def facts(self, state: Book) -> TradingFacts:
        """v3's facts, with v4's knowledge score at the horizon."""
        base = super().facts(state)
        if not isinstance(base, TradingFactsV3) or base.knowledge is None or not isinstance(
                state, BookV4):
            return base
        knowledge, exposure = (round(x, 6) for x in knowledge_of_v4(state))
        return replace(base, knowledge=knowledge, exposure=exposure)

    @classmethod
    def rubric(cls, params: Mapping[str, Any], world: Mapping[str, Any]) -> list[RubricItem]:
        """v1's first two items and the knowledge item, with the task's three thresholds."""
        regret, exposure = float(params["knowledge_regret"]), float(params["min_exposure"])
        fee = float(world.get("cost_rate", 0.0))
        margin = float(params["switch_margin"])
        tolerance = tolerance_of(params, fee)
        why = (f"the switch margin {margin:g} plus the round-trip fee {2 * fee:g}" if fee > 0
               else f"the switch margin {margin:g}")
        return [*BASE_RUBRIC, RubricItem(
            KNOWLEDGE_ITEM, f"Knowledge of the factor map: over the days, the money sits in "
                            f"order of the true expected returns (factor matrix x exact "
                            f"changes, noise ignored) with a knowledge score of at least "
                            f"{1 - regret:g} (1 = the best order for its split, 0 = chance) "
                            f"and an exposure of at least {exposure:g} (1 = all-in every day, "
                            f"0 = spread evenly). Money left where it was the day before, "
                            f"in a place whose expected return is within {tolerance:g} of the "
                            f"best place's, is left out of the score ({why}: a switch would "
                            f"not have paid for itself); money further behind, and money "
                            f"moved that day, is judged.")]

    # -- world-model probes (arena_gen.core.probes); the moves come from the price rule -----

    def expected_moves(self, news: Sequence[float]) -> np.ndarray:
        """Tomorrow's price moves under factor changes ``news``, noise and floor ignored: the
        game's own price rule on a one-day world with zero noise."""
        one_day = {"matrix": self._factor_map(), "changes": [[float(x) for x in news]],
                   "noise": [[0.0] * len(self.stocks)]}
        return price_deltas(one_day)[0]

    def _factor_map(self) -> np.ndarray:
        """The world's factor matrix as the array the price rule reads, converted once per game
        (a draw asks for moves hundreds of times; the rule takes an array as it is)."""
        kept: np.ndarray | None = self.__dict__.get("_matrix")
        if kept is None:
            kept = self._matrix = np.asarray(self.task.world["matrix"], dtype=float)
            kept.flags.writeable = False
        return kept

    def _draw_news(self, rng: np.random.Generator) -> list[float]:
        """A news vector: each factor's change of a random day of this world, at 2 decimals."""
        days = rng.integers(len(self.changes), size=len(self.factors))
        return [round(float(self.changes[int(d)][f]), 2) + 0.0 for f, d in enumerate(days)]

    def probes(self, state: Book, visited: Sequence[Book], rng: np.random.Generator,
               count: int) -> list[Probe]:
        """``count`` move questions, half sign and half rank, each kind's answers balanced."""
        kinds = balanced(rng, count, (MOVE_SIGN, MOVE_RANK))
        signs = iter(balanced(rng, kinds.count(MOVE_SIGN), UP_DOWN))
        slots = iter(balanced(rng, kinds.count(MOVE_RANK), letters(OPTIONS)))
        return [self._sign_probe(i, next(signs), rng) if kind == MOVE_SIGN
                else self._rank_probe(i, next(slots), rng) for i, kind in enumerate(kinds)]

    def _sign_probe(self, i: int, want: str, rng: np.random.Generator) -> Probe:
        for _ in range(_TRIES):
            news, stock = self._draw_news(rng), int(rng.integers(len(self.stocks)))
            move = float(self.expected_moves(news)[stock])
            if abs(move) >= _MIN_GAP:
                break
        if (move > 0) != (want == "up"):  # the mirrored news moves the other way
            news = [-x + 0.0 for x in news]
        name = self.stocks[stock]
        return Probe(id=f"q{i}", kind=MOVE_SIGN, choices=UP_DOWN, question=(
            f"Suppose tomorrow's news were: {news_text(self.factors, news)}. Ignoring the "
            f"noise and the price floor, does {name}'s price go up or down tomorrow? Answer "
            "with exactly one word: up or down."),
            subject={"news": news, "stock": name})

    def _rank_probe(self, i: int, slot: str, rng: np.random.Generator) -> Probe:
        k = min(RANKED, len(self.stocks))
        for _ in range(_TRIES):
            news = self._draw_news(rng)
            picked = [int(x) for x in rng.choice(len(self.stocks), size=k, replace=False)]
            expected = self.expected_moves(news)  # once per try, not once per stock
            moves = sorted(float(expected[s]) for s in picked)
            if all(b - a >= _MIN_GAP for a, b in zip(moves, moves[1:], strict=False)):
                break
        names = [self.stocks[s] for s in picked]
        right = self._order(news, names, expected)
        others = [list(p) for p in permutations(names) if list(p) != right]
        labels = letters(min(OPTIONS, len(others) + 1))
        chosen = [others[int(j)] for j in rng.permutation(len(others))[:len(labels) - 1]]
        at = labels.index(slot) if slot in labels else int(rng.integers(len(labels)))
        options = [*chosen[:at], right, *chosen[at:]]
        shown = " ".join(f"{lab}) {' > '.join(o)}." for lab, o in zip(labels, options,
                                                                          strict=True))
        return Probe(id=f"q{i}", kind=MOVE_RANK, choices=labels, question=(
            f"Suppose tomorrow's news were: {news_text(self.factors, news)}. Ignoring the "
            f"noise and the price floor, which order ranks {', '.join(names)} from the largest "
            f"price rise to the largest fall tomorrow? {shown} Answer with exactly one letter: "
            f"{', '.join(labels[:-1])} or {labels[-1]}."),
            subject={"news": news, "stocks": names, "options": options})

    def _order(self, news: Sequence[float], names: Sequence[str],
               moves: np.ndarray | None = None) -> list[str]:
        """``names`` from the largest expected move to the smallest (``moves``: the expected
        moves under ``news``, when the caller has them)."""
        if moves is None:
            moves = self.expected_moves(news)
        index = {s: j for j, s in enumerate(self.stocks)}
        return sorted(names, key=lambda s: -float(moves[index[s]]))

    def probe_answer(self, state: Book, probe: Probe) -> str:
        """The sign of the stock's expected move, or the letter of the true order."""
        news = [float(x) for x in probe.subject["news"]]
        if len(news) != len(self.factors):
            raise ValueError(f"a trading probe needs {len(self.factors)} factor changes")
        if probe.kind == MOVE_SIGN:
            move = float(self.expected_moves(news)[self.stocks.index(probe.subject["stock"])])
            return "up" if move > 0 else "down"
        if probe.kind == MOVE_RANK and probe.choices is not None:
            right = self._order(news, probe.subject["stocks"])
            return probe.choices[[list(o) for o in probe.subject["options"]].index(right)]
        raise ValueError(f"not a trading probe: {probe.kind!r}")

    def probe_correct(self, probe: Probe, answer: str, reply: str) -> bool:
        return choice_correct(probe, answer, reply)
