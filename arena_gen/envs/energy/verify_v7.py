"""Energy v7 verifier: v2's receding-horizon witness and closed-form non-triviality, over sites.

The witness plays windows of :data:`~.verify_v2.WINDOW` days (the first
:data:`~.verify_v2.COMMIT` committed) planned with the world's own efficiencies, minimum ramp
with the cumulative thermal share held at the carbon target minus the preset's floor, through
the v7 game; its final stability and share give both slacks jointly. Non-triviality is v2's
bound with the cheapest site per unit at its range minimum: at worst-case efficiencies the
thermal share is at least ``1 - (B/D - c_t) / (c_r - c_t)``; above the carbon target no
worst-case plan exists, else a worst-case receding-horizon plan is played on the true world.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import numpy as np

from arena_gen.core.game import WorldView
from arena_gen.core.task import Certificate
from arena_gen.envs.energy.game_v1 import GridState
from arena_gen.envs.energy.game_v7 import EnergyGameV7
from arena_gen.envs.energy.rules_v7 import format_action, kind_of
from arena_gen.envs.energy.verify_v1 import WORST_CASE, replay_check
from arena_gen.envs.energy.verify_v2 import COMMIT, MARGINS, WINDOW
from arena_gen.envs.energy.window_lp_v7 import SiteWindow, blocks, solve

__all__ = ["dispatch", "replay_check", "share_floor", "verify"]

VERIFIER_VERSION = 7
DECIMALS = 6


def _r(x: float) -> float:
    return round(float(x), DECIMALS)


def dispatch(game: EnergyGameV7, eff: Mapping[str, list[float]], *, carbon: float,
             scale: float = 1.0) -> tuple[list[str], GridState]:
    """Play a receding-horizon schedule planned with efficiencies ``eff`` through ``game``."""
    rules = game.rules
    state = game.initial()
    actions: list[str] = []
    past_ramp = 0.0
    col = {b: i for i, b in enumerate(blocks(rules.generators))}
    for start in range(0, rules.horizon, COMMIT):
        end = min(rules.horizon, start + WINDOW)
        e = {k: np.asarray(eff[k][start:end], dtype=float) for k in rules.generators}
        window = SiteWindow(
            generators=rules.generators,
            demand=np.asarray(rules.demand[start:end]) + MARGINS["demand"] * scale,
            budget=np.asarray(rules.budget[start:end]) - MARGINS["budget"] * scale,
            supply_eff=e, eff=e, capacity=rules.capacity, prices=rules.prices,
            prev=dict(state.prev), stored=state.stored, past_thermal=state.cum_thermal,
            past_supply=state.cum_supply, past_ramp=past_ramp, carbon=carbon)
        plan = solve(window)
        if plan is None:
            return actions, state
        for row in plan[:COMMIT]:
            cmd = {k: max(0.0, float(row[col[k]])) for k in rules.generators}
            cmd["battery"] = state.stored - float(row[col["stored"]])
            text = format_action(cmd, rules.sites)
            actions.append(text)
            state, _ = game.act(state, text)
            past_ramp += state.last.ramp if state.last else 0.0
            if game.done(state):
                return actions, state
    return actions, state


def _low(world: Mapping[str, Any], source: str) -> float:
    """A source's efficiency range minimum (a site's is its kind's)."""
    kind = source if source == "thermal" else kind_of(source)
    ranges = world.get("eff_ranges") or {}
    return float(ranges.get(kind, [WORST_CASE[kind]])[0])


def share_floor(world: Mapping[str, Any]) -> float:
    """The closed-form lower bound of the thermal share at worst-case efficiencies."""
    prices = world["prices"]
    c_t = prices["thermal"] / _low(world, "thermal")
    c_r = min(prices[s] / _low(world, s) for s in world["sites"])
    h = int(world["horizon"])
    ratio = float(sum(world["budget"][:h])) / float(sum(world["demand"][:h]))
    if c_r <= c_t:
        return 0.0
    return 1.0 - max(0.0, ratio - c_t) / (c_r - c_t)


def analyse(world: Mapping[str, Any], carbon_floor: float = 0.01
            ) -> tuple[bool, list[str], dict[str, Any]]:
    """The witness of a world planned ``carbon_floor`` under the carbon target:
    (solvable, witness actions, facts)."""
    game = EnergyGameV7(WorldView(dict(world)))
    rules = game.rules
    t_s, t_c = rules.target_stability, rules.target_carbon
    facts: dict[str, Any] = {"method": "receding-horizon", "window": WINDOW, "commit": COMMIT,
                             "planned_carbon": _r(t_c - carbon_floor)}
    actions: list[str] = []
    end: GridState | None = None
    for scale in (1.0, 4.0):
        actions, end = dispatch(game, rules.eff, scale=scale,
                                carbon=t_c - carbon_floor - MARGINS["carbon"] * scale)
        if game.success(end):
            break
    if end is None or not game.success(end):
        facts.update({"infeasible": "no witness", "stability_slack": None,
                      "carbon_slack": None, "nontrivial": None})
        return False, [], facts
    facts.update({"witness_stability": _r(end.stability),
                  "witness_thermal_share": _r(end.thermal_share),
                  "stability_slack": _r(end.stability - t_s),
                  "carbon_slack": _r(t_c - end.thermal_share)})
    floor = share_floor(world)
    facts["worst_case_share_floor"] = _r(floor)
    if floor > t_c:
        facts["worst_case_plan"] = "infeasible"
    else:
        flat = {k: [_low(world, k)] * rules.horizon for k in rules.generators}
        blind = EnergyGameV7(WorldView(dict(world)))
        _, w_end = dispatch(blind, flat, carbon=t_c)
        facts["worst_case_plan"] = "succeeds" if blind.success(w_end) else "fails"
    facts["nontrivial"] = facts["worst_case_plan"] != "succeeds"
    return True, actions, facts


def verify(task: Any) -> Certificate:
    """Prove an energy v7 world solvable with a receding-horizon witness and its slacks."""
    start = time.perf_counter()
    floor = float((getattr(task, "params", None) or {}).get("min_carbon_slack", 0.01))
    solvable, actions, facts = analyse(task.world, floor)
    return Certificate(solvable=solvable, method="lp", min_steps=None, witness=actions,
                       verifier_version=VERIFIER_VERSION,
                       seconds=time.perf_counter() - start, facts=facts)
