"""Receding-horizon dispatch: one small linear program per window of days (scipy HiGHS).

Shared by the energy v2 verifier (perfect foresight: the world's own efficiencies and demand)
and the energy v2 agents (their predictions of both), so a witness and a planner's day are the
same computation on different inputs.

One window of ``n`` days has per day the rated thermal, wind and solar ``x``, a battery command
``b`` with ``u >= |b|``, four ramp auxiliaries ``r >= |x(t) - x(t-1)|`` and the stored energy
``E(t) = E(t-1) - b(t)``, plus one carbon excess ``z >= 0`` for the window. Constraints per day:
supply (at the *pessimistic* efficiencies) >= demand, cost <= budget; for the window: cumulative
thermal share (past committed days plus the window, at the *nominal* efficiencies) <= the carbon
target + ``z``, and optionally the cumulative ramp <= a cap. Objective: total ramp + a large
price on ``z`` (so the carbon target binds whenever it can be met), or, for the carbon pass,
thermal minus ``share`` x supply (the Dinkelbach step toward the lowest thermal share).
The daily rows and bounds come from :func:`arena_gen.envs.energy.lp.daily_program` (the
v1 verifier's builder too), grouped by kind; the window adds its carbon and ramp-cap rows.
Each window goes to HiGHS through :mod:`.highs` (the vertex ``linprog(method="highs")``
returns, without its overhead).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import sparse

from arena_gen.envs.energy import highs
from arena_gen.envs.energy.game_v1 import GENERATORS, SOURCES
from arena_gen.envs.energy.lp import BLOCKS, Days, daily_program

__all__ = ["BLOCKS", "EXCESS_PRICE", "Window", "program_of", "solve"]

#: Price of one unit of carbon excess (thermal actual above the target share) in ramp units.
EXCESS_PRICE = 1000.0


@dataclass(frozen=True)
class Window:
    """The inputs of one window LP (arrays have one entry per day of the window)."""

    demand: np.ndarray
    budget: np.ndarray
    #: Efficiencies used for the supply constraint (pessimistic) and for carbon (nominal).
    supply_eff: dict[str, np.ndarray]
    eff: dict[str, np.ndarray]
    capacity: dict[str, float]
    prices: dict[str, float]
    #: Yesterday's rated values (battery: yesterday's command) and the stored energy now.
    prev: dict[str, float]
    stored: float
    #: Committed days so far: cumulative thermal actual, supply and ramp.
    past_thermal: float
    past_supply: float
    past_ramp: float
    carbon: float
    #: Cumulative ramp cap at the window's end (None: none).
    ramp_cap: float | None = None
    #: Lower bound of rated wind and solar (an agent keeps them observable).
    floor: float = 0.0
    battery: bool = True
    #: Objective: "ramp" (min ramp + carbon excess price) or "carbon" (min thermal share).
    objective: str = "ramp"


def solve(w: Window) -> np.ndarray | None:
    """The window's plan as an array (days x BLOCKS), or None when the LP is infeasible."""
    x = highs.solve(*program_of(w))
    if x is None:
        return None
    n = len(w.demand)
    return np.asarray(x[:len(BLOCKS) * n]).reshape(len(BLOCKS), n).T


def program_of(w: Window) -> tuple[np.ndarray, Any, np.ndarray, Any, np.ndarray, np.ndarray,
                                   np.ndarray]:
    """The window's LP as ``(cost, a_ub, b_ub, a_eq, b_eq, lo, hi)`` (what :func:`solve`
    solves; kept apart so tests can hand the same program to ``linprog``)."""
    n = len(w.demand)
    nb = len(BLOCKS)
    z = nb * n
    program = daily_program(Days(demand=w.demand, budget=w.budget, eff=w.supply_eff,
                                 capacity=w.capacity, prices=w.prices, prev=w.prev,
                                 stored=w.stored, floor=w.floor, battery=w.battery), extra=1)
    c = program.cols
    # carbon: sum thermal actual - s x sum supply - z <= s x past supply - past thermal
    s = w.carbon
    rows = [np.zeros(n, dtype=int)] * 4 + [np.zeros(1, dtype=int)]
    cols = [c("thermal"), c("wind"), c("solar"), c("battery"), np.array([z])]
    vals = [(1.0 - s) * w.eff["thermal"], -s * w.eff["wind"], -s * w.eff["solar"],
            np.full(n, -s), np.array([-1.0])]
    rhs = [s * w.past_supply - w.past_thermal]
    if w.ramp_cap is not None:
        ramp_cols = np.concatenate([c(f"r_{k}") for k in SOURCES])
        rows.append(np.ones(len(ramp_cols), dtype=int))
        cols.append(ramp_cols)
        vals.append(np.ones(len(ramp_cols)))
        rhs.append(w.ramp_cap - w.past_ramp)
    window_rows = sparse.csr_matrix(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
        shape=(len(rhs), z + 1))
    a_ub = sparse.vstack([program.a_ub, window_rows], format="csr")
    b_ub = np.concatenate([program.b_ub, np.asarray(rhs, dtype=float)])
    cost = np.zeros(z + 1)
    if w.objective == "ramp":
        for k in SOURCES:
            cost[c(f"r_{k}")] = 1.0
        cost[z] = EXCESS_PRICE
    else:
        cost[c("thermal")] = w.eff["thermal"]
        for k in GENERATORS:
            cost[c(k)] -= s * w.eff[k]
        cost[c("battery")] = -s  # the carbon row is left slack: z is free of charge
    return cost, a_ub, b_ub, program.a_eq, program.b_eq, program.lo, program.hi
