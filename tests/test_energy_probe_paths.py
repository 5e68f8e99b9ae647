"""The energy probe draw's fast paths equal the plain ones they replaced (issue 38's probe cost):
a day's record from the rules stepped directly (a shifted copy of the rules sharing all but the
days) is the record the game's own step on a copied game gave, bit for bit; a kept efficiency is
the one stepped afresh; the corners settled lazily give the verdict of all eight. The drawn
questions themselves are pinned in ``test_energy_probe_goldens.py``."""

from __future__ import annotations

import copy
import itertools
from collections import Counter
from functools import cache

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from test_probes_envs import released

from arena_gen.core import registry
from arena_gen.core.game import WorldView
from arena_gen.envs.energy.game_v1 import (
    DISPATCH_ROBUST,
    GENERATORS,
    SOURCES,
    DayRecord,
    EnergyGame,
    GridState,
)
from arena_gen.envs.energy.game_v5 import EnergyGameV5
from arena_gen.envs.energy.game_v6 import EnergyGameV6


@cache
def games() -> tuple[EnergyGameV5, ...]:
    """Games of the first three released Lite energy tasks and of the first moderate Challenge
    one (regime shifts) as v6's game plays it (the paper-scale Challenge's energy is v8's site
    worlds since 2026-12-08; v6 asks about the regime in force on any v5 world)."""
    shifted = released("energy", "challenge-moderate")[0]
    return (*(registry.make_game(t) for t in released("energy", "lite")[:3]),
            EnergyGameV6(WorldView(shifted.world, shifted.public, shifted.budget)))


def plain_record(game: EnergyGame, day: int, stored: float, prev: dict[str, float],
                 cmd: dict[str, float], shift: dict[str, float] | None = None) -> DayRecord:
    """What ``day_record`` was: the game's step, on a copy of the game holding a copy of the
    rules with the day's efficiencies moved."""
    other = game
    if shift:
        rules = copy.copy(game.rules)
        rules._days = list(rules._days)
        th, wi, so, demand, budget = rules._days[day]
        rules._days[day] = (th + shift.get("thermal", 0.0), wi + shift.get("wind", 0.0),
                            so + shift.get("solar", 0.0), demand, budget)
        other = copy.copy(game)
        other.rules = rules
    before = GridState(day=day, stored=float(stored), prev={k: float(prev[k]) for k in SOURCES})
    after, _ = type(game).step(other, before, dict(cmd))
    assert after.last is not None
    return after.last


def plain_settled(game: EnergyGameV5, day: int, stored: float, prev: dict[str, float],
                  cmd: dict[str, float]) -> str | None:
    """The verdict of all eight corners, each computed (``_settled`` as released)."""
    d = DISPATCH_ROBUST
    corners = [plain_record(game, day, stored, prev, cmd, dict(zip(GENERATORS, move,
                                                                     strict=True)))
               for move in itertools.product((-d, d), repeat=len(GENERATORS))]
    if all(game.dispatch_meets(rec) for rec in corners):
        return "yes"
    if all(rec.demand_violated for rec in corners) or all(
            not game._low_carbon(rec) for rec in corners):
        return "no"
    return None


amount = st.floats(-20.0, 400.0, allow_nan=False) | st.sampled_from([0.0, -0.0, 1e-9])
commands = st.fixed_dictionaries({k: amount for k in SOURCES})
shifts = st.none() | st.fixed_dictionaries(
    {k: st.floats(-0.5, 10.0, allow_nan=False) for k in GENERATORS}) | st.sampled_from(
    [dict(zip(GENERATORS, m, strict=True))
     for m in itertools.product((-DISPATCH_ROBUST, DISPATCH_ROBUST), repeat=3)])


@given(st.integers(0, 3), st.integers(0, 10**6), st.floats(0.0, 200.0), commands, commands,
       shifts)
def test_a_day_record_is_the_games_step_on_a_copy(which: int, day: int, stored: float,
                                                  prev: dict[str, float], cmd: dict[str, float],
                                                  shift: dict[str, float] | None) -> None:
    game = games()[which]
    day %= game.rules.horizon
    days = list(game.rules._days)
    got = game.day_record(day, stored, prev, cmd, shift)
    assert repr(got) == repr(plain_record(game, day, stored, prev, cmd, shift))
    assert game.rules._days == days  # the shifted copy left the game's rules alone


def test_kept_efficiencies_are_the_stepped_ones() -> None:
    for game in games():
        for _ in range(2):  # stepped, then kept
            for day in range(game.rules.horizon):
                for source in SOURCES:
                    cmd = {k: 0.0 for k in SOURCES}
                    cmd[source] = 1.0
                    fresh = game.rules.step(GridState(day=day, stored=0.0, prev=dict(cmd)),
                                            cmd).actual[source]
                    assert repr(game.efficiency(day, source)) == repr(fresh)


@given(st.integers(0, 3), st.integers(0, 2**32 - 1), st.floats(0.0, 60.0))
def test_lazily_settled_corners_give_all_eights_verdict(which: int, seed: int,
                                                        stored: float) -> None:
    game = games()[which]
    rng = np.random.Generator(np.random.PCG64(seed))
    days = game.question_days(game.initial())
    first, other = (days[int(i)] for i in rng.choice(len(days), size=2, replace=False))
    unit = game._unit(first, other, rng)
    for day in (first, other):
        member = game._member(day, stored, unit, rng)
        if member is not None:
            _, cmd, prev = member
            assert game._settled(day, stored, prev, cmd) == plain_settled(
                game, day, stored, prev, cmd)


def test_the_settled_sample_reaches_every_verdict() -> None:
    """The members the draw builds settle to ``yes``, ``no`` and None alike (so the equality
    above is tested on each), lazily as eagerly."""
    seen: Counter[str | None] = Counter()
    rng = np.random.Generator(np.random.PCG64(20261207))
    for game in games():
        days = game.question_days(game.initial())
        for _ in range(40):
            first, other = (days[int(i)] for i in rng.choice(len(days), size=2, replace=False))
            unit = game._unit(first, other, rng)
            for day in (first, other):
                member = game._member(day, 0.0, unit, rng)
                if member is not None:
                    verdict = game._settled(day, 0.0, member[2], member[1])
                    assert verdict == plain_settled(game, day, 0.0, member[2], member[1])
                    seen[verdict] += 1
    assert {"yes", "no", None} <= set(seen)
