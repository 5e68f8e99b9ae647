"""The shared daily constraints of the energy LPs: one builder, two row orders."""

from __future__ import annotations

import numpy as np
from scipy import sparse

from arena_gen.envs.energy.game_v1 import GENERATORS, Rules
from arena_gen.envs.energy.lp import BLOCKS, ROWS_PER_DAY, Days, daily_program
from arena_gen.envs.energy.sampler_v1 import PRESETS, sample
from arena_gen.envs.energy.verify_v1 import build_lp
from arena_gen.envs.energy.window_lp import Window, solve


def _rules() -> Rules:
    return Rules(sample(PRESETS["lite"], np.random.SeedSequence([7, 3, 0])).world)


def _days(rules: Rules, n: int) -> Days:
    return Days(demand=np.asarray(rules.demand[:n]), budget=np.asarray(rules.budget[:n]),
                eff={k: np.asarray(rules.eff[k][:n]) for k in GENERATORS},
                capacity=rules.capacity, prices=rules.prices, prev=rules.initial)


def test_rows_by_day_are_the_rows_by_kind_reordered() -> None:
    rules = _rules()
    n = 5
    by_kind = daily_program(_days(rules, n))
    by_day = daily_program(_days(rules, n), by_day=True)
    assert by_kind.a_ub.shape == by_day.a_ub.shape == (ROWS_PER_DAY * n, len(BLOCKS) * n)
    for t in range(n):
        for j in range(ROWS_PER_DAY):
            kind, day = j * n + t, t * ROWS_PER_DAY + j
            assert (by_kind.a_ub[kind] != by_day.a_ub[day]).nnz == 0
            assert by_kind.b_ub[kind] == by_day.b_ub[day]
    # day 2's supply row: -eff of each generator, -1 on the battery, <= -demand
    row = by_day.a_ub[2 * ROWS_PER_DAY].toarray().ravel()
    assert row[by_day.col("wind", 2)] == -rules.eff["wind"][2]
    assert row[by_day.col("battery", 2)] == -1.0 and np.count_nonzero(row) == 4
    assert by_day.b_ub[2 * ROWS_PER_DAY] == -rules.demand[2]
    # day 0's thermal ramp rows start from the initial rated value
    thermal = rules.initial["thermal"]
    assert thermal > 0 and by_day.b_ub[4] == thermal and by_day.b_ub[5] == -thermal


def test_v1_and_window_programs_share_the_daily_rows() -> None:
    rules = _rules()
    n = rules.horizon
    lp = build_lp(rules, rules.eff)
    window = daily_program(_days(rules, n), extra=1)
    order = np.array([j * n + t for t in range(n) for j in range(ROWS_PER_DAY)])
    assert (window.a_ub[order][:, :-1] != lp.a_ub).nnz == 0
    assert np.array_equal(window.b_ub[order], lp.b_ub)
    assert np.array_equal(window.lo[:-1], lp.lo) and np.array_equal(window.hi[:-1], lp.hi)
    assert (sparse.csr_matrix(window.a_eq[:, :-1]) != lp.a_eq).nnz == 0


def test_window_plan_keeps_its_daily_rows() -> None:
    rules = _rules()
    n = 10
    e = {k: np.asarray(rules.eff[k][:n]) for k in GENERATORS}
    plan = solve(Window(demand=np.asarray(rules.demand[:n]), budget=np.asarray(rules.budget[:n]),
                        supply_eff=e, eff=e, capacity=rules.capacity, prices=rules.prices,
                        prev=dict(rules.initial), stored=0.0, past_thermal=0.0,
                        past_supply=0.0, past_ramp=0.0, carbon=rules.target_carbon))
    assert plan is not None and plan.shape == (n, len(BLOCKS))
    col = {b: i for i, b in enumerate(BLOCKS)}
    supply = sum(plan[:, col[k]] * e[k] for k in GENERATORS) + plan[:, col["battery"]]
    assert np.all(supply >= np.asarray(rules.demand[:n]) - 1e-6)
    stored = -np.cumsum(plan[:, col["battery"]])
    assert np.allclose(plan[:, col["stored"]], stored, atol=1e-7)
