"""Small LPs straight to scipy's bundled HiGHS: ``linprog(method="highs")`` without its
per-call overhead.

The window LPs of the energy planners are small (tens to hundreds of columns) and solved
thousands of times per build, so scipy's input cleaning, option checking and result
packaging cost more than HiGHS itself. :func:`solve` hands HiGHS the very model and options
``linprog`` would (the same matrix in the same column order, the same infinities, presolve
on, dual simplex, no output) and accepts the answer by ``linprog``'s own feasibility check,
so it returns the same vertex bit for bit (tests compare it with ``linprog`` on recorded and
random programs). Where scipy's private HiGHS module is missing, it calls ``linprog``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import sparse
from scipy.optimize import linprog

try:  # scipy's bundled HiGHS bindings (private: linprog's own path to HiGHS)
    import scipy.optimize._highspy._core as _core
except ImportError:  # pragma: no cover - another scipy layout: linprog does the work
    _core = None

__all__ = ["solve"]

#: ``linprog``'s acceptance tolerance for a reported optimum (its ``sqrt(tol) * 10``, tol 1e-9).
_TOL = float(np.sqrt(1e-9) * 10)


def _options() -> Any:
    """The options ``linprog(method="highs")`` sets (the rest stay HiGHS's defaults)."""
    opts = _core.HighsOptions()
    opts.presolve = "on"
    opts.highs_debug_level = int(_core.HighsDebugLevel.kHighsDebugLevelNone)
    opts.log_to_console = False
    opts.output_flag = False
    opts.simplex_strategy = int(_core.simplex_constants.SimplexStrategy.kSimplexStrategyDual)
    return opts


_OPTIONS = _options() if _core is not None else None


def _finite(x: np.ndarray) -> np.ndarray:
    """``x`` with infinities replaced by HiGHS's infinity (a copy)."""
    out = np.array(x, dtype=float)
    inf = np.isinf(out)
    out[inf] = np.sign(out[inf]) * _core.kHighsInf
    return out


def solve(cost: np.ndarray, a_ub: Any, b_ub: np.ndarray, a_eq: Any, b_eq: np.ndarray,
          lo: np.ndarray, hi: np.ndarray) -> np.ndarray | None:
    """The optimal ``x`` of ``min cost x`` s.t. ``a_ub x <= b_ub``, ``a_eq x = b_eq``,
    ``lo <= x <= hi`` as ``linprog(..., method="highs")`` finds it, or None where its status
    is not 0 (infeasible, unbounded, or an optimum failing its feasibility check)."""
    if _core is None:  # pragma: no cover
        res = linprog(cost, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=b_eq,
                      bounds=np.column_stack([lo, hi]), method="highs")
        return None if res.status != 0 else np.asarray(res.x)
    c = np.array(cost, dtype=float)
    b_ub, b_eq = np.asarray(b_ub, dtype=float), np.asarray(b_eq, dtype=float)
    lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
    # linprog: both blocks as COO, stacked, then column-wise
    a = sparse.csc_array(sparse.vstack((sparse.coo_array(a_ub, dtype=float),
                                        sparse.coo_array(a_eq, dtype=float))))
    rhs = np.concatenate((b_ub, b_eq))
    lp = _core.HighsLp()
    lp.num_col_ = lp.a_matrix_.num_col_ = c.size
    lp.num_row_ = lp.a_matrix_.num_row_ = rhs.size
    lp.a_matrix_.format_ = _core.MatrixFormat.kColwise
    lp.col_cost_ = c
    lp.col_lower_, lp.col_upper_ = _finite(lo), _finite(hi)
    lp.row_lower_ = _finite(np.concatenate((np.full(b_ub.size, -np.inf), b_eq)))
    lp.row_upper_ = _finite(rhs)
    lp.a_matrix_.start_, lp.a_matrix_.index_, lp.a_matrix_.value_ = a.indptr, a.indices, a.data
    highs = _core._Highs()
    highs.passOptions(_OPTIONS)
    if highs.passModel(lp) == _core.HighsStatus.kError:
        return None
    if highs.run() == _core.HighsStatus.kError:
        return None
    if highs.getModelStatus() != _core.HighsModelStatus.kOptimal:
        return None
    solution = highs.getSolution()
    x = np.array(solution.col_value)
    slack = _finite(rhs) - np.array(solution.row_value)
    if np.isnan(x).any() or np.isnan(slack).any():
        return None
    if not np.all((x >= lo - _TOL) & (x <= hi + _TOL)):
        return None
    if (slack[:b_ub.size] < -_TOL).any() or (np.abs(slack[b_ub.size:]) > _TOL).any():
        return None
    return x
