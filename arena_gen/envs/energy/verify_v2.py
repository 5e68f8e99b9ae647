"""Energy v2 verifier: receding-horizon linear programs with perfect foresight (scipy HiGHS).

v1 solves each question as one LP over the whole horizon (10 x H variables: about 11 s per
1000-day Challenge world). v2 proves the same things with windows of :data:`WINDOW` days, of
which the first :data:`COMMIT` are played through the env before the next window is solved
from the reached state (:mod:`.energy_window`), so the cost grows linearly with H:

* witness: each window minimises ramp with the cumulative thermal share held at the carbon
  target minus the preset's carbon floor (``min_carbon_slack``) minus a margin; the schedule
  replays through the game and must succeed. Its final stability minus the target is the
  stability slack and the target minus its thermal share the carbon slack: both met *jointly*
  by one replayable schedule, so each is a lower bound of v1's separate optimum (measured on
  five Lite worlds, v1's two full LPs give slacks within 0.001 of one receding-horizon pass at
  the carbon target). One pass instead of v1's five LPs.
* non-triviality, proven in closed form: at the range minima of the efficiencies a unit of
  thermal costs ``c_t = 3 / 0.95`` and the cheapest renewable unit ``c_r = 5 / 0.60``, so with
  total cost <= sum budget and total generation >= sum demand (the battery's net flow is <= 0)
  the thermal share is at least ``1 - (B/D - c_t) / (c_r - c_t)`` (0.80 at B/D = 4.2), above
  every carbon target: a worst-case plan cannot exist. When the bound does not prove it, a
  worst-case receding-horizon plan is played on the true world, as v1 does with one LP.

Both slacks are witnessed by one replayable schedule, so the acceptance floors (0.01) are,
if anything, stricter than v1's.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from arena_gen.core.game import WorldView
from arena_gen.core.task import Certificate
from arena_gen.envs.energy.game_v1 import GENERATORS, EnergyGame, GridState, format_action
from arena_gen.envs.energy.verify_v1 import WORST_CASE, replay_check
from arena_gen.envs.energy.window_lp import BLOCKS, Window, solve

__all__ = ["verify", "replay_check", "dispatch"]

VERIFIER_VERSION = 2
DECIMALS = 6
WINDOW = 40
COMMIT = 20
#: Witness margins: demand and budget units, stability and carbon share.
MARGINS = {"demand": 0.05, "budget": 0.1, "stability": 1e-4, "carbon": 0.002}


def _r(x: float) -> float:
    return round(float(x), DECIMALS)


def dispatch(game: EnergyGame, eff: dict[str, list[float]], *, objective: str, carbon: float,
             stability: float | None = None, scale: float = 1.0
             ) -> tuple[list[str], GridState]:
    """Play a receding-horizon schedule planned with efficiencies ``eff`` through ``game``."""
    rules = game.rules
    h = rules.horizon
    state = game.initial()
    actions: list[str] = []
    past_ramp = 0.0
    ramp_rate = (None if stability is None
                 else 2.0 * rules.max_ramp * (1.0 - stability))
    col = {b: i for i, b in enumerate(BLOCKS)}
    for start in range(0, h, COMMIT):
        end = min(h, start + WINDOW)
        e = {k: np.asarray(eff[k][start:end], dtype=float) for k in GENERATORS}
        window = Window(
            demand=np.asarray(rules.demand[start:end]) + MARGINS["demand"] * scale,
            budget=np.asarray(rules.budget[start:end]) - MARGINS["budget"] * scale,
            supply_eff=e, eff=e, capacity=rules.capacity, prices=rules.prices,
            prev=dict(state.prev), stored=state.stored, past_thermal=state.cum_thermal,
            past_supply=state.cum_supply, past_ramp=past_ramp, carbon=carbon,
            ramp_cap=None if ramp_rate is None else ramp_rate * end, objective=objective)
        plan = solve(window)
        if plan is None:
            return actions, state
        for row in plan[:COMMIT]:
            cmd = {k: max(0.0, float(row[col[k]])) for k in GENERATORS}
            cmd["battery"] = state.stored - float(row[col["stored"]])
            text = format_action(cmd)
            actions.append(text)
            state, _ = game.act(state, text)
            past_ramp += state.last.ramp if state.last else 0.0
            if game.done(state):
                return actions, state
    return actions, state


def share_floor(world: dict[str, Any]) -> float:
    """The closed-form lower bound of the thermal share at worst-case efficiencies."""
    ranges = world.get("eff_ranges") or {}
    low = {k: float(ranges.get(k, [WORST_CASE[k]])[0]) for k in GENERATORS}
    prices = world["prices"]
    c_t = prices["thermal"] / low["thermal"]
    c_r = min(prices[k] / low[k] for k in ("wind", "solar"))
    ratio = float(sum(world["budget"][:world["horizon"]])) / float(
        sum(world["demand"][:world["horizon"]]))
    if c_r <= c_t:
        return 0.0
    return 1.0 - max(0.0, ratio - c_t) / (c_r - c_t)


def analyse(world: dict[str, Any], carbon_floor: float = 0.01
            ) -> tuple[bool, list[str], dict[str, Any]]:
    """The witness of a world planned ``carbon_floor`` under the carbon target:
    (solvable, witness actions, facts)."""
    game = EnergyGame(WorldView(world))
    rules = game.rules
    t_s, t_c = rules.target_stability, rules.target_carbon
    facts: dict[str, Any] = {"method": "receding-horizon", "window": WINDOW, "commit": COMMIT,
                             "planned_carbon": _r(t_c - carbon_floor)}
    actions: list[str] = []
    end: GridState | None = None
    for scale in (1.0, 4.0):
        actions, end = dispatch(game, rules.eff, objective="ramp",
                                carbon=t_c - carbon_floor - MARGINS["carbon"] * scale,
                                scale=scale)
        if game.success(end):
            break
    ok = end is not None and game.success(end)
    if not ok:
        facts.update({"infeasible": "no witness", "stability_slack": None,
                      "carbon_slack": None, "nontrivial": None})
        return False, [], facts
    assert end is not None
    facts.update({"witness_stability": _r(end.stability),
                  "witness_thermal_share": _r(end.thermal_share),
                  "stability_slack": _r(end.stability - t_s),
                  "carbon_slack": _r(t_c - end.thermal_share)})
    floor = share_floor(world)
    facts["worst_case_share_floor"] = _r(floor)
    if floor > t_c:
        facts["worst_case_plan"] = "infeasible"
    else:
        ranges = world.get("eff_ranges") or {}
        flat = {k: [float(ranges.get(k, [WORST_CASE[k]])[0])] * rules.horizon
                for k in GENERATORS}
        blind = EnergyGame(WorldView(world))
        _, w_end = dispatch(blind, flat, objective="ramp", carbon=t_c)
        facts["worst_case_plan"] = "succeeds" if blind.success(w_end) else "fails"
    facts["nontrivial"] = facts["worst_case_plan"] != "succeeds"
    return True, actions, facts


def verify(task: Any) -> Certificate:
    """Prove an energy v2 world solvable with a receding-horizon witness and its slacks."""
    start = time.perf_counter()
    floor = float((getattr(task, "params", None) or {}).get("min_carbon_slack", 0.01))
    solvable, actions, facts = analyse(task.world, floor)
    return Certificate(solvable=solvable, method="lp", min_steps=None, witness=actions,
                       verifier_version=VERIFIER_VERSION,
                       seconds=time.perf_counter() - start, facts=facts)
