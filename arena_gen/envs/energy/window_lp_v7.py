"""The v7 window LP: v2's receding-horizon program (:mod:`.window_lp`) over any set of sites.

Columns, day-major inside each block: the rated output of every generator (thermal, then the
sites), the battery command ``b``, ``u >= |b|``, one ramp auxiliary per source
``r >= |x(t) - x(t-1)|`` and the stored energy ``E(t) = E(t-1) - b(t)``; one carbon excess
``z >= 0`` for the window. Rows per day: supply (at the pessimistic efficiencies) >= demand,
cost <= budget, the two rows of ``u >= |b|`` and two per ramp; for the window the cumulative
thermal share (at the nominal efficiencies, past committed days included) <= the carbon target
+ ``z`` and optionally a cumulative ramp cap. Objective: total ramp + a large price on ``z``.
The program goes to HiGHS through :mod:`.highs`, as v2's windows do.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from arena_gen.envs.energy import highs
from arena_gen.envs.energy.window_lp import EXCESS_PRICE

__all__ = ["SiteWindow", "blocks", "solve"]


def blocks(generators: Sequence[str]) -> tuple[str, ...]:
    """The column blocks of a window over ``generators`` (thermal first)."""
    sources = (*generators, "battery")
    return (*generators, "battery", "u", *(f"r_{k}" for k in sources), "stored")


@dataclass(frozen=True)
class SiteWindow:
    """The inputs of one window LP (arrays have one entry per day of the window)."""

    generators: tuple[str, ...]
    demand: np.ndarray
    budget: np.ndarray
    #: Efficiencies of the supply rows (pessimistic) and of the carbon row (nominal).
    supply_eff: Mapping[str, np.ndarray]
    eff: Mapping[str, np.ndarray]
    capacity: Mapping[str, float]
    prices: Mapping[str, float]
    #: Yesterday's rated values (battery: its command) and the stored energy now.
    prev: Mapping[str, float]
    stored: float
    past_thermal: float
    past_supply: float
    past_ramp: float
    carbon: float
    ramp_cap: float | None = None
    #: Lower bound of every site's rated output (an agent keeps each observable).
    floor: float = 0.0
    battery: bool = True


def solve(w: SiteWindow) -> np.ndarray | None:
    """The window's plan (days x :func:`blocks`), or None when the LP is infeasible."""
    names = blocks(w.generators)
    n = len(w.demand)
    x = highs.solve(*program_of(w))
    if x is None:
        return None
    return np.asarray(x[:len(names) * n]).reshape(len(names), n).T


def program_of(w: SiteWindow) -> tuple[np.ndarray, sparse.csr_matrix, np.ndarray,
                                       sparse.csr_matrix, np.ndarray, np.ndarray, np.ndarray]:
    """The window's LP as ``(cost, a_ub, b_ub, a_eq, b_eq, lo, hi)``."""
    names = blocks(w.generators)
    sources = (*w.generators, "battery")
    n = len(w.demand)
    z = len(names) * n
    days = np.arange(n)

    def c(block: str) -> np.ndarray:
        return names.index(block) * n + days

    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    vals: list[np.ndarray] = []
    rhs: list[np.ndarray] = []

    def add(entries: list[tuple[np.ndarray, np.ndarray | float]], bound: np.ndarray) -> None:
        first = sum(len(b) for b in rhs)
        for col, v in entries:
            rows.append(first + days[n - len(col):])
            cols.append(col)
            vals.append(np.broadcast_to(np.asarray(v, dtype=float), col.shape))
        rhs.append(np.asarray(bound, dtype=float))

    add([(c(k), -np.asarray(w.supply_eff[k], dtype=float)) for k in w.generators]
        + [(c("battery"), -1.0)], -np.asarray(w.demand, dtype=float))
    add([(c(k), w.prices[k]) for k in w.generators] + [(c("u"), w.prices["battery"])],
        np.asarray(w.budget, dtype=float))
    add([(c("battery"), 1.0), (c("u"), -1.0)], np.zeros(n))
    add([(c("battery"), -1.0), (c("u"), -1.0)], np.zeros(n))
    for k in sources:
        for sign in (1.0, -1.0):
            bound = np.zeros(n)
            bound[0] = sign * w.prev[k]
            add([(c(k), sign), (c(f"r_{k}"), -1.0), (c(k)[:-1], -sign)], bound)
    # carbon: sum thermal actual - s x sum supply - z <= s x past supply - past thermal
    s = w.carbon
    one = np.zeros(n, dtype=int)
    base = sum(len(b) for b in rhs)
    for k in w.generators:
        coef = (1.0 - s) * w.eff[k] if k == "thermal" else -s * np.asarray(w.eff[k])
        rows.append(base + one)
        cols.append(c(k))
        vals.append(np.asarray(coef, dtype=float))
    rows += [base + one, np.array([base])]
    cols += [c("battery"), np.array([z])]
    vals += [np.full(n, -s), np.array([-1.0])]
    rhs.append(np.array([s * w.past_supply - w.past_thermal]))
    if w.ramp_cap is not None:
        ramp_cols = np.concatenate([c(f"r_{k}") for k in sources])
        rows.append(np.full(len(ramp_cols), base + 1))
        cols.append(ramp_cols)
        vals.append(np.ones(len(ramp_cols)))
        rhs.append(np.array([w.ramp_cap - w.past_ramp]))
    b_ub = np.concatenate(rhs)
    a_ub = sparse.csr_matrix((np.concatenate(vals), (np.concatenate(rows),
                                                     np.concatenate(cols))),
                             shape=(len(b_ub), z + 1))
    eq_rows = np.concatenate([days, days, days[1:]])
    eq_cols = np.concatenate([c("stored"), c("battery"), c("stored")[:-1]])
    eq_vals = np.concatenate([np.ones(n), np.ones(n), -np.ones(n - 1)])
    a_eq = sparse.csr_matrix((eq_vals, (eq_rows, eq_cols)), shape=(n, z + 1))
    b_eq = np.zeros(n)
    b_eq[0] = w.stored
    lo, hi = np.zeros(z + 1), np.full(z + 1, np.inf)
    for k in w.generators:
        hi[c(k)] = w.capacity[k]
        if k != "thermal":
            lo[c(k)] = min(w.floor, w.capacity[k])
    bat = w.capacity["battery"] if w.battery else 0.0
    lo[c("battery")], hi[c("battery")] = -bat, bat
    hi[c("u")] = bat
    hi[c("stored")] = w.capacity["battery"] if w.battery else w.stored
    lo[c("stored")] = 0.0 if w.battery else w.stored
    cost = np.zeros(z + 1)
    for k in sources:
        cost[c(f"r_{k}")] = 1.0
    cost[z] = EXCESS_PRICE
    return cost, a_ub, b_ub, a_eq, b_eq, lo, hi
