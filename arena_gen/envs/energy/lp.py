"""The daily constraints of an energy dispatch LP, built once for every energy program.

The v1 verifier's full-horizon programs (:mod:`.verify_v1`) and the receding-horizon window
programs (:mod:`.window_lp`, used by the v2 verifier and the energy planner agents) constrain
each day the same way, so one builder assembles those rows and bounds; each caller adds its own
objective and summary rows (carbon share, ramp cap) and solves with scipy's HiGHS.

Columns, day-major inside each block of :data:`BLOCKS`: per day ``t`` the rated thermal, wind
and solar ``x``, the battery command ``b`` with ``u >= |b|``, four ramp auxiliaries
``r >= |x(t) - x(t-1)|`` and the stored energy ``E(t) = E(t-1) - b(t)``; optional extra columns
follow the blocks. Rows ``A_ub x <= b_ub``, per day: supply >= demand, cost <= budget, the two
rows of ``u >= |b|`` and the two rows of each ramp; equality rows: the storage balance.

The row order is the caller's (``by_day``: every row of day 0, then day 1, ...; otherwise each
kind of row for all days, then the next kind), because HiGHS may pick another optimal vertex
when the rows of the same program come in another order: each verifier keeps the order its
released certificates were computed with.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from arena_gen.envs.energy.game_v1 import GENERATORS, SOURCES

#: Columns per day, in block order.
BLOCKS = ("thermal", "wind", "solar", "battery", "u", "r_thermal", "r_wind", "r_solar",
          "r_battery", "stored")
#: Rows per day: supply, cost, two for ``u >= |b|``, two per ramp.
ROWS_PER_DAY = 4 + 2 * len(SOURCES)


@dataclass(frozen=True)
class Days:
    """The inputs of the daily constraints (arrays have one entry per day)."""

    #: Demand to meet each day (any margin included) and the budget each day (margin taken).
    demand: np.ndarray
    budget: np.ndarray
    #: Efficiencies of the supply constraint.
    eff: Mapping[str, np.ndarray]
    capacity: Mapping[str, float]
    prices: Mapping[str, float]
    #: The rated values of the day before the first (battery: its command) and the store.
    prev: Mapping[str, float]
    stored: float = 0.0
    #: Lower bound of rated wind and solar.
    floor: float = 0.0
    #: Without a battery its command is 0 and the store stays as it is.
    battery: bool = True


@dataclass(frozen=True)
class Program:
    """The daily rows and bounds of one program: ``A_ub x <= b_ub``, ``A_eq x = b_eq``,
    ``lo <= x <= hi``."""

    a_ub: sparse.csr_matrix
    b_ub: np.ndarray
    a_eq: sparse.csr_matrix
    b_eq: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    days: int

    def col(self, block: str, t: int) -> int:
        """The column of ``block`` on day ``t``."""
        return BLOCKS.index(block) * self.days + t

    def cols(self, block: str) -> np.ndarray:
        """The columns of ``block``, one per day."""
        return BLOCKS.index(block) * self.days + np.arange(self.days)


def daily_program(d: Days, *, extra: int = 0, by_day: bool = False) -> Program:
    """Assemble the daily constraints of ``d`` over ``len(BLOCKS) x days + extra`` columns
    (the extra columns, free of these rows, are ``>= 0``); ``by_day`` orders the rows by day."""
    n = len(d.demand)
    ncol = len(BLOCKS) * n + extra
    days = np.arange(n)

    def c(block: str) -> np.ndarray:
        return BLOCKS.index(block) * n + days

    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    vals: list[np.ndarray] = []
    rhs: list[np.ndarray] = []

    def add(entries: list[tuple[np.ndarray, np.ndarray | float]], bound: np.ndarray) -> None:
        """One row per day: ``sum coefficient x column <= bound`` (a column of the day before
        enters as its slice ``[:-1]``, on the rows of days 1 ..)."""
        first = len(rhs) * n
        for col, v in entries:
            r = first + days[n - len(col):]
            rows.append(r)
            cols.append(col)
            vals.append(np.broadcast_to(np.asarray(v, dtype=float), col.shape))
        rhs.append(np.asarray(bound, dtype=float))

    # supply >= demand; cost <= budget; u >= |b|
    add([(c(k), -np.asarray(d.eff[k], dtype=float)) for k in GENERATORS]
        + [(c("battery"), -1.0)], -np.asarray(d.demand, dtype=float))
    add([(c(k), d.prices[k]) for k in GENERATORS] + [(c("u"), d.prices["battery"])],
        np.asarray(d.budget, dtype=float))
    add([(c("battery"), 1.0), (c("u"), -1.0)], np.zeros(n))
    add([(c("battery"), -1.0), (c("u"), -1.0)], np.zeros(n))
    # ramps: +-(x(t) - x(t-1)) - r(t) <= 0, x(-1) = prev
    for k in SOURCES:
        for sign in (1.0, -1.0):
            bound = np.zeros(n)
            bound[0] = sign * d.prev[k]
            add([(c(k), sign), (c(f"r_{k}"), -1.0), (c(k)[:-1], -sign)], bound)
    row = np.concatenate(rows)
    if by_day:
        row = (row % n) * len(rhs) + row // n
    a_ub = sparse.csr_matrix((np.concatenate(vals), (row, np.concatenate(cols))),
                             shape=(len(rhs) * n, ncol))
    b_ub = np.concatenate(rhs)
    if by_day:
        b_ub = b_ub.reshape(len(rhs), n).T.ravel()
    # stored(t) - stored(t-1) + b(t) = 0, stored(-1) = d.stored
    eq_rows = np.concatenate([days, days, days[1:]])
    eq_cols = np.concatenate([c("stored"), c("battery"), c("stored")[:-1]])
    eq_vals = np.concatenate([np.ones(n), np.ones(n), -np.ones(n - 1)])
    a_eq = sparse.csr_matrix((eq_vals, (eq_rows, eq_cols)), shape=(n, ncol))
    b_eq = np.zeros(n)
    b_eq[0] = d.stored
    cap = d.capacity
    lo, hi = np.zeros(ncol), np.full(ncol, np.inf)
    for k in GENERATORS:
        hi[c(k)] = cap[k]
    for k in ("wind", "solar"):
        lo[c(k)] = min(d.floor, cap[k])
    bat = cap["battery"] if d.battery else 0.0
    lo[c("battery")], hi[c("battery")] = -bat, bat
    hi[c("u")] = bat
    hi[c("stored")] = cap["battery"] if d.battery else d.stored
    lo[c("stored")] = 0.0 if d.battery else d.stored
    return Program(a_ub=a_ub, b_ub=b_ub, a_eq=a_eq, b_eq=b_eq, lo=lo, hi=hi, days=n)
