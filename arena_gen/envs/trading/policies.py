"""Trading policies of the verifier and the agents: the greedy all-in rule, the ridge learner.

The same :func:`greedy_order` serves the perfect-foresight oracle (fed the true next-day
prices: the certificate's witness) and the ridge policy (fed its forecast: the certificate's
baseline and the heuristic agent). It evaluates every candidate position by running it through
the env's own trade rule (:func:`~arena_gen.envs.trading.game_v1.execute`, ``sell_all_but`` and
``affordable_qty``), so no fee arithmetic is restated here. This module sits at the verifier
level: ``agents.trading_heuristic`` imports it, never the other way round.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from arena_gen.envs.trading.game_v1 import (
    NEWS_ITEM,
    Order,
    affordable_qty,
    order_text,
    sell_all_but,
)

#: Ridge penalty: small against X^T X (factor changes are ~0.1, so ~0.01 per observed day).
RIDGE_LAMBDA = 1e-4

_PRICE = re.compile(r"^(S\d+): (-?\d+(?:\.\d+)?) \(holding (\d+)\)$", re.M)
_CASH = re.compile(r"^Cash: (-?\d+(?:\.\d+)?)$", re.M)
_DAY = re.compile(r"^Day (\d+) of (\d+)\.$", re.M)
_NEWS = re.compile(r"^Next day news: (.*)$", re.M)


class RidgeLearner:
    """Online ridge regression of observed price changes on the observed news of the same day."""

    def __init__(self, n_stocks: int, n_factors: int, lam: float = RIDGE_LAMBDA) -> None:
        self.gram = lam * np.eye(n_factors)
        self.cross = np.zeros((n_factors, n_stocks))
        self.samples = 0

    def update(self, news: np.ndarray, price_change: np.ndarray) -> None:
        """Add one day: the factor news that moved the prices, and the observed moves."""
        self.gram += np.outer(news, news)
        self.cross += np.outer(news, price_change)
        self.samples += 1

    def predict(self, news: np.ndarray) -> np.ndarray:
        """Forecast tomorrow's price changes from tomorrow's news (zeros before any data)."""
        if self.samples == 0:
            return np.zeros(self.cross.shape[1])
        weights = np.linalg.solve(self.gram, self.cross)  # F x S, i.e. W transposed
        return np.asarray(news @ weights)


def greedy_order(cash: float, holdings: list[int], prices: np.ndarray, forecast: np.ndarray,
                 cost_rate: float, *, slack: float = 0.0) -> Order:
    """Move all-in to whichever of {stay, cash, stock k} has the best forecast value tomorrow.

    ``forecast`` are tomorrow's prices (exact for the oracle, estimated for the learner).
    ``slack`` is the uncertainty of shown prices and cash (half a cent for the learner): sales
    are sized at ``price - slack``, buys at ``price + slack``, so a planned buy is never refused.

    The order itself is sized by the env's trade rule (``sell_all_but``, ``affordable_qty``).
    Choosing *which* position to take is a planner's forecast, vectorised over stocks: it
    values each all-in position with whole shares and fees but without the env's 10^24-share
    cap on one order. That cap only binds past 10^24 shares (a compounding 1000-day oracle
    gets there); the estimate is kept as it is because it chose the witnesses of the released
    verifier-v1 certificates, which must rebuild byte-identically.
    """
    prices = np.asarray(prices, dtype=float)
    bid, ask = prices - slack, prices + slack
    cash = cash - slack
    forecast = np.asarray(forecast, dtype=float)
    held = np.asarray(holdings, dtype=float)
    stay = cash + float(held @ forecast)
    proceeds = held * bid * (1.0 - cost_rate)
    liquid = cash + float(proceeds.sum())  # cash after selling everything
    best, choice = stay * (1.0 + 1e-12) + 1e-9, None  # ties keep the current position
    if liquid > best:
        best, choice = liquid, -1
    spend = liquid - proceeds  # selling all but k
    unit = ask * (1.0 + cost_rate)
    qty = np.floor(np.maximum(spend, 0.0) / unit)
    values = spend - qty * unit + (held + qty) * forecast
    k = int(np.argmax(values))
    if values[k] > best:
        choice = k
    if choice is None:
        return Order()
    keep = None if choice == -1 else choice
    order = Order(sells=[(j, int(h)) for j, h in enumerate(holdings) if h > 0 and j != keep])
    if keep is not None:
        after = sell_all_but(cash, holdings, bid, keep, cost_rate)
        q = affordable_qty(after, float(ask[keep]), cost_rate)
        if q > 0:
            order.buys.append((keep, q))
    return order


def parse_observation(text: str) -> dict[str, Any]:
    """Read what the env shows: day, prices, holdings, cash and tomorrow's news values."""
    rows = _PRICE.findall(text)
    day = _DAY.findall(text)
    cash = _CASH.findall(text)
    news = _NEWS.findall(text)
    return {
        "day": int(day[-1][0]) if day else None,
        "prices": {s: float(p) for s, p, _ in rows},
        "holdings": {s: int(h) for s, _, h in rows},
        "cash": float(cash[-1]) if cash else None,
        "news": {f: float(v) for f, v in NEWS_ITEM.findall(news[-1])} if news else None,
    }


class RidgePolicy:
    """Learns W online from observed prices and 2-decimal news; trades greedily on the forecast.

    It reads only the env's observation text and the public view (stocks, factors, cost rate):
    the certificate's ridge baseline and the heuristic agent are this one policy.
    """

    def __init__(self, public: dict[str, Any]) -> None:
        self.stocks: list[str] = list(public["stocks"])
        self.factors: list[str] = list(public["factors"])
        self.cost_rate = float(public.get("cost_rate", 0.0))
        self.learner = RidgeLearner(len(self.stocks), len(self.factors))
        self._last: tuple[np.ndarray, np.ndarray] | None = None

    def act(self, observation: str) -> str:
        seen = parse_observation(observation)
        if seen["news"] is None or seen["cash"] is None or len(seen["prices"]) != len(self.stocks):
            return "{}"
        prices = np.array([seen["prices"][s] for s in self.stocks])
        news = np.array([seen["news"].get(f, 0.0) for f in self.factors])
        if self._last is not None:
            last_prices, last_news = self._last
            self.learner.update(last_news, prices - last_prices)
        self._last = (prices, news)
        forecast = prices + self.learner.predict(news)
        holdings = [seen["holdings"][s] for s in self.stocks]
        # Shown prices and cash are rounded to cents: half a cent of slack on each.
        order = greedy_order(seen["cash"], holdings, prices, forecast, self.cost_rate,
                             slack=0.005)
        return order_text(order, self.stocks)


#: One stock's line of the rules text: ``S0 moves by 1.234 x dF0 - 0.567 x dF1 ...``.
_RULE_ROW = re.compile(r"^(S\d+) moves by (.+)$", re.M)
_RULE_TERM = re.compile(r"([+-])?\s*(\d+(?:\.\d+)?) x d(F\d+)")


def parse_rules_matrix(rules_text: str, stocks: list[str], factors: list[str]) -> np.ndarray:
    """The factor matrix W (S x F) read from the with-rules disclosure (no eval: two regexes).

    Every stock needs its line and every factor its term; anything missing is a ValueError
    naming it (a planner that guessed a coefficient would not be the deductive bound)."""
    rows = {s: body for s, body in _RULE_ROW.findall(rules_text)}
    fidx = {f: j for j, f in enumerate(factors)}
    matrix = np.full((len(stocks), len(factors)), np.nan)
    for i, stock in enumerate(stocks):
        if stock not in rows:
            raise ValueError(f"the rules text gives no factor row for {stock}")
        for sign, value, factor in _RULE_TERM.findall(rows[stock]):
            if factor not in fidx:
                raise ValueError(f"the rules text names an unknown factor {factor}")
            matrix[i, fidx[factor]] = -float(value) if sign == "-" else float(value)
    if np.isnan(matrix).any():
        i, j = (int(x[0]) for x in np.nonzero(np.isnan(matrix)))
        raise ValueError(f"the rules text gives no coefficient of {factors[j]} for {stocks[i]}")
    return matrix


class PlannerPolicy:
    """The with-rules planner: W read from the rules text, greedy on ``p + W @ news``.

    It knows the factor map exactly but not the noise (whose mean is 0), and sees the news as
    any agent does (2 decimals), so it is the deductive bound of a trader without foresight of
    the noise: the v2 rubric's target is a share of its log growth. It reads only the public
    view, the rules text and the observation text, like :class:`RidgePolicy`, and trades from
    day 0 with the same greedy rule and half a cent of slack.
    """

    def __init__(self, public: dict[str, Any], rules_text: str) -> None:
        self.stocks: list[str] = list(public["stocks"])
        self.factors: list[str] = list(public["factors"])
        self.cost_rate = float(public.get("cost_rate", 0.0))
        self.matrix = parse_rules_matrix(rules_text, self.stocks, self.factors)

    def act(self, observation: str) -> str:
        seen = parse_observation(observation)
        if seen["news"] is None or seen["cash"] is None or len(seen["prices"]) != len(self.stocks):
            return "{}"
        prices = np.array([seen["prices"][s] for s in self.stocks])
        news = np.array([seen["news"].get(f, 0.0) for f in self.factors])
        move = np.zeros(len(self.stocks))
        for j in range(len(self.factors)):  # factor order, as the price rule sums
            move = move + self.matrix[:, j] * news[j]
        holdings = [seen["holdings"][s] for s in self.stocks]
        order = greedy_order(seen["cash"], holdings, prices, prices + move, self.cost_rate,
                             slack=0.005)
        return order_text(order, self.stocks)
