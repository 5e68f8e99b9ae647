"""The direct HiGHS path returns linprog(method="highs")'s answer bit for bit."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from scipy import sparse
from scipy.optimize import linprog

from arena_gen.envs.energy import highs
from arena_gen.envs.energy.game_v1 import GENERATORS, SOURCES, Rules
from arena_gen.envs.energy.sampler_v1 import PRESETS, sample
from arena_gen.envs.energy.window_lp import Window, program_of, solve


def _reference(cost: np.ndarray, a_ub: Any, b_ub: np.ndarray, a_eq: Any, b_eq: np.ndarray,
               lo: np.ndarray, hi: np.ndarray) -> np.ndarray | None:
    """What window_lp solved before: linprog's x when its status is 0."""
    res = linprog(cost, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=b_eq,
                  bounds=np.column_stack([lo, hi]), method="highs")
    return None if res.status != 0 else np.asarray(res.x)


def _same(program: tuple[Any, ...]) -> tuple[bool, bool]:
    """(whether both paths agree bit for bit, whether linprog found an optimum)."""
    want, got = _reference(*program), highs.solve(*program)
    if want is None or got is None:
        return want is None and got is None, False
    return want.tobytes() == got.tobytes(), True


def _window(rng: np.random.Generator, seed: int) -> Window:
    """A window over a sampled Lite world, its inputs perturbed as agents' predictions are."""
    rules = Rules(sample(PRESETS["lite"], np.random.SeedSequence([seed, 3, 0])).world)
    start = int(rng.integers(0, rules.horizon - 2))
    end = min(rules.horizon, start + int(rng.integers(1, 41)))
    e = {k: np.asarray(rules.eff[k][start:end], dtype=float) * rng.uniform(0.7, 1.3)
         for k in GENERATORS}
    pess = {k: np.maximum(0.05, v - rng.uniform(0.0, 0.2)) for k, v in e.items()}
    n = end - start
    return Window(
        demand=np.asarray(rules.demand[start:end]) * rng.uniform(0.6, 1.6),
        budget=np.asarray(rules.budget[start:end]) * rng.uniform(0.6, 1.4),
        supply_eff=pess, eff=e, capacity=rules.capacity, prices=rules.prices,
        prev={k: float(rules.initial[k]) * rng.uniform(0.0, 2.0) for k in SOURCES},
        stored=float(rng.uniform(0, rules.capacity["battery"])),
        past_thermal=float(rng.uniform(0, 50 * start + 1)),
        past_supply=float(rng.uniform(50 * start, 120 * start + 1)),
        past_ramp=float(rng.uniform(0, 10 * start + 1)), carbon=float(rng.uniform(0.1, 0.7)),
        ramp_cap=None if rng.random() < 0.5 else float(rng.uniform(0, 40 * n)),
        floor=float(rng.choice([0.0, 0.0, rng.uniform(0, 5)])), battery=bool(rng.random() < 0.5),
        objective=str(rng.choice(["ramp", "carbon"])))


def test_window_programs_match_linprog_bit_for_bit() -> None:
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(2026)))
    seeds = np.random.SeedSequence(38).generate_state(12)
    solved = 0
    for i in range(240):
        w = _window(rng, int(seeds[i % len(seeds)]))
        same, optimal = _same(program_of(w))
        assert same, f"window {i}"
        solved += optimal
        if optimal:
            plan = solve(w)
            assert plan is not None and plan.shape == (len(w.demand), 10)
    assert 40 <= solved <= 230  # both outcomes were exercised


@pytest.mark.parametrize("seed", range(6))
def test_random_programs_match_linprog_bit_for_bit(seed: int) -> None:
    """Dense random programs with free, boxed and one-sided columns, infeasible and
    unbounded ones among them, and explicit zeros in the matrices."""
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([38, seed])))
    outcomes = set()
    for i in range(60):
        n, m_ub, m_eq = (int(x) for x in rng.integers(1, 12, size=3))
        a_ub = rng.normal(size=(m_ub, n)) * (rng.random((m_ub, n)) < 0.6)
        a_eq = rng.normal(size=(m_eq % 3, n)) * (rng.random((m_eq % 3, n)) < 0.6)
        lo = np.where(rng.random(n) < 0.2, -np.inf, rng.uniform(-5, 0, n))
        hi = np.where(rng.random(n) < 0.2, np.inf, rng.uniform(0, 5, n))
        program = (rng.normal(size=n), sparse.csr_matrix(a_ub), rng.normal(size=m_ub) * 3,
                   sparse.csr_matrix(a_eq, shape=(m_eq % 3, n)), rng.normal(size=m_eq % 3),
                   lo, hi)
        program[1].data[rng.random(program[1].nnz) < 0.1] = 0.0  # explicit zeros stay stored
        same, optimal = _same(program)
        assert same, f"program {i}"
        outcomes.add(optimal)
    assert outcomes == {True, False}
