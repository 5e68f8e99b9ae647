"""The OdysseyArena paper's scripted trading strategies (arXiv 2602.05843, appendix B.12) as agents.

Six baselines that differ only in their forecast of tomorrow's prices: every one turns its
forecast into an order with the same greedy all-in rule,
:func:`~arena_gen.envs.trading.policies.greedy_order`, which sizes orders with the env's
own trade rule (no fee arithmetic here). Five read only the observation text and the public view
(stocks, factors, cost rate); ``optimal`` is privileged like the oracle and reads the world.

Readings of the paper's one-line descriptions (where they are brief):
    - A sample is one observed day: the news shown on day t-1 (2 decimals) and the move of the
      shown prices from day t-1 to day t, so on day t a learner holds t samples.
    - ``optimal``: the greedy rule fed the true next-day prices, trading from day 0; it is the
      certificate's integer greedy oracle played turn by turn (same profit, same orders).
    - ``conservative``: holds on days 0 .. F+1 (F+2 days, F = number of factors), then trades
      on ordinary least squares over all samples so far.
    - ``progressive``: holds on days 0-2, trades from day 3 on least squares over all samples
      (the minimum-norm solution while there are fewer samples than factors).
    - ``correlation``: one simple regression (with intercept) of each stock's move on each
      factor's news alone, as if the factors were independent; the forecast move is the sum of
      slope x news (the intercepts are dropped); a factor whose news never varied gets slope 0.
    - ``rolling``: least squares over the last 15 samples only.
    - ``ridge``: progressive with an L2 penalty: the online ridge learner of the verifier
      (penalty ``RIDGE_LAMBDA``), so it is the ``heuristic`` agent that waits until day 3.
    - ``correlation``, ``rolling`` and ``ridge`` start on day 3 as ``progressive`` does.
    - They are scripted, not told the rules: ``with-rules`` mode plays exactly like inductive.
"""

from __future__ import annotations

import functools
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

import numpy as np

from arena_gen.core.agent import TaskView
from arena_gen.core.game import WorldView
from arena_gen.envs.trading.game_v1 import Book, TradingGame, order_text
from arena_gen.envs.trading.policies import (
    RIDGE_LAMBDA,
    RidgeLearner,
    greedy_order,
    parse_observation,
)

#: The paper's strategies, in its order; agents are named ``trading-<strategy>``.
STRATEGIES = ("optimal", "conservative", "progressive", "correlation", "rolling", "ridge")
#: The first day ``progressive`` (and the learners that follow it) trades on.
START_DAY = 3
#: The days ``rolling`` fits on.
ROLLING_WINDOW = 15
#: Shown prices and cash are rounded to cents: half a cent of slack when sizing orders.
SLACK = 0.005


class Forecaster(Protocol):
    """A learner of the factor map: fed one sample a day, asked for tomorrow's price moves."""

    def update(self, news: np.ndarray, price_change: np.ndarray) -> None: ...

    def predict(self, news: np.ndarray) -> np.ndarray: ...


class History:
    """The samples a batch learner fits on: all of them, or only the last ``window``."""

    def __init__(self, n_stocks: int, n_factors: int, window: int | None = None) -> None:
        self.shape = (n_factors, n_stocks)
        self.news: deque[np.ndarray] = deque(maxlen=window)
        self.moves: deque[np.ndarray] = deque(maxlen=window)

    def update(self, news: np.ndarray, price_change: np.ndarray) -> None:
        """Add one day's news and the price moves it caused (the oldest falls out of a window)."""
        self.news.append(np.asarray(news, dtype=float))
        self.moves.append(np.asarray(price_change, dtype=float))

    def weights(self) -> np.ndarray:
        """The factor map as F x S (W transposed) fitted on the held samples."""
        raise NotImplementedError

    def predict(self, news: np.ndarray) -> np.ndarray:
        """Forecast tomorrow's price moves from tomorrow's news (zeros before any sample)."""
        if not self.news:
            return np.zeros(self.shape[1])
        return np.asarray(np.asarray(news, dtype=float) @ self.weights())


class LeastSquares(History):
    """Ordinary least squares of moves on news: all history, or a rolling window of days.

    Over all history the fit keeps the normal equations' running sums, so a day costs O(F^2 S)
    however long the history (a 1000-day episode refitting from the rows took 20 s); once the
    sums have full rank it solves them, before that (and in a window) it takes the
    minimum-norm solution from the rows. Both are the same least-squares solution.
    """

    def __init__(self, n_stocks: int, n_factors: int, window: int | None = None) -> None:
        super().__init__(n_stocks, n_factors, window)
        self.gram = np.zeros((n_factors, n_factors))
        self.cross = np.zeros((n_factors, n_stocks))

    def update(self, news: np.ndarray, price_change: np.ndarray) -> None:
        super().update(news, price_change)
        self.gram += np.outer(self.news[-1], self.news[-1])
        self.cross += np.outer(self.news[-1], self.moves[-1])

    def weights(self) -> np.ndarray:
        """The least-squares solution of news @ weights = moves (minimum-norm while singular)."""
        if (self.news.maxlen is None and len(self.news) >= self.shape[0]
                and np.linalg.matrix_rank(self.gram) == self.shape[0]):
            return np.asarray(np.linalg.solve(self.gram, self.cross))
        solution, *_ = np.linalg.lstsq(np.array(self.news), np.array(self.moves), rcond=None)
        return np.asarray(solution)


class Correlation(History):
    """Per stock-factor simple regressions, each factor taken alone (assumed independent)."""

    def weights(self) -> np.ndarray:
        """Slope of each stock's move on each factor's news: covariance over variance."""
        x = np.array(self.news)
        y = np.array(self.moves)
        x = x - x.mean(axis=0)
        y = y - y.mean(axis=0)
        var = (x * x).sum(axis=0)[:, None]
        cov = x.T @ y
        return np.divide(cov, var, out=np.zeros_like(cov), where=var > 1e-12)


class ForecastPolicy:
    """Learns the factor map from the shown prices and news; from ``start_day`` trades greedily."""

    def __init__(self, public: dict[str, Any], forecaster: Forecaster, start_day: int) -> None:
        self.stocks: list[str] = list(public["stocks"])
        self.factors: list[str] = list(public["factors"])
        self.cost_rate = float(public.get("cost_rate", 0.0))
        self.forecaster = forecaster
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
            last_prices, last_news = self._last
            self.forecaster.update(last_news, prices - last_prices)
        self._last = (prices, news)
        if seen["day"] < self.start_day:
            return "{}"
        forecast = prices + self.forecaster.predict(news)
        holdings = [seen["holdings"][s] for s in self.stocks]
        order = greedy_order(seen["cash"], holdings, prices, forecast, self.cost_rate,
                             slack=SLACK)
        return order_text(order, self.stocks)


class OptimalPolicy:
    """Perfect foresight: the greedy rule on the true next-day prices (privileged: reads W)."""

    def __init__(self, view: TaskView) -> None:
        if view.world is None:
            raise ValueError("the optimal strategy needs a privileged task view")
        self.game = TradingGame(WorldView(world=view.world, public=view.public,
                                          budget=view.budget))
        self.book: Book = self.game.initial()

    def act(self, observation: str) -> str:
        """Trade all-in into tomorrow's best stock (or cash), tracking the book exactly."""
        day = parse_observation(observation)["day"]
        if day != self.book.day:
            raise RuntimeError(f"observation shows day {day}, the strategy's book is on day "
                               f"{self.book.day}")
        game, book = self.game, self.book
        order = greedy_order(book.cash, list(book.holdings), game.prices[book.day],
                             game.prices[book.day + 1], game.cost_rate)
        self.book, _ = game.step(book, order)
        return order_text(order, game.stocks)


def _learner(strategy: str, public: dict[str, Any]) -> ForecastPolicy:
    """The observation-only policy of a strategy: its forecaster and its first trading day."""
    n_stocks, n_factors = len(public["stocks"]), len(public["factors"])
    makers: dict[str, Callable[[], tuple[Forecaster, int]]] = {
        "conservative": lambda: (LeastSquares(n_stocks, n_factors), n_factors + 2),
        "progressive": lambda: (LeastSquares(n_stocks, n_factors), START_DAY),
        "correlation": lambda: (Correlation(n_stocks, n_factors), START_DAY),
        "rolling": lambda: (LeastSquares(n_stocks, n_factors, ROLLING_WINDOW), START_DAY),
        "ridge": lambda: (RidgeLearner(n_stocks, n_factors, RIDGE_LAMBDA), START_DAY),
    }
    forecaster, start = makers[strategy]()
    return ForecastPolicy(public, forecaster, start)


class TradingStrategyAgent:
    """One of the paper's scripted strategies, as a runner agent named ``trading-<strategy>``."""

    def __init__(self, strategy: str) -> None:
        if strategy not in STRATEGIES:
            raise ValueError(f"unknown trading strategy {strategy!r}; choose one of "
                             f"{', '.join(STRATEGIES)}")
        self.strategy = strategy
        self.name = f"trading-{strategy}"
        self.privileged = strategy == "optimal"
        self.policy: ForecastPolicy | OptimalPolicy | None = None

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        """A fresh policy per episode (the strategies are deterministic: ``rng`` is unused)."""
        if view.env != "trading":
            raise ValueError(f"{self.name} plays only trading tasks, not {view.env!r}")
        self.policy = (OptimalPolicy(view) if self.privileged
                       else _learner(self.strategy, view.public))

    def act(self, observation: str) -> str:
        """The strategy's order for the day shown."""
        assert self.policy is not None, "reset() first"
        return self.policy.act(observation)


class _Baseline(TradingStrategyAgent):
    """A strategy agent built with no argument (a ladder baseline is a zero-argument factory)."""

    strategy_name = ""

    def __init__(self) -> None:
        super().__init__(self.strategy_name)


class ConservativeAgent(_Baseline):
    """``trading-conservative`` as a ladder baseline."""

    strategy_name = "conservative"


class ProgressiveAgent(_Baseline):
    """``trading-progressive`` as a ladder baseline."""

    strategy_name = "progressive"


class CorrelationAgent(_Baseline):
    """``trading-correlation`` as a ladder baseline."""

    strategy_name = "correlation"


class RollingAgent(_Baseline):
    """``trading-rolling`` as a ladder baseline."""

    strategy_name = "rolling"


class RidgeAgent(_Baseline):
    """``trading-ridge`` as a ladder baseline."""

    strategy_name = "ridge"



def named_agent(strategy: str) -> Callable[[], TradingStrategyAgent]:
    """The zero-argument factory of ``--agent trading-<strategy>`` (the spec names each)."""
    return functools.partial(TradingStrategyAgent, strategy)


optimal_agent = named_agent("optimal")
conservative_agent = named_agent("conservative")
progressive_agent = named_agent("progressive")
correlation_agent = named_agent("correlation")
rolling_agent = named_agent("rolling")
ridge_agent = named_agent("ridge")
