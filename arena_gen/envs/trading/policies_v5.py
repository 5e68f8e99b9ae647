"""Trading allocation variants: one forecast, several ways of placing money on it.

The trading v5 success rule must not move with the allocation rule applied to a fixed forecast
(issue #38): these policies are the ablation's rows and the tests' attackers. Each is a v3
:class:`~.policies_v3.TextPolicy` forecaster (online ridge, or the factor matrix read from the
rules text) with one allocation:

- ``allin``: all-in on tomorrow's best forecast (v2's greedy rule);
- ``topK``: an equal split across the K best forecasts (v3's ``split_order``);
- ``proportional``: weights proportional to each stock's positive forecast return, cash when
  none is positive;
- ``warmup``: an even spread over cash and every stock for the first ``WARMUP_DAYS`` days,
  all-in after;
- ``gated``: all-in when the forecast is confident (the gap between the best and second-best
  forecast return exceeds its standard error, or the day's gap-to-error ratio is among the
  most confident ``GATE_SHARE`` of the days so far), an even spread otherwise: the attack that
  passed 66-74 % of v4 Lite tasks with the ridge rung's own forecast.

Each action also names the place the forecast expects to gain most (v5's ``"expect"``: the
knowledge score grades it, whatever the allocation), unless ``name`` is off (the attack as a
v4 agent plays it: graded on its book). Orders are sized with the env's trade rule
(``execute``, ``affordable_qty``) like every v3 policy; they read only the public view, the
observation text and (knowing policies) the rules.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from arena_gen.envs.trading.game_v1 import Order, affordable_qty, execute, order_text
from arena_gen.envs.trading.game_v5 import CASH, EXPECT_KEY
from arena_gen.envs.trading.policies import (
    RIDGE_LAMBDA,
    PlannerPolicy,
    RidgeLearner,
    greedy_order,
    parse_observation,
    parse_rules_matrix,
)
from arena_gen.envs.trading.policies_v3 import (
    REBALANCE_TOLERANCE,
    SLACK,
    KnownMap,
    parse_rule,
    split_order,
)

__all__ = ["ALLOCATIONS", "AllocationPolicy", "GATE_SHARE", "WARMUP_DAYS", "ConfidentRidge",
           "NamingPlanner", "allocation_policy", "named", "target_order"]

#: The allocation rules a forecast is played with (the ablation's columns).
ALLOCATIONS = ("allin", "gated", "warmup", "proportional", "top2", "top3")
#: The warm-up allocation spreads evenly for this many days (the issue's attack: 25).
WARMUP_DAYS = 25
#: The gated allocation goes all-in on the most confident share of its days so far.
GATE_SHARE = 0.4


class ConfidentRidge(RidgeLearner):
    """Online ridge that also tracks its one-step forecast error, so it can say how sure it is.

    The residual variance is the mean square of each day's forecast error made *before* the
    day was learnt (out of sample), pooled over stocks; the standard error of a forecast move
    is ``sigma * sqrt(x' G^-1 x)`` (the ridge estimate's spread at news ``x``)."""

    def __init__(self, n_stocks: int, n_factors: int, lam: float = RIDGE_LAMBDA) -> None:
        super().__init__(n_stocks, n_factors, lam)
        self.square_error = 0.0
        self.errors = 0

    def update(self, news: np.ndarray, price_change: np.ndarray) -> None:
        """Score the forecast this day would have had, then learn the day."""
        if self.samples > 0:
            miss = np.asarray(price_change) - self.predict(news)
            self.square_error += float(miss @ miss)
            self.errors += miss.size
        super().update(news, price_change)

    def spread(self, news: np.ndarray) -> float:
        """The standard error of a forecast move at ``news`` (infinite before two days)."""
        if self.errors == 0:
            return float("inf")
        sigma = (self.square_error / self.errors) ** 0.5
        return float(sigma * np.sqrt(news @ np.linalg.solve(self.gram, news)))


def target_order(cash: float, holdings: list[int], prices: np.ndarray, weights: np.ndarray,
                 cost_rate: float, *, slack: float = SLACK) -> Order:
    """Move the book towards ``weights`` of its value in each stock (cash the rest): sells of
    what is over its target first, then buys of what is under, each only when off target by
    more than v3's rebalance tolerance (so fees do not eat the split)."""
    prices = np.asarray(prices, dtype=float)
    bid, ask = prices - slack, prices + slack
    held = np.asarray(holdings)
    liquid = cash - slack + float((held * bid).sum()) * (1.0 - cost_rate)
    want = [int(liquid * float(w) // (ask[i] * (1.0 + cost_rate))) for i, w in
            enumerate(weights)]
    order = Order()
    for j, h in enumerate(holdings):
        if h > want[j] and h - want[j] > REBALANCE_TOLERANCE * max(want[j], 1):
            order.sells.append((j, int(h - want[j])))
    after = execute(cash - slack, holdings, bid, order, cost_rate).cash
    for i, h in enumerate(holdings):
        short = want[i] - h
        if short > REBALANCE_TOLERANCE * max(want[i], 1):
            qty = min(short, affordable_qty(after, float(ask[i]), cost_rate))
            if qty > 0:
                order.buys.append((i, qty))
                after -= float(ask[i]) * qty * (1.0 + cost_rate)
    return order


class AllocationPolicy:
    """A forecaster and one allocation of :data:`ALLOCATIONS`, reading only the observation
    text; from ``start_day`` it trades on ``prices + forecast moves`` and (``name``) names the
    place it expects to gain most."""

    def __init__(self, public: dict[str, Any], forecaster: Any, allocation: str,
                 start_day: int = 0, name: bool = True) -> None:
        if allocation not in ("allin", "gated", "warmup", "proportional"):
            parse_rule(allocation)  # topK (ValueError otherwise)
        self.stocks: list[str] = list(public["stocks"])
        self.factors: list[str] = list(public["factors"])
        self.cost_rate = float(public.get("cost_rate", 0.0))
        self.forecaster = forecaster
        self.allocation = allocation
        self.start_day = start_day
        self.naming = name
        self.ratios: list[float] = []
        self._last: tuple[np.ndarray, np.ndarray] | None = None

    def act(self, observation: str) -> str:
        """Record yesterday's sample, then hold before ``start_day`` or place the money."""
        seen = parse_observation(observation)
        if (seen["news"] is None or seen["cash"] is None or seen["day"] is None
                or len(seen["prices"]) != len(self.stocks)):
            return "{}"
        prices = np.array([seen["prices"][s] for s in self.stocks])
        news = np.array([seen["news"].get(f, 0.0) for f in self.factors])
        if self._last is not None:
            self.forecaster.update(self._last[1], prices - self._last[0])
        self._last = (prices, news)
        if seen["day"] < self.start_day:
            return "{}"
        holdings = [seen["holdings"][s] for s in self.stocks]
        move = np.asarray(self.forecaster.predict(news), dtype=float)
        order = self.place(int(seen["day"]), float(seen["cash"]), holdings, prices, news, move)
        text = order_text(order, self.stocks)
        return named(text, self.stocks, move, prices) if self.naming else text

    def place(self, day: int, cash: float, holdings: list[int], prices: np.ndarray,
              news: np.ndarray, move: np.ndarray) -> Order:
        """The day's order for the forecast price ``move``, by this policy's allocation."""
        forecast = prices + move
        even = np.full(len(self.stocks), 1.0 / (len(self.stocks) + 1))
        if self.allocation == "allin" or (self.allocation == "warmup" and day >= WARMUP_DAYS):
            return greedy_order(cash, holdings, prices, forecast, self.cost_rate, slack=SLACK)
        if self.allocation == "warmup":
            return target_order(cash, holdings, prices, even, self.cost_rate)
        if self.allocation == "proportional":
            gain = np.maximum(move / prices, 0.0)
            weights = gain / gain.sum() if gain.sum() > 0 else np.zeros_like(gain)
            return target_order(cash, holdings, prices, weights, self.cost_rate)
        if self.allocation == "gated":
            if self.confident(prices, news, move):
                return greedy_order(cash, holdings, prices, forecast, self.cost_rate,
                                    slack=SLACK)
            return target_order(cash, holdings, prices, even, self.cost_rate)
        _, k = parse_rule(self.allocation)
        return split_order(cash, holdings, prices, forecast, self.cost_rate, int(k))

    def confident(self, prices: np.ndarray, news: np.ndarray, move: np.ndarray) -> bool:
        """Whether the gap between the best and second-best forecast place (cash returns 0)
        beats its standard error, or its gap-to-error ratio is among the top ``GATE_SHARE``
        of the days so far (a forecaster without an error estimate is always confident)."""
        spread = getattr(self.forecaster, "spread", None)
        if spread is None:
            return True
        returns = np.append(move / prices, 0.0)
        units = np.append(1.0 / prices, 0.0)  # a place's forecast error per unit of move
        best, second = np.argsort(-returns, kind="stable")[:2]
        gap = float(returns[best] - returns[second])
        error = spread(news) * float(np.hypot(units[best], units[second]))
        ratio = gap / error if error > 0 else float("inf")
        past = np.array(self.ratios)
        self.ratios.append(ratio)
        if gap > error:
            return True
        return past.size > 0 and float((past < ratio).mean()) >= 1.0 - GATE_SHARE


def allocation_policy(public: dict[str, Any], allocation: str, rules_text: str | None = None,
                      start_day: int = 3, name: bool = True) -> AllocationPolicy:
    """The ladder's ridge forecaster (trading from ``start_day``), or with ``rules_text`` a
    trader told W (from day 0), placing money by ``allocation`` and (``name``) naming its
    forecast's best place each day."""
    stocks, factors = list(public["stocks"]), list(public["factors"])
    if rules_text is not None:
        return AllocationPolicy(public, KnownMap(parse_rules_matrix(rules_text, stocks, factors)),
                                allocation, name=name)
    return AllocationPolicy(public, ConfidentRidge(len(stocks), len(factors)), allocation,
                            start_day, name)


def named(text: str, stocks: list[str], move: np.ndarray, prices: np.ndarray) -> str:
    """An action text with ``"expect"`` added: the place whose forecast return ``move /
    prices`` is best (cash returns 0; ties: the first, cash first)."""
    best = int(np.argmax(np.append(0.0, np.asarray(move) / np.asarray(prices))))
    return json.dumps({**json.loads(text), EXPECT_KEY: [CASH, *stocks][best]})


class NamingPlanner(PlannerPolicy):
    """The v2 with-rules planner's orders, each naming the place ``W @ news`` says is best
    (the v5 witness: v5 grades the named place, and a fee-aware hold names nothing)."""

    def act(self, observation: str) -> str:
        """The planner's order plus its named place (a hold before the first full view)."""
        text = super().act(observation)
        seen = parse_observation(observation)
        if seen["news"] is None or seen["cash"] is None or len(seen["prices"]) != len(
                self.stocks):
            return text
        prices = np.array([seen["prices"][s] for s in self.stocks])
        news = np.array([seen["news"].get(f, 0.0) for f in self.factors])
        return named(text, self.stocks, KnownMap(self.matrix).predict(news), prices)
