"""Trading verifier: identifiability of W, the perfect-foresight oracle (witness), bound, baselines.

A trading task has no single solved state, so the certificate proves it well-posed and measures
its headroom: the first day m by which the news matrix has full column rank (W is then
recoverable, exactly when there is no noise), the integer greedy oracle with fees (its action
list is the witness, replayed through the env), the continuous optimum with fees (an upper bound
on any trader), and two baselines: equal-weight buy-and-hold and the online ridge agent.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from arena_gen.core.errors import VerificationError
from arena_gen.core.game import TaskLike
from arena_gen.core.game_env import GameEnv
from arena_gen.core.replay import ReplayResult
from arena_gen.core.task import Certificate, Task
from arena_gen.envs.trading.game_v1 import (
    Order,
    TradingGame,
    affordable_qty,
    execute,
    order_text,
    price_path,
    total_value,
)
from arena_gen.envs.trading.policies import RidgePolicy, greedy_order

VERIFIER_VERSION = 1


def identifiability(changes: np.ndarray) -> tuple[int | None, float | None]:
    """The first day m with rank(dF(1..m)) = F, and the condition number of dF(1..m)."""
    n_days, n_factors = changes.shape
    for m in range(n_factors, n_days + 1):
        block = changes[:m]
        if np.linalg.matrix_rank(block) == n_factors:
            return m, float(np.linalg.cond(block))
    return None, None


def continuous_bound(path: np.ndarray, cost_rate: float) -> float:
    """Best final wealth multiple with fractional shares and fees (DP over all-in positions)."""
    ratios = path[1:] / path[:-1]
    buy, sell = 1.0 / (1.0 + cost_rate), 1.0 - cost_rate
    cash, stock = 1.0, np.zeros(path.shape[1])  # wealth if holding cash / all-in stock k
    for ratio in ratios:
        best_stock = float(stock.max()) if stock.size else 0.0
        new_cash = max(cash, best_stock * sell)
        switch = max(cash * buy, best_stock * sell * buy)
        stock = np.maximum(stock, switch) * ratio
        cash = new_cash
    return max(cash, float(stock.max()))


def play_oracle(game: TradingGame) -> tuple[list[str], float]:
    """Greedy all-in on tomorrow's best net outcome, with the true prices, through the game."""
    book = game.initial()
    witness: list[str] = []
    while not game.done(book):
        order = greedy_order(book.cash, list(book.holdings), game.prices[book.day],
                             game.prices[book.day + 1], game.cost_rate)
        action = order_text(order, game.stocks)
        witness.append(action)
        book, _ = game.act(book, action)
    return witness, game.value(book)


def hold_value(world: dict[str, Any], path: np.ndarray) -> float:
    """Equal-weight buy-and-hold: day 0 splits the cash equally, whole shares, fees paid."""
    cost_rate = float(world["cost_rate"])
    cash = float(world["initial_cash"])
    share = cash / path.shape[1]
    order = Order(buys=[(i, affordable_qty(share, float(p), cost_rate))
                        for i, p in enumerate(path[0])])
    fill = execute(cash, [0] * path.shape[1], path[0], order, cost_rate)
    return total_value(fill.cash, fill.holdings, path[-1])


def play_heuristic(game: TradingGame) -> float:
    """Final value of the ridge policy, which sees only the env's text (the ridge baseline)."""
    env = GameEnv(game)
    obs, _ = env.reset()
    policy = RidgePolicy(game.task.public)
    while not game.done(env.state):
        obs, *_ = env.step(policy.act(obs))
    return float(game.value(env.state))


def _rate(value: float, cash: float) -> float:
    return round(value / cash - 1.0, 6)


def verify(task: TaskLike, game_class: type[TradingGame] = TradingGame,
           path_of: Callable[[Any], tuple[np.ndarray, bool]] = price_path) -> Certificate:
    """Certify a trading Draft (or Task): identifiability, oracle witness and value, bound,
    baselines. The game compiles from the draft itself: no task id or env version is needed
    (a later version whose price rule reads more of the world passes its game and path)."""
    start = time.perf_counter()
    world = task.world
    cash = float(world["initial_cash"])
    path, floored = path_of(world)
    changes = np.asarray(world["changes"], dtype=float)
    m, cond = identifiability(changes)
    witness, oracle_value = play_oracle(game_class(task))
    bound = continuous_bound(path, float(world["cost_rate"]))
    facts = {
        "identifiability_day": m,
        "condition_number": None if cond is None else float(f"{cond:.6g}"),
        "oracle_final_value": round(oracle_value, 2),
        "oracle_profit": _rate(oracle_value, cash),
        "upper_bound_profit": round(bound - 1.0, 6),
        "hold_profit": _rate(hold_value(world, path), cash),
        "ridge_profit": _rate(play_heuristic(game_class(task)), cash),
        "min_price": round(float(path.min()), 4),
        "price_floored": floored,
    }
    return Certificate(solvable=oracle_value > cash, method="oracle", min_steps=None,
                       witness=witness, verifier_version=VERIFIER_VERSION,
                       seconds=time.perf_counter() - start, facts=facts)


def replay_check(task: Task, result: ReplayResult) -> None:
    """The replayed witness must reach the horizon at the oracle value the certificate records."""
    info = result.final_info
    facts = task.certificate.facts
    horizon = int(task.world["horizon"])
    if int(info.get("day", -1)) != horizon:
        raise VerificationError(f"task {task.id}: witness replay stopped at day "
                                f"{info.get('day')} of {horizon}")
    replayed = round(float(info.get("total_value", float("nan"))), 2)
    if replayed != facts.get("oracle_final_value"):
        raise VerificationError(f"task {task.id}: witness replays to {replayed}, certificate "
                                f"records oracle_final_value {facts.get('oracle_final_value')}")
