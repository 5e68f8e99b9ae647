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
Everything is built with numpy index arrays (no per-day Python loop).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.optimize import linprog

from arena_gen.envs.energy.game_v1 import GENERATORS, SOURCES

#: Columns per day, in block order.
BLOCKS = ("thermal", "wind", "solar", "battery", "u", "r_thermal", "r_wind", "r_solar",
          "r_battery", "stored")
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
    n = len(w.demand)
    nb = len(BLOCKS)
    ncol = nb * n + 1
    z = nb * n
    days = np.arange(n)

    def c(block: str) -> np.ndarray:
        return BLOCKS.index(block) * n + days

    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    vals: list[np.ndarray] = []
    rhs: list[np.ndarray] = []
    count = 0

    def add(entries: list[tuple[np.ndarray, np.ndarray | float]], bound: np.ndarray) -> None:
        nonlocal count
        k = len(bound)
        r = count + np.arange(k)
        for col, v in entries:
            rows.append(r)
            cols.append(col)
            vals.append(np.broadcast_to(np.asarray(v, dtype=float), col.shape))
        rhs.append(bound)
        count += k

    # supply >= demand (pessimistic efficiencies)
    add([(c(k), -w.supply_eff[k]) for k in GENERATORS] + [(c("battery"), -1.0)], -w.demand)
    # cost <= budget
    add([(c(k), w.prices[k]) for k in GENERATORS] + [(c("u"), w.prices["battery"])], w.budget)
    # u >= |b|
    add([(c("battery"), 1.0), (c("u"), -1.0)], np.zeros(n))
    add([(c("battery"), -1.0), (c("u"), -1.0)], np.zeros(n))
    # ramps: +-(x(t) - x(t-1)) - r(t) <= 0, x(-1) = prev
    for k in SOURCES:
        prev_rhs = np.zeros(n)
        prev_rhs[0] = w.prev[k]
        for sign in (1.0, -1.0):
            r0 = count + np.arange(n)
            rows.extend([r0, r0, r0[1:]])
            cols.extend([c(k), c(f"r_{k}"), c(k)[:-1]])
            vals.extend([np.full(n, sign), np.full(n, -1.0), np.full(n - 1, -sign)])
            rhs.append(sign * prev_rhs)
            count += n
    # carbon: sum thermal actual - s x sum supply - z <= s x past supply - past thermal
    s = w.carbon
    r0 = np.full(n, count)
    rows.extend([r0] * 4 + [np.array([count])])
    cols.extend([c("thermal"), c("wind"), c("solar"), c("battery"), np.array([z])])
    vals.extend([(1.0 - s) * w.eff["thermal"], -s * w.eff["wind"], -s * w.eff["solar"],
                 np.full(n, -s), np.array([-1.0])])
    rhs.append(np.array([s * w.past_supply - w.past_thermal]))
    count += 1
    if w.ramp_cap is not None:
        ramp_cols = np.concatenate([c(f"r_{k}") for k in SOURCES])
        rows.append(np.full(len(ramp_cols), count))
        cols.append(ramp_cols)
        vals.append(np.ones(len(ramp_cols)))
        rhs.append(np.array([w.ramp_cap - w.past_ramp]))
        count += 1
    a_ub = sparse.csr_matrix((np.concatenate(vals), (np.concatenate(rows),
                                                     np.concatenate(cols))), shape=(count, ncol))
    b_ub = np.concatenate(rhs)
    # stored(t) - stored(t-1) + b(t) = 0, stored(-1) = w.stored
    eq_rows = np.concatenate([days, days, days[1:]])
    eq_cols = np.concatenate([c("stored"), c("battery"), c("stored")[:-1]])
    eq_vals = np.concatenate([np.ones(n), np.ones(n), -np.ones(n - 1)])
    a_eq = sparse.csr_matrix((eq_vals, (eq_rows, eq_cols)), shape=(n, ncol))
    b_eq = np.zeros(n)
    b_eq[0] = w.stored
    cap = w.capacity
    lo, hi = np.zeros(ncol), np.full(ncol, np.inf)
    for k in GENERATORS:
        hi[c(k)] = cap[k]
    for k in ("wind", "solar"):
        lo[c(k)] = min(w.floor, cap[k])
    bat = cap["battery"] if w.battery else 0.0
    lo[c("battery")], hi[c("battery")] = -bat, bat
    hi[c("u")] = bat
    hi[c("stored")] = cap["battery"] if w.battery else w.stored
    lo[c("stored")] = 0.0 if w.battery else w.stored
    cost = np.zeros(ncol)
    if w.objective == "ramp":
        for k in SOURCES:
            cost[c(f"r_{k}")] = 1.0
        cost[z] = EXCESS_PRICE
    else:
        cost[c("thermal")] = w.eff["thermal"]
        for k in GENERATORS:
            cost[c(k)] -= s * w.eff[k]
        cost[c("battery")] = -s  # the carbon row is left slack: z is free of charge
    res = linprog(cost, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=b_eq,
                  bounds=np.column_stack([lo, hi]), method="highs")
    if res.status != 0:
        return None
    return np.asarray(res.x[:z]).reshape(nb, n).T
