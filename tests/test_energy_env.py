"""Energy env: strict action parsing, the transition rules, and dynamics properties."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena_gen.core import registry
from arena_gen.core.seeds import task_seed
from arena_gen.core.task import Certificate, Task
from arena_gen.envs.energy.game_v1 import (
    COLLAPSE_DAYS,
    EnergyGame,
    Rules,
    format_action,
    parse_action,
)
from arena_gen.envs.energy.sampler_v1 import PRESETS, sample

_V1_CACHE: dict[tuple[str, int], list[Task]] = {}


def v1_tasks(suite: str = "lite", count: int = 1) -> list[Task]:
    """The first ``count`` energy v1 tasks of a preset (built once per session)."""
    from arena_gen.suite.build import generate_task

    cached = _V1_CACHE.get((suite, 7), [])
    if len(cached) < count:
        cached = [generate_task("energy", suite, 7, i, version=1).task for i in range(count)]
        _V1_CACHE[(suite, 7)] = cached
    return cached[:count]


def small_task(horizon: int = 12, index: int = 0) -> Task:
    """An unverified energy task with a short horizon (dynamics tests need no certificate)."""
    config = PRESETS["lite"].replace(horizon=horizon)
    draft = sample(config, task_seed(3, "custom", 3, index))
    cert = Certificate(solvable=False, method="lp", min_steps=None, witness=[],
                       verifier_version=1, seconds=None)
    return Task(id=f"energy-custom-3-{index:04d}", env="energy", env_version=1, suite="custom",
                seed_path=[3, 3, 3, index, 0], params=draft.params, budget=draft.budget,
                public=draft.public, world=draft.world, rules_text=draft.rules_text,
                rubric=draft.rubric, certificate=cert)


def test_parse_action_accepts_partial_and_ints() -> None:
    assert parse_action(' {"thermal": 200, "wind": 10.5} ') == {
        "thermal": 200.0, "wind": 10.5, "solar": 0.0, "battery": 0.0}
    assert parse_action("{}") == {"thermal": 0.0, "wind": 0.0, "solar": 0.0, "battery": 0.0}


@pytest.mark.parametrize("text, reason", [
    ("", "empty"), ("{", "not valid JSON"), ("[1, 2]", "JSON object"), ("3", "JSON object"),
    ('{"Thermal": 3}', "unknown key"), ('{"thermal": "3"}', "must be a number"),
    ('{"thermal": true}', "must be a number"), ('{"thermal": NaN}', "finite"),
    ('{"wind": Infinity}', "finite"), ('{"solar": 1e999}', "finite"),
    ('{"solar": ' + "9" * 400 + "}", "finite"), ('{"battery": null}', "must be a number"),
])
def test_parse_action_rejects(text: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        parse_action(text)


def test_invalid_action_spends_a_turn_without_advancing() -> None:
    env = registry.make_env(small_task())
    env.reset()
    obs, reward, terminated, truncated, info = env.step('{"coal": 5}')
    assert info["valid"] is False and info["day"] == 0 and info["turn"] == 1
    assert "unknown key 'coal'" in obs and "did not advance" in obs
    assert not terminated and not truncated and reward == 0.0


def test_one_day_matches_the_rules_by_hand() -> None:
    task = small_task()
    w = task.world
    env = registry.make_env(task)
    env.reset()
    _, _, _, _, info = env.step('{"thermal": 300, "wind": 100, "solar": 50, "battery": -30}')
    rec = info["last_day"]
    assert rec["actual"]["thermal"] == pytest.approx(300 * w["eff_thermal"][0])
    assert rec["actual"]["wind"] == pytest.approx(100 * w["eff_wind"][0])
    assert rec["actual"]["battery"] == -30.0 and info["stored"] == 30.0
    assert rec["cost"] == pytest.approx(300 * 3 + 100 * 5 + 50 * 6 + 0.1 * 30)
    init = w["initial_rated"]
    ramp = abs(300 - init["thermal"]) + abs(100 - init["wind"]) + abs(50 - init["solar"]) + 30
    assert rec["ramp"] == pytest.approx(ramp)
    supply = rec["actual"]["thermal"] + rec["actual"]["wind"] + rec["actual"]["solar"] - 30
    assert rec["supply"] == pytest.approx(supply)
    expected = 1 - 0.5 * ramp / 1280 - 0.5 * (supply < w["demand"][0]) \
        - 0.5 * (rec["cost"] > w["budget"][0])
    assert info["stability"] == pytest.approx(min(max(expected, 0.0), 1.0))
    assert info["thermal_share"] == pytest.approx(rec["actual"]["thermal"] / supply)


def test_battery_clamps_to_store_and_capacity() -> None:
    env = registry.make_env(small_task())
    env.reset()
    _, _, _, _, info = env.step('{"battery": 50}')  # empty store: nothing to discharge
    assert info["last_day"]["actual"]["battery"] == 0.0 and info["stored"] == 0.0
    _, _, _, _, info = env.step('{"battery": -500}')  # command clamps to -80
    assert info["last_day"]["rated"]["battery"] == -80.0 and info["stored"] == 80.0
    _, _, _, _, info = env.step('{"battery": -10}')  # full store
    assert info["last_day"]["actual"]["battery"] == 0.0 and info["stored"] == 80.0


def test_observation_reports_yesterday_and_today() -> None:
    task = small_task()
    env = registry.make_env(task)
    obs, _ = env.reset()
    assert "first day, no history" in obs
    assert f"Today (day 0): demand {task.world['demand'][0]:.2f}" in obs
    obs, *_ = env.step('{"thermal": 600, "wind": 350, "solar": 250}')
    assert "Yesterday (day 0): rated thermal 600.00, wind 350.00, solar 250.00" in obs
    assert "budget violated" in obs and "consecutive violation days 1" in obs
    assert f"Today (day 1): demand {task.world['demand'][1]:.2f}" in obs
    assert "efficien" not in obs.lower()  # efficiencies are never shown


commands = st.fixed_dictionaries({
    "thermal": st.floats(-50, 700, allow_nan=False),
    "wind": st.floats(-50, 400, allow_nan=False),
    "solar": st.floats(-50, 300, allow_nan=False),
    "battery": st.floats(-120, 120, allow_nan=False),
})


@settings(max_examples=60, deadline=None)
@given(st.lists(commands, min_size=1, max_size=14), st.integers(0, 3))
def test_dynamics_invariants(cmds: list[dict[str, float]], index: int) -> None:
    task = small_task(horizon=12, index=index)
    env = registry.make_env(task)
    env.reset()
    streak, day = 0, 0
    for cmd in cmds:
        _, _, terminated, truncated, info = env.step(json.dumps(cmd))
        assert info["valid"]
        assert 0.0 <= info["stored"] <= 80.0
        assert 0.0 <= info["last_day"]["stability"] <= 1.0
        assert 0.0 <= info["stability"] <= 1.0
        day += 1
        rec = info["last_day"]
        streak = streak + 1 if rec["demand_violated"] or rec["budget_violated"] else 0
        assert info["violation_streak"] == streak
        # The episode ends exactly on the third consecutive violation day (or the horizon).
        assert terminated == (streak == COLLAPSE_DAYS or day == 12)
        assert info["collapsed"] == (streak == COLLAPSE_DAYS)
        if terminated or truncated:
            break


def test_collapse_on_third_violation_day_is_failure() -> None:
    env = registry.make_env(small_task())
    env.reset()
    for i in range(COLLAPSE_DAYS):
        obs, reward, terminated, _, info = env.step("{}")  # no supply: demand violated
        assert terminated == (i == COLLAPSE_DAYS - 1)
    assert "Grid collapse" in obs and info["collapsed"] and not info["success"]
    assert reward == 0.0


def test_random_action_is_valid_json() -> None:
    task = small_task()
    rng = np.random.Generator(np.random.PCG64(1))
    for _ in range(20):
        cmd = parse_action(EnergyGame.random_action(task.public, rng))
        assert 0 <= cmd["thermal"] <= 600 and -80 <= cmd["battery"] <= 80


def test_format_action_round_trips() -> None:
    cmd = {"thermal": 1.23456, "wind": 0.0, "solar": 249.9996, "battery": -0.0004}
    assert parse_action(format_action(cmd)) == {"thermal": 1.235, "wind": 0.0, "solar": 250.0,
                                                "battery": -0.0}


def test_rules_reject_short_series() -> None:
    world = dict(small_task().world, demand=[400.0])
    with pytest.raises(ValueError, match="demand has 1 days"):
        Rules(world)


#: A command value as callers may pass one: any float (signed zeros, infinities, NaN), an int,
#: a bool, a float subclass.
_ANY_NUMBER = st.one_of(st.floats(), st.integers(-10**6, 10**6), st.booleans(),
                        st.sampled_from([0.0, -0.0, 80.0, -80.0, 1e308, np.float64(-3.5)]))


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["thermal", "wind", "solar", "battery"]), _ANY_NUMBER))
def test_rules_clamp_as_min_max_do(cmd: dict[str, float]) -> None:
    """The day's rated values are ``min(max(float(x), lo), hi)`` of each command, as the same
    objects (signed zeros and NaN included): the rules test the clamp's bounds inline."""
    rules = Rules(small_task(horizon=3).world)
    state = rules.start()
    rec = rules.step(state, cmd)
    cap = rules.capacity
    for key in ("thermal", "wind", "solar", "battery"):
        low = -cap[key] if key == "battery" else 0.0
        expected = min(max(float(cmd.get(key, 0.0)), low), cap[key])
        got = rec.rated[key]
        assert type(got) is float
        assert repr(got) == repr(expected)


def test_step_event_equals_the_constructors() -> None:
    """The day's event is what ``Event(feedback=..., reward=...)`` builds: same fields in the
    same order, equal values of the same types, still frozen."""
    import dataclasses

    from arena_gen.core.game import Event

    task = small_task(horizon=4)
    game = registry.make_env(task).game
    state = game.initial()
    for text in ['{"thermal": 500, "wind": 100}', "{}", '{"battery": -80}', "{}"]:
        state, event = game.step(state, game.parse(text))
        built = Event(feedback=event.feedback, reward=event.reward)
        assert event == built and type(event) is Event
        assert list(vars(event).items()) == list(vars(built).items())
        assert [type(v) for v in vars(event).values()] == [type(v) for v in vars(built).values()]
        with pytest.raises(dataclasses.FrozenInstanceError):
            event.valid = False  # type: ignore[misc]
