"""Certified detectability of energy's pattern shifts (issue 39): brute force, exact values, the
released learner never declares a shift before its certified minimum."""

from __future__ import annotations

import dataclasses
import functools
import itertools
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from arena_gen.cli import main
from arena_gen.core import registry
from arena_gen.core.episode import Episode
from arena_gen.core.game import WorldView
from arena_gen.core.task import Task
from arena_gen.envs.energy.detectability import (
    DetectabilityLimit,
    certify,
    declarations,
    no_shift_refuted,
    own_deviation,
    placement_day,
    witness,
)
from arena_gen.envs.energy.game_v1 import EnergyGame, format_action
from arena_gen.envs.energy.sampler_v3 import rules_text_v3

ROOT = Path(__file__).resolve().parents[1]

#: The tiny class: efficiencies on a grid of 0.1 in [0.6, 0.9], deviations of at most 0.1,
#: periods 2-3, 6 days, one shift, regimes of at least 1 day.
LO, HI, BOUND, DAYS, PERIODS, MIN_REGIME = 0.6, 0.9, 0.1, 6, (2, 3), 1
GRID = (0.6, 0.7, 0.8, 0.9)
PARAMS = {"t_min": PERIODS[0], "t_max": PERIODS[-1], "min_regime": MIN_REGIME, "shifts": 1}
#: Wind alone at capacity, or solar alone: each shows one source's actual output each day.
ALONE = {"wind": {"thermal": 100.0, "wind": 350.0}, "solar": {"thermal": 100.0, "solar": 250.0}}


def world(wind: list[float], solar: list[float], shift: int | None,
          ranges: tuple[float, float] = (LO, HI)) -> dict[str, Any]:
    """A hand-made energy world over the given efficiency series (flat demand, thermal 1)."""
    days = len(wind)
    base = {"wind_period": 2, "solar_period": 2, "wind_base": [0.7, 0.7],
            "solar_base": [0.7, 0.7]}
    return {"horizon": days, "demand": [300.0] * days, "budget": [3000.0] * days,
            "eff_thermal": [1.0] * days, "eff_wind": wind, "eff_solar": solar,
            "capacity": {"thermal": 600.0, "wind": 350.0, "solar": 250.0, "battery": 80.0},
            "prices": {"thermal": 3.0, "wind": 5.0, "solar": 6.0, "battery": 0.1},
            "initial_rated": {"thermal": 200.0, "wind": 100.0, "solar": 50.0},
            "target_stability": 0.9, "target_carbon": 0.7, **base,
            "eff_ranges": {"wind": list(ranges), "solar": list(ranges), "thermal": [0.95, 1.05]},
            "shift": None if shift is None else {"day": shift, **base}}


def renders(w: dict[str, Any], source: str) -> list[str]:
    """What an agent rating ``source`` alone at capacity sees each day (the game's own text)."""
    game = EnergyGame(WorldView(world=w))
    state = game.initial()
    action = game.parse(format_action(ALONE[source]))
    shown = []
    for _ in range(w["horizon"]):
        state, _ = game.step(state, action)
        shown.append(game.render(state))
    return shown


@functools.cache
def unshifted_series() -> tuple[tuple[float, ...], ...]:
    """Every series of one unshifted regime of the tiny class: a period, a base pattern and a
    deviation per day, all on the grid, clipped to the range."""
    out = set()
    devs = (-BOUND, 0.0, BOUND)
    for period in PERIODS:
        for base in itertools.product(GRID, repeat=period):
            for noise in itertools.product(devs, repeat=DAYS):
                out.add(tuple(round(min(HI, max(LO, base[t % period] + noise[t])), 6)
                              for t in range(DAYS)))
    return tuple(sorted(out))


@functools.cache
def unshifted_renders(source: str) -> tuple[tuple[str, ...], ...]:
    """Every unshifted series of the class played through the game, ``source`` alone rated."""
    flat = [0.7] * DAYS
    return tuple(tuple(renders(world(list(s), flat, None) if source == "wind" else
                               world(flat, list(s), None), source)) for s in unshifted_series())


def brute_minimum(wind: list[float], solar: list[float], shift: int) -> int:
    """The earliest day ``d`` at which no unshifted world of the tiny class (its shift, if any,
    on day ``d`` or later and placed as the sampler places it) shows what the shifted world
    showed on days ``0 .. d-1``: every world enumerated and played through the game."""
    true = world(wind, solar, shift)
    # Wind and solar are drawn independently, and an agent rating both sees each one's actual
    # output: an unshifted world matches when its wind does and its solar does.
    for d in range(shift + 1, DAYS + 1):
        placed = d <= DAYS - MIN_REGIME  # a shift on day d or later, a day before the end
        if not placed:
            return d
        for source in ("wind", "solar"):
            seen = tuple(renders(true, source)[:d])
            if not any(r[:d] == seen for r in unshifted_renders(source)):
                return d
    return DAYS + 1


def test_brute_force_over_the_tiny_class_agrees() -> None:
    # Shifted worlds: an unshifted regime of the class, then from the shift any grid values.
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([39, 1])))
    series = unshifted_series()
    minima, methods = set(), set()
    for _ in range(16):
        shift = int(rng.integers(2, 5))
        old = [list(series[int(rng.integers(len(series)))]) for _ in range(2)]
        new = [[float(GRID[int(rng.integers(len(GRID)))]) for _ in range(DAYS - shift)]
               for _ in range(2)]
        wind, solar = old[0][:shift] + new[0], old[1][:shift] + new[1]
        (cert,) = certify(world(wind, solar, shift), PARAMS, bound=BOUND)
        assert cert.minimum == brute_minimum(wind, solar, shift), (wind, solar, shift)
        minima.add(cert.minimum - shift)
        methods.add(cert.method)
    assert methods == {"noise", "placement"} and len(minima) >= 2


def test_exact_values_on_a_hand_made_world() -> None:
    # Wind alternates 0.70 / 0.80 for 6 days, then shifts on day 6: 0.72 still fits the old
    # pattern (period 2 base 0.70 within 0.05, or period 3 with every base 0.75), 0.95 on day 7
    # fits neither, so a learner dispatching day 8 is the first to know: d* = 8, delay 2.
    # Solar never changes; the placement (one shift, regimes >= 3 days, 12 days) alone would
    # decide on day 10.
    wind = [0.70, 0.80] * 3 + [0.72, 0.95, 0.90, 0.95, 0.90, 0.95]
    solar = [0.80] * 12
    w = world(wind, solar, 6, ranges=(0.6, 1.0))
    params = {"t_min": 2, "t_max": 3, "min_regime": 3, "shifts": 1}
    assert no_shift_refuted(wind, 0, 12, 2, 0.6, 1.0, 0.05) == 7
    assert no_shift_refuted(wind, 0, 12, 3, 0.6, 1.0, 0.05) == 7
    assert no_shift_refuted(solar, 0, 12, 2, 0.6, 1.0, 0.05) is None
    assert placement_day(12, 1, 3) == 10
    (cert,) = certify(w, params, bound=0.05)
    assert (cert.day, cert.start, cert.minimum, cert.delay, cert.method) == (6, 0, 8, 2, "noise")
    assert cert.periods_alive == {"wind": 2, "solar": 2}
    # With a bound of 0.13 period 2 explains every day (phase bases 0.77-0.83 and 0.82-0.93),
    # so only the placement refutes the unshifted world.
    (wide,) = certify(w, params, bound=0.13)
    assert (wide.minimum, wide.method) == (10, "placement")
    # The world's own deviation: its base 0.70 explains 0.80 within 0.1.
    assert own_deviation(wind, [0.7, 0.7], 0, 6, 0.6, 1.0) == pytest.approx(0.1)
    # A clipped day needs only the base within the bound of the range's end.
    assert own_deviation([0.6], [0.65], 0, 1, 0.6, 1.0) == pytest.approx(0.05)
    assert no_shift_refuted([0.6, 0.6], 0, 2, 1, 0.6, 1.0, 0.05) is None


def test_a_world_without_shifts_has_nothing_to_certify_and_the_clock_is_bounded() -> None:
    w = world([0.7] * 7, [0.7] * 7, None)
    assert certify(w, PARAMS) == []
    shifted = world([0.7] * 4 + [0.8] * 3, [0.7] * 7, 4)
    with pytest.raises(DetectabilityLimit, match="stopped after 0 s at shift 1"):
        certify(shifted, PARAMS, seconds=0.0)


def released(suite: str) -> list[Task]:
    """The released energy tasks of a suite, read from ``suites/`` as they are."""
    path = ROOT / "suites" / suite / "energy.jsonl"
    return [Task.from_dict(json.loads(line)) for line in path.read_text().splitlines()]


def test_released_lite_has_no_shift_and_every_challenge_shift_is_certified() -> None:
    assert all(certify(t.world, t.params) == [] for t in released("lite"))
    for suite in ("challenge-moderate", "challenge"):
        # v3-v6's world-wide shifts here; v7-v8's per-site shifts in test_energy_detectability_v7
        for task in (t for t in released(suite)
                     if registry.get("energy", t.env_version).hidden_change is not None
                     and "sites" not in t.world):
            days = task.params["shift_days"]
            cert = certify(task.world, task.params)
            assert [c.day for c in cert] == days
            assert all(c.day < c.minimum <= task.world["horizon"] for c in cert)
            assert all(c.method == "noise" for c in cert)


def test_the_heuristic_raises_no_alarm_on_released_lite() -> None:
    # Lite's patterns never shift, so any declaration would be a false alarm.
    for task in released("lite"):
        agent = registry.get("energy", task.env_version).load("heuristic")()
        assert declarations(task, agent)[0] == [], task.id


def test_the_heuristic_never_declares_a_shift_before_its_certified_minimum() -> None:
    # Released Challenge-moderate (v5, two shifts a task): the CUSUM learner's first
    # declaration after each shift (up to the next shift's day) comes on or after d*.
    detected = 0
    for task in released("challenge-moderate"):
        agent = registry.get("energy", task.env_version).load("heuristic")()
        said, _ = declarations(task, agent)
        cert = certify(task.world, task.params)
        ends = [c.day for c in cert[1:]] + [task.world["horizon"]]
        for c, end in zip(cert, ends, strict=True):
            first = next((d for d in said if c.day < d <= end), None)
            if first is not None:
                assert first >= c.minimum, (task.id, c.day, first, c.minimum)
                detected += 1
    assert detected == 20


def test_the_witness_is_an_unshifted_world_the_planner_solves() -> None:
    # Challenge-moderate 0003's second shift (day 225) is certain only on day 228: the witness
    # moves it to day 227 with the task's series on every day, the regime begun on day 127
    # explaining days 127-226 within the certified bound, and the with-rules planner (the one
    # acceptance check reading the rules text) still solves it.
    task = released("challenge-moderate")[3]
    first, second = certify(task.world, task.params)
    assert first.minimum == first.day + 1 and (second.day, second.minimum) == (225, 228)
    same = witness(task.world, task.params, first)
    assert same is not None and [s["day"] for s in same["shifts"]] == [127, 225]
    w = witness(task.world, task.params, second)
    assert w is not None and [s["day"] for s in w["shifts"]] == [127, 227]
    for source in ("wind", "solar"):
        assert w[f"eff_{source}"] == task.world[f"eff_{source}"]
        lo, hi = task.world["eff_ranges"][source]
        base = w["shifts"][0][f"{source}_base"]
        assert own_deviation(w[f"eff_{source}"], base, 127, 227, lo, hi) <= second.bound[source]
        moved = w["shifts"][1][f"{source}_base"]
        true = task.world["shifts"][1][f"{source}_base"]
        assert moved == true[2:] + true[:2]  # re-tiled from two days later
    other = dataclasses.replace(task, world=w, rules_text=rules_text_v3(w))
    agent = registry.get("energy", task.env_version).load("planner")()
    episode = Episode(other, agent, mode="with-rules", attempt=0, run_seed=0)
    while not episode.over:
        episode.step(agent.act(episode.obs), 0.0)
    assert episode.env.success


def test_show_reveal_prints_each_shift_and_the_agent_view_does_not() -> None:
    def show(task_id: str, suite: str, *flags: str) -> str:
        result = CliRunner().invoke(main, ["show", task_id, "--suite",
                                           str(ROOT / "suites" / suite), *flags])
        assert result.exit_code == 0, result.output
        return result.output

    heading = "-- hidden change: certified minimum detection day --"
    text = show("energy-challenge-7-0003", "challenge-moderate", "--reveal")
    assert text.count(heading) == 1
    tail = text.split(heading)[1].strip().splitlines()
    assert tail == [
        "shift 1 on day 127 (regime from day 0): a learner can know of it on day 128 at the "
        "earliest (least delay 1 day, by noise; deviations within wind 0.026, solar 0.040)",
        "shift 2 on day 225 (regime from day 127): a learner can know of it on day 228 at the "
        "earliest (least delay 3 days, by noise; deviations within wind 0.031, solar 0.048)"]
    assert heading not in show("energy-challenge-7-0003", "challenge-moderate")
    assert heading not in show("energy-lite-7-0003", "lite", "--reveal")
    assert heading not in show("lights-lite-7-0003", "lite", "--reveal")


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_the_witness_shows_the_same_days_and_explains_them_within_the_bound(
        data: st.DataObject) -> None:
    # Any shifted world of the tiny class: the witness of the day before d* keeps the series,
    # moves the shift to d* - 1 and explains every day before it by one regime within D.
    shift = data.draw(st.integers(2, 4))
    series = unshifted_series()
    old = [list(series[data.draw(st.integers(0, len(series) - 1))]) for _ in range(2)]
    new = [data.draw(st.lists(st.sampled_from(GRID), min_size=DAYS - shift,
                              max_size=DAYS - shift)) for _ in range(2)]
    base = {"wind_period": 2, "solar_period": 2, "wind_base": [0.7, 0.7],
            "solar_base": [0.7, 0.7]}
    w = {**world(old[0][:shift] + new[0], old[1][:shift] + new[1], None),
         "shifts": [{"day": shift, **base}]}
    (cert,) = certify(w, PARAMS, bound=BOUND)
    wit = witness(w, PARAMS, cert)
    if cert.minimum == shift + 1:
        assert wit is not None and wit["shifts"][0]["day"] == shift
        return
    assert wit is not None and wit["shifts"][0]["day"] == cert.minimum - 1
    for source in ("wind", "solar"):
        assert wit[f"eff_{source}"] == w[f"eff_{source}"]
        assert PERIODS[0] <= wit[f"{source}_period"] <= PERIODS[-1]
        assert own_deviation(wit[f"eff_{source}"], wit[f"{source}_base"], 0,
                             cert.minimum - 1, LO, HI) <= BOUND + 1e-9
