"""Trading v5's one-pass day grading equals v4's sums then v5's credit, bit for bit."""

from __future__ import annotations

import json

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from arena_gen.core.game import ActionError
from arena_gen.envs.trading import sampler_v5
from arena_gen.envs.trading.game_v4 import TradingGameV4, day_terms
from arena_gen.envs.trading.game_v5 import (
    BookV5,
    DayGrades,
    TradingGameV5,
    day_credit,
    day_grades,
)


def _action(game: TradingGameV5, rng: np.random.Generator) -> str:
    """A random order (all in, small trades, sells of what is not held, malformed text),
    often naming an expected place, sometimes one that does not exist."""
    kind = int(rng.integers(6))
    if kind == 0:
        return "not json"
    order: dict[str, object] = {}
    stock = game.stocks[int(rng.integers(len(game.stocks)))]
    if kind in (1, 2):
        order["buy"] = {stock: int(rng.integers(1, 400))}
    elif kind == 3:
        order["sell"] = {stock: int(rng.integers(1, 400))}
    elif kind == 4:
        order["buy"] = {stock: 10 ** 6}
    if rng.random() < 0.6:
        places = ["cash", *game.stocks]
        order["expect"] = (places[int(rng.integers(len(places)))] if rng.random() < 0.95
                           else "nowhere")
    return json.dumps(order)


def _reference(game: TradingGameV5, state: BookV5, text: str) -> BookV5:
    """A step as v5 took it before: v4's transition and sums, then v5's credit."""
    try:
        action = game.parse(text)
    except ActionError as exc:
        after, _ = TradingGameV4.reject(game, state, exc)
        return game._credited(state, after, None)
    after, _ = TradingGameV4.step(game, state, action)
    return game._credited(state, after, getattr(action, "expect", None))


def test_steps_equal_the_two_pass_grading() -> None:
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(3805)))
    seeds = np.random.SeedSequence(3806).spawn(8)
    steps = 0
    for i, seq in enumerate(seeds):
        suite = "lite" if i % 2 == 0 else "challenge"
        draft = sampler_v5.sample(sampler_v5.PRESETS[suite], seq)
        game = TradingGameV5(draft)
        state = game.initial()
        while not game.done(state):
            text = _action(game, rng)
            want = _reference(game, state, text)
            got = game.act(state, text)[0]
            assert got == want, f"world {i}, day {state.day}: {text}"
            state = got
            steps += 1
    assert steps > 300


_FLOATS = st.floats(-0.05, 0.05, allow_nan=False)


@settings(max_examples=300, deadline=None)
@given(st.integers(2, 9).flatmap(lambda n: st.tuples(
    st.lists(st.sampled_from([0.0, 1.0, 2.5, 40.0, 117.25, 1e4]) | st.floats(0, 1e5),
             min_size=n, max_size=n),
    st.lists(st.floats(0, 1), min_size=n, max_size=n),
    st.lists(_FLOATS | st.sampled_from([0.0, 0.01]), min_size=n, max_size=n),
    st.none() | st.integers(0, n - 1),
    st.sampled_from([0.0, 0.002, 0.01, 0.05]))))
def test_day_grades_equal_day_terms_and_day_credit(case: tuple) -> None:  # type: ignore[type-arg]
    values_l, share, returns_l, expect, tolerance = case
    values = np.array(values_l, dtype=float)
    kept = values * np.array(share)
    returns = np.array(returns_l, dtype=float)
    returns[0] = 0.0  # cash
    want = (*day_terms(values, kept, returns, tolerance), *day_credit(values, returns, expect))
    got = day_grades(values, kept, DayGrades.of(returns, tolerance), expect)
    assert got == want
