"""The game-played induction solver (issue 39): it equals the fully observed solver on lights,
and a brute force that replays every world through its game on small repo, energy and trading
classes."""

from __future__ import annotations

import json
import math

import pytest

from arena_gen.core.game import WorldView
from arena_gen.core.induction import InductionLimit, solve
from arena_gen.core.induction_games import GameClass, solve_games
from arena_gen.envs.energy.induction import energy_class
from arena_gen.envs.lights.game_v1 import LightsGame
from arena_gen.envs.lights.induction import lights_class
from arena_gen.envs.repo.induction import repo_class
from arena_gen.envs.trading.induction import trading_class
from tests.induction_brute import brute


def _same(got: float, want: float) -> bool:
    return got == want or got == pytest.approx(want, rel=1e-12)


def test_lights_played_by_its_game_equals_the_observed_solver() -> None:
    cls = lights_class(3, max_literals=1, min_len=2, budget=12, p_not=0.55, p_and=0.6)
    games = GameClass(games=[LightsGame(WorldView(world=w)) for w in cls.worlds],
                      weights=cls.weights, actions=[str(b) for b in range(3)],
                      told=[float(m) for m in cls.min_steps])
    got, want = solve_games(games, 12), solve(cls.world_class(), 12)
    assert (got.worst, got.success) == (want.worst, 1.0)
    assert got.expected == pytest.approx(want.expected, rel=1e-12)
    assert got.told == pytest.approx(cls.expected_min_steps())


@pytest.mark.parametrize(("draws", "seed", "packages", "horizon"),
                         [(40, 39, 2, 8), (60, 41, 2, 8), (200, 39, 3, 8)])
def test_repo_class_agrees_with_brute_force(draws: int, seed: int, packages: int,
                                            horizon: int) -> None:
    rc = repo_class(draws, seed, packages=packages)
    cls = rc.game_class()
    got = solve_games(cls, horizon)
    worst, expected, success = brute(cls.games, cls.weights, cls.actions, horizon)
    assert _same(got.worst, worst) and _same(got.expected, expected)
    assert got.success == pytest.approx(success, rel=1e-12)
    assert got.told <= got.expected <= got.worst
    assert max(rc.min_steps) <= got.worst
    assert len(rc.worlds) >= 2  # a class, not a single world


def test_repo_class_is_the_samplers_view() -> None:
    """Every world of the class shows the same public view, and each was accepted."""
    rc = repo_class(60, 39)
    assert sum(rc.counts) <= rc.accepted <= rc.draws
    assert all(list(w["package_order"]) == list(rc.public["packages"]) for w in rc.worlds)
    assert all(math.isfinite(m) and m >= 1 for m in rc.min_steps)


def test_the_game_solver_says_when_it_stops() -> None:
    with pytest.raises(InductionLimit):
        solve_games(repo_class(60, 39).game_class(), 8, max_nodes=50)


@pytest.mark.parametrize("seed", [1, 3])
def test_trading_class_agrees_with_brute_force(seed: int) -> None:
    tc = trading_class(300, seed)
    cls = tc.game_class()
    got = solve_games(cls, 3)
    worst, expected, success = brute(cls.games, cls.weights, cls.actions, 3, key=repr)
    assert _same(got.worst, worst) and _same(got.expected, expected)
    assert got.success == pytest.approx(success, rel=1e-12)
    # the learner succeeds at most where a learner told the world can, on the same grid
    told = [solve_games(GameClass(games=[g], weights=[1.0], actions=cls.actions, key=repr),
                        3).success for g in cls.games]
    assert 0 < got.success <= sum(told) / len(told)
    assert all(w.world["matrix"] != tc.worlds[0].world["matrix"] for w in tc.worlds[1:])
    assert {json.dumps(w.public) for w in tc.worlds} == {json.dumps(tc.public)}


@pytest.mark.parametrize("seed", [3, 4])
def test_energy_class_agrees_with_brute_force(seed: int) -> None:
    ec = energy_class(12, seed)
    cls = ec.game_class()
    got = solve_games(cls, 3)
    worst, expected, success = brute(cls.games, cls.weights, cls.actions, 3, key=repr)
    assert _same(got.worst, worst) and _same(got.expected, expected)
    assert got.success == pytest.approx(success, rel=1e-12)
    told = [solve_games(GameClass(games=[g], weights=[1.0], actions=cls.actions, key=repr),
                        3).success for g in cls.games]
    assert got.success <= sum(told) / len(told)
    assert len(ec.worlds) >= 2
    assert {json.dumps(w.public) for w in ec.worlds} == {json.dumps(ec.public)}


def test_a_class_starts_alike() -> None:
    """Worlds that show different first observations are no class: the solver refuses them."""
    tc = trading_class(300, 3)
    other = trading_class(300, 1)
    cls = tc.game_class()
    mixed = GameClass(games=[cls.games[0], other.game_class().games[0]], weights=[1.0, 1.0],
                      actions=cls.actions, key=repr)
    with pytest.raises(ValueError, match="same first observation"):
        solve_games(mixed, 3)
