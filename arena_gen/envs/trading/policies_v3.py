"""Trading v3 policies: forecasters x allocation rules, the knowing references, model-free rungs.

A v3 policy is a *forecaster* (what it believes tomorrow's prices are) and an *allocation rule*
(how it turns a forecast into an order). Forecasters: the factor matrix read from the rules text
(the knowing policies), online ridge / least squares over all days or a window (the inductive
learners), or none (the model-free policies, which never read the news). Allocation rules:

- ``allin``: v2's greedy rule (:func:`~.policies.greedy_order`), all-in on tomorrow's best;
- ``topK``: equal split across the K stocks with the best forecast return (those above the
  round-trip fee), cash when none is; a holding is rebalanced only when it is off its target by
  more than a fifth (so fees do not eat the split);
- ``marginM``: all-in like ``allin`` but it switches only when the greedy position's forecast
  value beats staying put by more than M (a share of the book: ``margin0.005`` is half a
  percent), so it trades less.

Every policy reads only the public view, the rules text (knowing policies only) and the
observation text, and sizes orders with the env's own trade rule (``execute``,
``affordable_qty``, ``sell_all_but``): no fee arithmetic is restated. The v3 verifier plays the
knowing references through the env for the certificate, and the ladder's rungs are these same
policies as agents.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Protocol

import numpy as np

from arena_gen.envs.trading.game_v1 import Order, affordable_qty, execute, order_text, total_value
from arena_gen.envs.trading.policies import (
    RIDGE_LAMBDA,
    RidgeLearner,
    greedy_order,
    parse_observation,
    parse_rules_matrix,
)

#: Shown prices and cash are rounded to cents: half a cent of slack when sizing orders.
SLACK = 0.005
#: A split holding is rebalanced only when it is off its target by more than this share.
REBALANCE_TOLERANCE = 0.2

_RULE = re.compile(r"^(allin|top([1-9]\d*)|margin(\d+(?:\.\d+)?))$")


class Forecaster(Protocol):
    """A learner of the factor map: fed one sample a day, asked for tomorrow's price moves."""

    def update(self, news: np.ndarray, price_change: np.ndarray) -> None: ...

    def predict(self, news: np.ndarray) -> np.ndarray: ...


class KnownMap:
    """The factor matrix read from the rules text: the forecast of a trader told W."""

    def __init__(self, matrix: np.ndarray) -> None:
        self.matrix = np.asarray(matrix, dtype=float)

    def update(self, news: np.ndarray, price_change: np.ndarray) -> None:
        """Nothing to learn."""

    def predict(self, news: np.ndarray) -> np.ndarray:
        """``W @ news`` summed in factor order, as the price rule sums."""
        move = np.zeros(self.matrix.shape[0])
        for j in range(self.matrix.shape[1]):
            move = move + self.matrix[:, j] * news[j]
        return move


class WindowRidge:
    """Ridge regression of moves on news over the last ``window`` days (exponential forgetting
    with factor ``1 - 1/window``: a running sum, O(F^2 S) a day)."""

    def __init__(self, n_stocks: int, n_factors: int, window: int,
                 lam: float = RIDGE_LAMBDA) -> None:
        self.keep = 1.0 - 1.0 / window
        self.lam = lam
        self.gram = np.zeros((n_factors, n_factors))
        self.cross = np.zeros((n_factors, n_stocks))
        self.samples = 0

    def update(self, news: np.ndarray, price_change: np.ndarray) -> None:
        """Decay the sums, then add one day."""
        self.gram = self.gram * self.keep + np.outer(news, news)
        self.cross = self.cross * self.keep + np.outer(news, price_change)
        self.samples += 1

    def predict(self, news: np.ndarray) -> np.ndarray:
        """Forecast tomorrow's price moves (zeros before any data)."""
        if self.samples == 0:
            return np.zeros(self.cross.shape[1])
        gram = self.gram + self.lam * np.eye(self.gram.shape[0])
        return np.asarray(news @ np.linalg.solve(gram, self.cross))


def parse_rule(rule: str) -> tuple[str, float]:
    """An allocation rule's kind and parameter (``top3`` -> ("top", 3)); ValueError otherwise."""
    found = _RULE.match(rule)
    if found is None:
        raise ValueError(f"unknown allocation rule {rule!r}: use allin, topK or marginM")
    if found.group(2):
        return "top", float(found.group(2))
    if found.group(3):
        return "margin", float(found.group(3))
    return "allin", 0.0


def _forecast_value(cash: float, holdings: list[int], prices: np.ndarray, order: Order,
                    forecast: np.ndarray, cost_rate: float) -> float:
    """The book's value at the forecast prices after ``order`` fills at today's prices."""
    fill = execute(cash, holdings, prices, order, cost_rate)
    return total_value(fill.cash, fill.holdings, forecast)


def split_order(cash: float, holdings: list[int], prices: np.ndarray, forecast: np.ndarray,
                cost_rate: float, k: int, *, slack: float = SLACK) -> Order:
    """Equal split across the ``k`` best forecast returns above the round-trip fee (sells of
    everything else first, then buys sized by the trade rule so none is refused)."""
    prices = np.asarray(prices, dtype=float)
    bid, ask = prices - slack, prices + slack
    gain = (np.asarray(forecast, dtype=float) - prices) / prices
    held = np.asarray(holdings)
    hurdle = np.where(held > 0, 0.0, 2.0 * cost_rate)
    ranked = [int(i) for i in np.argsort(-gain, kind="stable") if gain[i] > hurdle[i]][:k]
    liquid = cash - slack + float((held * bid).sum()) * (1.0 - cost_rate)
    target = {i: liquid / len(ranked) for i in ranked} if ranked else {}
    want = {i: int(target[i] // (ask[i] * (1.0 + cost_rate))) for i in ranked}
    order = Order()
    for j, h in enumerate(holdings):
        if h <= 0:
            continue
        if j not in want:
            order.sells.append((j, int(h)))
        elif h - want[j] > REBALANCE_TOLERANCE * max(want[j], 1):
            order.sells.append((j, int(h - want[j])))
    after = execute(cash - slack, holdings, bid, order, cost_rate).cash
    for i in ranked:
        short = want[i] - holdings[i]
        if short > REBALANCE_TOLERANCE * max(want[i], 1):
            qty = min(short, affordable_qty(after, float(ask[i]), cost_rate))
            if qty > 0:
                order.buys.append((i, qty))
                after -= float(ask[i]) * qty * (1.0 + cost_rate)
    return order


def margin_order(cash: float, holdings: list[int], prices: np.ndarray, forecast: np.ndarray,
                 cost_rate: float, margin: float, *, slack: float = SLACK) -> Order:
    """The greedy all-in order, taken only when its forecast value beats holding by ``margin``
    of the book's value."""
    order = greedy_order(cash, holdings, prices, forecast, cost_rate, slack=slack)
    if not order.sells and not order.buys:
        return order
    stay = total_value(cash, holdings, forecast)
    moved = _forecast_value(cash - slack, holdings, np.asarray(prices) - slack, order,
                            np.asarray(forecast), cost_rate)
    return order if moved > stay + margin * abs(stay) else Order()


def allocate(rule: str, cash: float, holdings: list[int], prices: np.ndarray,
             forecast: np.ndarray, cost_rate: float) -> Order:
    """The order an allocation rule sends for a forecast of tomorrow's prices."""
    kind, value = parse_rule(rule)
    if kind == "top":
        return split_order(cash, holdings, prices, forecast, cost_rate, int(value))
    if kind == "margin":
        return margin_order(cash, holdings, prices, forecast, cost_rate, value)
    return greedy_order(cash, holdings, prices, forecast, cost_rate, slack=SLACK)


class TextPolicy:
    """A forecaster and an allocation rule, reading only the observation text; from
    ``start_day`` it trades on ``prices + forecast moves``."""

    def __init__(self, public: dict[str, Any], forecaster: Forecaster, rule: str = "allin",
                 start_day: int = 0) -> None:
        parse_rule(rule)
        self.stocks: list[str] = list(public["stocks"])
        self.factors: list[str] = list(public["factors"])
        self.cost_rate = float(public.get("cost_rate", 0.0))
        self.forecaster = forecaster
        self.rule = rule
        self.start_day = start_day
        self._last: tuple[np.ndarray, np.ndarray] | None = None

    def act(self, observation: str) -> str:
        """Record yesterday's sample, then hold before ``start_day`` or trade on the forecast."""
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
        order = allocate(self.rule, seen["cash"], holdings, prices,
                         prices + self.forecaster.predict(news), self.cost_rate)
        return order_text(order, self.stocks)


def knowing_policy(public: dict[str, Any], rules_text: str, rule: str) -> TextPolicy:
    """A trader told W (read from the rules text) with allocation ``rule``, trading from day 0."""
    matrix = parse_rules_matrix(rules_text, list(public["stocks"]), list(public["factors"]))
    return TextPolicy(public, KnownMap(matrix), rule)


#: The inductive learners' estimators: name -> maker(n_stocks, n_factors, window).
ESTIMATORS: dict[str, Callable[[int, int, int | None], Forecaster]] = {
    "ridge": lambda s, f, w: (RidgeLearner(s, f, RIDGE_LAMBDA) if w is None
                              else WindowRidge(s, f, w)),
    "ridge1": lambda s, f, w: (RidgeLearner(s, f, 1.0) if w is None
                               else WindowRidge(s, f, w, 1.0)),
}


def learner_policy(public: dict[str, Any], estimator: str = "ridge", window: int | None = None,
                   rule: str = "allin", start_day: int = 3) -> TextPolicy:
    """An inductive learner: ``estimator`` over all days (``window`` None) or a forgetting
    window, with allocation ``rule``, trading from ``start_day``."""
    if estimator not in ESTIMATORS:
        raise ValueError(f"unknown estimator {estimator!r}; choose one of "
                         f"{', '.join(ESTIMATORS)}")
    maker = ESTIMATORS[estimator]
    return TextPolicy(public, maker(len(public["stocks"]), len(public["factors"]), window),
                      rule, start_day)


class HoldPolicy:
    """Model-free: equal-weight buy-and-hold (day 0 splits the cash, then holds)."""

    def __init__(self, public: dict[str, Any]) -> None:
        self.stocks: list[str] = list(public["stocks"])
        self.cost_rate = float(public.get("cost_rate", 0.0))
        self.bought = False

    def act(self, observation: str) -> str:
        """Buy once, equal cash per stock, then hold."""
        seen = parse_observation(observation)
        if self.bought or seen["cash"] is None or len(seen["prices"]) != len(self.stocks):
            return "{}"
        self.bought = True
        share = (seen["cash"] - SLACK) / len(self.stocks)
        order = Order(buys=[(i, affordable_qty(share, seen["prices"][s] + SLACK, self.cost_rate))
                            for i, s in enumerate(self.stocks)])
        return order_text(order, self.stocks)


class MomentumPolicy:
    """Model-free: all-in on the stock whose price rose most over the last ``lookback`` days
    (cash when none rose); it never reads the news, so it knows nothing of W."""

    def __init__(self, public: dict[str, Any], lookback: int = 1) -> None:
        self.stocks: list[str] = list(public["stocks"])
        self.cost_rate = float(public.get("cost_rate", 0.0))
        self.lookback = lookback
        self.history: list[np.ndarray] = []

    def act(self, observation: str) -> str:
        """Extrapolate each stock's last move one day (a forecast without a model)."""
        seen = parse_observation(observation)
        if seen["cash"] is None or len(seen["prices"]) != len(self.stocks):
            return "{}"
        prices = np.array([seen["prices"][s] for s in self.stocks])
        self.history.append(prices)
        if len(self.history) <= self.lookback:
            return "{}"
        self.history = self.history[-(self.lookback + 1):]
        trend = (prices - self.history[0]) / self.lookback
        holdings = [seen["holdings"][s] for s in self.stocks]
        order = greedy_order(seen["cash"], holdings, prices, prices + trend, self.cost_rate,
                             slack=SLACK)
        return order_text(order, self.stocks)
