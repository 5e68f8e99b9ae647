"""The exact induction cost of small lights classes (issue 39): the class is the sampler's own,
and the belief-graph solver agrees with a brute force that replays every world through the game."""

from __future__ import annotations

import math
from collections import Counter
from functools import cache

import numpy as np
import pytest
from scipy.stats import chisquare

from arena_gen.core.game import WorldView
from arena_gen.core.induction import InductionLimit, solve, worst_case
from arena_gen.core.seeds import child
from arena_gen.envs.lights.game_v1 import LightsGame
from arena_gen.envs.lights.induction import lights_class
from arena_gen.envs.lights.sampler import LightsPreset, sample

KNOBS = {"p_not": 0.55, "p_and": 0.6}


def _brute(n: int, max_literals: int, min_len: int, horizon: int) -> tuple[float, float]:
    """Worst-case and expected cost by recursion over what the learner has seen, each world
    replayed through LightsGame itself (no bitsets, no shared partition code)."""
    cls = lights_class(n, max_literals=max_literals, min_len=min_len, budget=horizon, **KNOBS)
    games = [LightsGame(WorldView(world=w)) for w in cls.worlds]
    prior = [w / sum(cls.weights) for w in cls.weights]
    goal = (1 << n) - 1

    def after(g: int, state: int, bulb: int) -> int:
        nxt, _event = games[g].step(state, bulb)
        return int(nxt)

    @cache
    def value(state: int, worlds: frozenset[int], left: int) -> tuple[float, float]:
        if state == goal:
            return 0.0, 0.0
        if left == 0:
            return math.inf, math.inf
        best_w, best_e = math.inf, math.inf
        mass = sum(prior[g] for g in worlds)
        for bulb in range(n):
            groups: dict[int, set[int]] = {}
            for g in worlds:
                groups.setdefault(after(g, state, bulb), set()).add(g)
            if list(groups) == [state]:
                continue
            parts = [(t, frozenset(gs)) for t, gs in groups.items()]
            sub = [(value(t, gs, left - 1), sum(prior[g] for g in gs)) for t, gs in parts]
            best_w = min(best_w, 1 + max(v[0] for v, _ in sub))
            best_e = min(best_e, 1 + sum(m * v[1] for v, m in sub) / mass)
        return best_w, best_e

    return value(0, frozenset(range(len(games))), horizon)


@pytest.mark.parametrize(("n", "max_literals", "min_len", "horizon"),
                         [(2, 1, 1, 8), (3, 1, 2, 12), (3, 1, 3, 12),
                          # 132 behaviours: about 25 s of brute force, an acceptance run
                          pytest.param(3, 2, 2, 14, marks=pytest.mark.full)])
def test_exact_values_agree_with_brute_force(n: int, max_literals: int, min_len: int,
                                             horizon: int) -> None:
    cls = lights_class(n, max_literals=max_literals, min_len=min_len, budget=horizon, **KNOBS)
    got = solve(cls.world_class(), horizon)
    worst, expected = _brute(n, max_literals, min_len, horizon)
    assert got.worst == worst
    assert got.expected == pytest.approx(expected, rel=1e-12)
    assert worst_case(cls.world_class(), horizon) == (None if math.isinf(worst) else worst)
    # both references are at least what a learner told the world needs
    assert got.told <= got.expected <= got.worst


def test_two_bulbs_by_hand() -> None:
    """N = 2: the second bulb in order needs the first on, or off (4 worlds, each 2 steps told).
    Toggling B0 first flips it in 3 worlds; the one left where B1 needs B0 off costs 5."""
    got = solve(lights_class(2, max_literals=1, min_len=1, budget=10, **KNOBS).world_class(), 10)
    assert (got.worst, got.told) == (5.0, 2.0)
    assert got.expected == pytest.approx(3.05)


def test_the_class_is_the_samplers() -> None:
    """Every world the sampler draws for N = 3 is in the class, with frequencies matching the
    class's probabilities (2,000 draws; chi-square goodness of fit, cells of expected count
    below 5 pooled, not refused at the 0.1 % level)."""
    cls = lights_class(3, max_literals=2, min_len=0, budget=50, **KNOBS)
    index = {b: i for i, b in enumerate(cls.behaviours)}
    preset = LightsPreset(count=1, n_values=(3,), n_weights=(1.0,), max_literals=2, min_len=0,
                          budget=50, max_attempts=1, **KNOBS)
    states = np.arange(8, dtype=np.uint32)
    seen: Counter[int] = Counter()
    root = np.random.SeedSequence([39, 3])
    draws = 2000
    for i in range(draws):
        draft = sample(preset, child(root, i))
        game = LightsGame(draft)
        key = tuple(int(sum(1 << int(s) for s in states
                            if game.step(int(s), b)[0] != int(s))) for b in range(3))
        assert key in index, draft.world
        seen[index[key]] += 1
    total = sum(cls.weights)
    want = np.array([w / total * draws for w in cls.weights])
    got = np.array([seen[i] for i in range(len(want))], dtype=float)
    small = want < 5
    observed, expected = got[~small], want[~small]
    if small.any():
        observed = np.append(observed, got[small].sum())
        expected = np.append(expected, want[small].sum())
    assert chisquare(observed, expected).pvalue > 1e-3
    assert cls.accepted_mass == pytest.approx(1.0)


def test_the_solver_says_when_it_stops() -> None:
    cls = lights_class(3, max_literals=2, min_len=2, budget=14, **KNOBS)
    with pytest.raises(InductionLimit):
        solve(cls.world_class(), 14, max_nodes=100)
