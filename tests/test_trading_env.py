"""Trading env: strict action parsing, what executes, fees, horizon, and dynamics invariants."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from conftest import built_tasks_of
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena_gen.core import registry
from arena_gen.core.game_env import GameEnv
from arena_gen.core.task import Draft
from arena_gen.envs.trading.game_v1 import (
    Book,
    TradingGame,
    affordable_qty,
    buy_total,
    news_text,
    parse_order,
    price_path,
)
from arena_gen.envs.trading.sampler_v1 import make_draft

STOCKS = ["S0", "S1", "S2"]


def tiny_draft(*, horizon: int = 5, cost_rate: float = 0.0, noise_scale: float = 0.0,
               cash: float = 1000.0) -> Draft:
    """A deterministic hand-made 3 x 2 world whose prices stay well above the floor."""
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([42, horizon])))
    changes = np.round(rng.normal(0, 0.1, size=(horizon, 2)), 4).tolist()
    noise = (np.round(rng.normal(0, noise_scale, size=(horizon, 3)), 4).tolist()
             if noise_scale else [[0.0] * 3 for _ in range(horizon)])
    return make_draft(matrix=[[1.5, -0.5], [0.25, 1.0], [-1.2, 0.8]],
                      initial_prices=[20.0, 55.5, 80.25], changes=changes, noise=noise,
                      noise_scale=noise_scale, cost_rate=cost_rate, initial_cash=cash,
                      min_oracle_profit=0.0)


@pytest.mark.parametrize("text, reason", [
    ("", "empty action"),
    ("buy S0 10", "not valid JSON"),
    ("[1, 2]", "JSON object"),
    ('{"buy": {"S0": -3}}', "negative"),
    ('{"buy": {"S0": 1.5}}', "whole number"),
    ('{"sell": {"S0": "10"}}', "whole number"),
    ('{"buy": {"S0": true}}', "whole number"),
    ('{"buy": {"S0": NaN}}', "whole number"),
    ('{"buy": {"S0": Infinity}}', "whole number"),
    ('{"buy": {"S9": 1}}', "unknown symbol 'S9'"),
    ('{"buy": {"S0": 1}, "hold": {}}', "unknown key 'hold'"),
    ('{"buy": [1]}', "'buy' must map"),
    ('{"buy": {"S0": 1' + "0" * 40 + "}}", "too large"),
    ("[" * 100000, "not valid JSON"),
])
def test_malformed_orders_are_rejected_with_a_reason(text: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        parse_order(text, STOCKS)


@pytest.mark.parametrize("text", ["{}", '{"buy": {}, "sell": {}}', '{"buy": {"S0": 0}}',
                                  '{"buy": null}', ' {"sell": {}} '])
def test_holds_are_valid_and_empty(text: str) -> None:
    order = parse_order(text, STOCKS)
    assert order.buys == [] and order.sells == []


def test_order_keeps_sells_then_buys_in_given_order() -> None:
    order = parse_order('{"buy": {"S2": 3, "S0": 10.0}, "sell": {"S1": 5}}', STOCKS)
    assert order.sells == [(1, 5)]
    assert order.buys == [(2, 3), (0, 10)]


def test_news_text_matches_released_wording() -> None:
    names = ["F0", "F1", "F2", "F3"]
    assert news_text(names, [0.0305, -0.104, 0.0468, -0.0017]) == (
        "F0 rose slightly (+0.03) | F1 decreased significantly (-0.10) | "
        "F2 rose slightly (+0.05) | F3 stable (-0.00)")
    assert news_text(names[:2], [0.0066, -0.0859]) == (
        "F0 stable (0.01) | F1 decreased significantly (-0.09)")


def make_env(**kw: object) -> GameEnv:
    """The env of a draft: a game compiles from a Draft directly (no Task needed)."""
    env = GameEnv(TradingGame(tiny_draft(**kw)))
    env.reset()
    return env


def today(env: GameEnv) -> np.ndarray:
    return env.game.prices[env.state.day].copy()


def test_buy_sell_fees_and_feedback() -> None:
    env = make_env(cost_rate=0.01)
    p0 = today(env)
    _, _, _, _, info = env.step('{"buy": {"S0": 10}}')
    assert info["valid"] and info["holdings"]["S0"] == 10
    cost = p0[0] * 10 * 1.01
    assert info["cash"] == pytest.approx(1000.0 - cost)
    assert info["feedback"].startswith(f"Bought 10 S0 at {p0[0]:.2f}, fee {p0[0] * 0.1:.2f}")
    p1 = today(env)
    _, _, _, _, info = env.step('{"sell": {"S0": 25}}')
    assert info["holdings"]["S0"] == 0
    assert info["feedback"].startswith("Sold 10 S0") and "capped from 25" in info["feedback"]
    assert info["cash"] == pytest.approx(1000.0 - cost + p1[0] * 10 * 0.99)


def test_unaffordable_buy_is_refused_but_the_rest_executes() -> None:
    env = make_env()
    _, _, _, _, info = env.step('{"buy": {"S1": 1000000, "S0": 1}}')
    assert info["valid"] is True
    assert info["feedback"].startswith("Refused buy of 1000000 S1: needs 55500000.00")
    assert info["holdings"] == {"S0": 1, "S1": 0, "S2": 0}
    assert info["refused_buys"] == 1


def test_invalid_action_is_a_hold_and_the_day_advances() -> None:
    env = make_env()
    obs, reward, terminated, truncated, info = env.step('{"buy": {"S0": -1}}')
    assert info["valid"] is False and info["day"] == 1
    assert info["cash"] == 1000.0 and reward == 0.0
    assert "Nothing executed" in obs


def test_observation_shows_prices_and_next_day_news() -> None:
    draft = tiny_draft()
    env = GameEnv(TradingGame(draft))
    obs, info = env.reset()
    assert "Day 0 of 5." in obs
    assert f"S0: {draft.world['initial_prices'][0]:.2f} (holding 0)" in obs
    assert "Next day news: " + news_text(["F0", "F1"], draft.world["changes"][0]) in obs
    assert info["total_value"] == 1000.0 and info["profit_rate"] == 0.0


def test_horizon_terminates_and_success_needs_profit() -> None:
    env = make_env()
    for _ in range(4):
        *_, terminated, truncated, _ = env.step("{}")
        assert not terminated and not truncated
    obs, _, terminated, truncated, info = env.step("{}")
    assert terminated and not truncated and info["day"] == 5
    assert "No more news" in obs and info["success"] is False  # held cash: no profit


def test_step_is_pure_and_reject_is_a_hold() -> None:
    game = TradingGame(tiny_draft(cost_rate=0.01))
    start = game.initial()
    after, event = game.act(start, '{"buy": {"S0": 10}}')
    assert start == Book(day=0, cash=1000.0, holdings=(0, 0, 0))  # not mutated
    assert after.day == 1 and after.holdings == (10, 0, 0) and event.valid
    assert event.reward == pytest.approx(game.value(after) - 1000.0)
    held, event = game.act(start, "sell everything")
    assert held == Book(day=1, cash=1000.0, holdings=(0, 0, 0)) and not event.valid


def test_prices_follow_the_factor_map_and_noise() -> None:
    draft = tiny_draft(noise_scale=0.5)
    world = draft.world
    path, floored = price_path(world)
    assert not floored
    w, ch, nz = (np.array(world[k]) for k in ("matrix", "changes", "noise"))
    expected = np.array(world["initial_prices"]) + np.cumsum(ch @ w.T + nz, axis=0)
    assert np.allclose(path[1:], expected, atol=1e-9)


def test_price_floor_applies() -> None:
    world = dict(tiny_draft().world, initial_prices=[0.5, 50.0, 50.0],
                 matrix=[[20.0, 0.0], [0.0, 0.0], [0.0, 0.0]],
                 changes=[[-1.0, 0.0], [0.01, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]])
    path, floored = price_path(world)
    assert floored and path[1, 0] == 0.1 and path[2, 0] == pytest.approx(0.3)


def test_affordable_qty_respects_the_execute_rule() -> None:
    for cash, price, rate in [(1000.0, 33.33, 0.001), (50000.0, 48.8037, 0.0), (1e18, 2.1, 0.001),
                              (0.0, 5.0, 0.0), (4.99, 5.0, 0.0)]:
        q = affordable_qty(cash, price, rate)
        assert q >= 0 and buy_total(price, q, rate) <= cash
        if cash < 1e12:
            assert buy_total(price, q + 1, rate) > cash


ORDER_DICTS = st.fixed_dictionaries({}, optional={
    "buy": st.dictionaries(st.sampled_from(["S0", "S1", "S2", "S7"]),
                           st.one_of(st.integers(-5, 10**6), st.floats(allow_nan=True))),
    "sell": st.dictionaries(st.sampled_from(["S0", "S1", "S2"]),
                            st.one_of(st.integers(-5, 10**6), st.just(2.0))),
})
ACTIONS = st.one_of(ORDER_DICTS.map(json.dumps), st.text(max_size=30),
                    st.sampled_from(["{}", "[]", '{"buy": {"S0": 1e400}}']))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(actions=st.lists(ACTIONS, min_size=1, max_size=12), cost=st.sampled_from([0.0, 0.01]))
def test_cash_holdings_and_value_identity_hold(actions: list[str], cost: float) -> None:
    env = make_env(cost_rate=cost, horizon=12)
    for action in actions:
        _, _, terminated, truncated, info = env.step(action)
        assert info["cash"] >= 0.0
        assert all(isinstance(h, int) and h >= 0 for h in info["holdings"].values())
        marked = sum(info["holdings"][s] * p for s, p in zip(STOCKS, info["prices"], strict=True))
        assert math.isclose(info["total_value"], info["cash"] + marked, rel_tol=1e-12)
        assert info["day"] == env.turn
        if terminated or truncated:
            break


def test_built_task_random_actions_never_crash() -> None:
    task = built_tasks_of("trading", 1, count=1)[0]
    env = registry.make_env(task)
    env.reset()
    rng = np.random.Generator(np.random.PCG64(3))
    for _ in range(task.budget):
        _, _, terminated, _, info = env.step(env.sample_action(rng))
        assert info["valid"] and info["cash"] >= 0
    assert terminated
