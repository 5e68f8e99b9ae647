"""Energy verifier: perfect-foresight linear programs (scipy HiGHS) for feasibility and slack.

Variables per day t: rated thermal, wind, solar, battery command b, |b| bound u, four ramp
auxiliaries r >= |x(t) - x(t-1)|, and stored energy E(t) = E(t-1) - b(t) in [0, capacity].
Constraints: supply >= demand and cost <= budget every day (no violation day at all, a sufficient
condition), average stability >= target with the min(1, .) cap ignored (conservative), and the
thermal share <= target, linear after multiplying out by total supply. The daily rows and bounds
come from the shared builder :func:`arena_gen.envs.energy.lp.daily_program`, ordered by day.

* best stability: min sum r with the thermal share at its target; slack = best - target.
* lowest thermal share: a linear-fractional program (Charnes-Cooper) with stability at target;
  slack = target - lowest.
* witness: min sum r with small safety margins (demand, budget, carbon), printed with 3 decimals;
  the battery command is re-derived from the simulated store each day so rounding never drifts.
  It is played through the env's own transition function and must succeed.
* non-triviality: the same LP with worst-case efficiencies (range minima for wind, solar and
  thermal); the task is non-trivial when that LP is infeasible or its plan fails on the true world.
  Recorded too, for information only: a plan with each source's mean efficiency (the right level,
  no pattern) played on the true world, and how many days it lasted.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
from scipy import sparse
from scipy.optimize import linprog

from arena_gen.core.errors import VerificationError
from arena_gen.core.game import WorldView
from arena_gen.core.task import Certificate
from arena_gen.envs.energy.game_v1 import (
    GENERATORS,
    SOURCES,
    EnergyGame,
    GridState,
    Rules,
    format_action,
)
from arena_gen.envs.energy.lp import Days, Program, daily_program

VERIFIER_VERSION = 1
DECIMALS = 6
#: Safety margins of the witness LP: absolute demand and budget units, stability, carbon share.
MARGINS = {"demand": 0.02, "budget": 0.05, "stability": 1e-4, "carbon": 0.002}
#: Programs with more variables than this use the interior-point method.
IPM_SIZE = 4000
WORST_CASE = {"wind": 0.60, "solar": 0.65, "thermal": 0.95}


@dataclass(frozen=True)
class LP(Program):
    """The daily program of a whole horizon plus its summary rows (total ramp, thermal actual
    and total supply as row vectors)."""

    ramp: np.ndarray
    thermal: np.ndarray
    supply: np.ndarray


def build_lp(rules: Rules, eff: dict[str, list[float]], *, margin_demand: float = 0.0,
             margin_budget: float = 0.0) -> LP:
    """Assemble the daily constraints of a world for efficiency timelines ``eff`` (rows by day,
    as the released certificates were computed)."""
    h = rules.horizon
    days = Days(demand=np.asarray(rules.demand[:h], dtype=float) + margin_demand,
                budget=np.asarray(rules.budget[:h], dtype=float) - margin_budget,
                eff={k: np.asarray(eff[k][:h], dtype=float) for k in GENERATORS},
                capacity=rules.capacity, prices=rules.prices, prev=rules.initial)
    program = daily_program(days, by_day=True)
    n = len(program.lo)
    ramp, thermal, supply = np.zeros(n), np.zeros(n), np.zeros(n)
    for k in SOURCES:
        ramp[program.cols(f"r_{k}")] = 1.0
    thermal[program.cols("thermal")] = days.eff["thermal"]
    for k in GENERATORS:
        supply[program.cols(k)] = days.eff[k]
    supply[program.cols("battery")] = 1.0
    return LP(**{f.name: getattr(program, f.name) for f in fields(Program)},
              ramp=ramp, thermal=thermal, supply=supply)


def ramp_limit(rules: Rules, target: float) -> float:
    """The largest total ramp keeping (uncapped) average stability at ``target``."""
    return 2.0 * rules.max_ramp * rules.horizon * (1.0 - target)


def _solve(c: np.ndarray, lp: LP, extra_rows: list[np.ndarray], extra_rhs: list[float]) -> Any:
    a_ub = sparse.vstack([lp.a_ub] + [sparse.csr_matrix(r) for r in extra_rows], format="csr")
    b_ub = np.concatenate([lp.b_ub, np.asarray(extra_rhs, dtype=float)])
    return _linprog(c, A_ub=a_ub, b_ub=b_ub, A_eq=lp.a_eq, b_eq=lp.b_eq,
                    bounds=np.column_stack([lp.lo, lp.hi]))


def _linprog(c: np.ndarray, **kwargs: Any) -> Any:
    """HiGHS: interior point with crossover on large programs (5x faster there than simplex)."""
    res = linprog(c, method="highs-ipm" if len(c) > IPM_SIZE else "highs", **kwargs)
    if res.status not in (0, 2):
        res = linprog(c, method="highs-ds", **kwargs)
    return res


def carbon_row(lp: LP, share: float) -> np.ndarray:
    """Row of ``sum thermal actual - share x sum supply <= 0``."""
    return lp.thermal - share * lp.supply


def min_ramp(lp: LP, carbon: float, stability_cap: float | None = None) -> Any:
    """Solve min total ramp subject to the daily constraints and thermal share <= carbon."""
    rows, rhs = [carbon_row(lp, carbon)], [0.0]
    if stability_cap is not None:
        rows.append(lp.ramp)
        rhs.append(stability_cap)
    return _solve(lp.ramp, lp, rows, rhs)


def min_share(lp: LP, ramp_cap: float, scale: float) -> float | None:
    """Lowest reachable thermal share with total ramp <= ramp_cap (Charnes-Cooper), or None."""
    n = len(lp.lo)
    # Variables (y, z): y = x z, z = scale / total supply; every x-constraint becomes homogeneous.
    def hom(a: sparse.csr_matrix, b: np.ndarray) -> sparse.csr_matrix:
        return sparse.hstack([a, sparse.csr_matrix(-b.reshape(-1, 1))], format="csr")

    blocks = [hom(lp.a_ub, lp.b_ub),
              sparse.csr_matrix(np.append(lp.ramp, -ramp_cap).reshape(1, -1))]
    finite_hi = np.flatnonzero(np.isfinite(lp.hi))
    blocks.append(sparse.csr_matrix(
        (np.concatenate([np.ones(len(finite_hi)), -lp.hi[finite_hi]]),
         (np.concatenate([np.arange(len(finite_hi))] * 2),
          np.concatenate([finite_hi, np.full(len(finite_hi), n)]))),
        shape=(len(finite_hi), n + 1)))
    neg_lo = np.flatnonzero(lp.lo < 0)
    blocks.append(sparse.csr_matrix(
        (np.concatenate([-np.ones(len(neg_lo)), lp.lo[neg_lo]]),
         (np.concatenate([np.arange(len(neg_lo))] * 2),
          np.concatenate([neg_lo, np.full(len(neg_lo), n)]))),
        shape=(len(neg_lo), n + 1)))
    a_ub = sparse.vstack(blocks, format="csr")
    a_eq = sparse.vstack([hom(lp.a_eq, lp.b_eq),
                          sparse.csr_matrix(np.append(lp.supply, 0.0).reshape(1, -1))],
                         format="csr")
    b_eq = np.append(np.zeros(lp.a_eq.shape[0]), scale)
    bounds = np.column_stack([np.where(lp.lo < 0, -np.inf, 0.0), np.full(n, np.inf)])
    bounds = np.vstack([bounds, [0.0, np.inf]])
    res = _linprog(np.append(lp.thermal, 0.0), A_ub=a_ub, b_ub=np.zeros(a_ub.shape[0]),
                   A_eq=a_eq, b_eq=b_eq, bounds=bounds)
    return float(res.fun) / scale if res.status == 0 else None


def plan_actions(game: EnergyGame, lp: LP, x: np.ndarray) -> tuple[list[str], GridState]:
    """Print an LP schedule as action texts and play them through the game; return the texts
    and the final state (the battery command is re-derived from the played store each day)."""
    state = game.initial()
    actions: list[str] = []
    for t in range(game.rules.horizon):
        cmd = {k: max(0.0, float(x[lp.col(k, t)])) for k in GENERATORS}
        cmd["battery"] = state.stored - float(x[lp.col("stored", t)])
        text = format_action(cmd)
        actions.append(text)
        state, _ = game.act(state, text)
        if game.done(state):
            break
    return actions, state


def _r(x: float) -> float:
    return round(float(x), DECIMALS)


def analyse(world: dict[str, Any]) -> tuple[bool, list[str], dict[str, Any]]:
    """Run every LP of a world: (solvable, witness actions, facts)."""
    game = EnergyGame(WorldView(world))
    rules = game.rules
    lp = build_lp(rules, rules.eff)
    facts: dict[str, Any] = {"lp_variables": int(len(lp.lo)),
                             "lp_constraints": int(lp.a_ub.shape[0] + lp.a_eq.shape[0] + 2)}
    stab_cap = ramp_limit(rules, rules.target_stability)
    best = min_ramp(lp, rules.target_carbon)
    # the Charnes-Cooper scale is any positive number (total demand keeps it well scaled)
    share = min_share(lp, stab_cap, scale=float(sum(rules.demand)) or 1.0)
    if best.status != 0 or share is None:
        facts.update({"infeasible": "stability" if best.status != 0 else "carbon",
                      "stability_slack": None, "carbon_slack": None, "nontrivial": None})
        return False, [], facts
    best_stab = 1.0 - float(best.fun) / (2.0 * rules.max_ramp * rules.horizon)
    facts.update({"best_stability": _r(best_stab), "min_thermal_share": _r(share),
                  "stability_slack": _r(best_stab - rules.target_stability),
                  "carbon_slack": _r(rules.target_carbon - share)})
    actions: list[str] = []
    end: GridState | None = None
    if best_stab > rules.target_stability and share < rules.target_carbon:
        carbon_slack = rules.target_carbon - share
        for scale in (1.0, 4.0, 16.0):
            m = {k: v * scale for k, v in MARGINS.items()}
            margin_c = min(m["carbon"], carbon_slack / 2)
            wlp = build_lp(rules, rules.eff, margin_demand=m["demand"],
                           margin_budget=m["budget"])
            res = min_ramp(wlp, rules.target_carbon - margin_c,
                           ramp_limit(rules, rules.target_stability + m["stability"]))
            if res.status != 0:
                continue
            actions, end = plan_actions(game, wlp, res.x)
            if game.success(end):
                break
    ok = end is not None and game.success(end)
    if ok:
        assert end is not None
        facts.update({"witness_stability": _r(end.stability),
                      "witness_thermal_share": _r(end.thermal_share)})
    facts["worst_case_plan"] = worst_case(world, rules)
    facts["nontrivial"] = facts["worst_case_plan"] != "succeeds"
    mean = {k: float(np.mean(rules.eff[k][:rules.horizon])) for k in GENERATORS}
    facts["mean_efficiency_plan"], facts["mean_plan_days"] = blind_plan(world, rules, mean)
    return ok, actions if ok else [], facts


def worst_case(world: dict[str, Any], rules: Rules) -> str:
    """Plan with worst-case efficiencies: 'infeasible', or whether the plan fails on the world."""
    ranges = world.get("eff_ranges") or {}
    low = {k: float(ranges.get(k, [WORST_CASE[k]])[0]) for k in GENERATORS}
    return blind_plan(world, rules, low)[0]


def blind_plan(world: dict[str, Any], rules: Rules,
               flat: dict[str, float]) -> tuple[str, int | None]:
    """Plan with constant efficiencies ``flat`` (ignoring the pattern) and play it on the true
    world: ('infeasible', None) or ('succeeds' | 'fails', days survived)."""
    eff = {k: [flat[k]] * rules.horizon for k in GENERATORS}
    lp = build_lp(rules, eff)
    res = _solve(np.zeros(len(lp.lo)), lp,
                 [carbon_row(lp, rules.target_carbon), lp.ramp],
                 [0.0, ramp_limit(rules, rules.target_stability)])
    if res.status != 0:
        return "infeasible", None
    game = EnergyGame(WorldView(world))
    actions, end = plan_actions(game, lp, res.x)
    return ("succeeds" if game.success(end) else "fails"), len(actions)


def verify(task: Any) -> Certificate:
    """Prove an energy world feasible under perfect foresight, with slacks and a witness."""
    start = time.perf_counter()
    solvable, actions, facts = analyse(task.world)
    return Certificate(solvable=solvable, method="lp", min_steps=None, witness=actions,
                       verifier_version=VERIFIER_VERSION,
                       seconds=time.perf_counter() - start, facts=facts)


def replay_check(task: Any, result: Any) -> None:
    """After witness replay: the env's final stability and share match the recorded facts."""
    facts = task.certificate.facts
    if not task.certificate.solvable:
        return
    info = result.final_info
    for key, fact in (("stability", "witness_stability"),
                      ("thermal_share", "witness_thermal_share")):
        if fact not in facts or abs(float(info.get(key, -1.0)) - float(facts[fact])) > 2e-6:
            raise VerificationError(f"task {task.id}: witness replay gives {key} "
                                    f"{info.get(key)}, certificate records {facts.get(fact)}")
