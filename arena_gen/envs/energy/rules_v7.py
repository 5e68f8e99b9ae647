"""Energy v7 rules: v1's day over any number of renewable sites, each named in the action.

A v7 world has thermal, several wind and solar sites (``wind1``, ``wind2``, ``solar1``, ...)
and a battery. A day is v1's day with the renewables summed over sites: actual = rated x the
site's efficiency that day; cost = sum of rated x price over the generators + the battery wear
x |flow|; the ramp sums |rated today - rated yesterday| over every source (the battery's
clamped command included), normalised by the sum of all capacities; supply is floored at 1e-6
and the thermal share is cumulative thermal actual over cumulative supply. The state is v1's
:class:`~.game_v1.GridState` (``prev`` keyed by every source), so v1's facts, checks, rubric
and the shaping potential read it unchanged.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from arena_gen.envs.energy.game_v1 import COLLAPSE_DAYS, DayRecord, GridState, _decode

__all__ = ["SiteRules", "format_action", "kind_of", "parse_action", "site_names"]

#: A site's name: its kind and its number (``wind1``, ``solar3``).
_SITE = re.compile(r"(wind|solar)([1-9][0-9]?)")


def kind_of(site: str) -> str:
    """The kind of a site (``wind`` or ``solar``) from its name."""
    found = _SITE.fullmatch(site)
    if found is None:
        raise ValueError(f"not a site name: {site!r}")
    return found.group(1)


def site_names(wind: int, solar: int) -> list[str]:
    """The site names of a world with ``wind`` wind and ``solar`` solar sites, in order."""
    return [*(f"wind{i + 1}" for i in range(wind)), *(f"solar{i + 1}" for i in range(solar))]


def sources_of(sites: Sequence[str]) -> tuple[str, ...]:
    """Every source a v7 action names, in order: thermal, the sites, the battery."""
    return ("thermal", *sites, "battery")


def parse_action(text: str, sites: Sequence[str]) -> dict[str, float]:
    """The commands of a v7 action (missing keys 0), or ValueError with a one-line reason
    naming the allowed keys."""
    keys = sources_of(sites)
    allowed = ", ".join(keys)
    text = text.strip()
    if not text:
        raise ValueError(f"empty action; write one JSON object with keys {allowed}")
    try:
        data = _decode(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON ({exc.msg}); write one JSON object with keys "
                         f"{allowed}") from None
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
    if not isinstance(data, dict):
        raise ValueError(f"the action must be a JSON object with keys {allowed}")
    out = dict.fromkeys(keys, 0.0)
    for key, value in data.items():
        if key not in out:
            hint = (f" (this grid has sites: name each, e.g. {key}1)"
                    if key in ("wind", "solar") else "")
            raise ValueError(f"unknown key {str(key)[:30]!r}{hint}; allowed keys: {allowed}")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"{key} must be a number, got {json.dumps(value)[:30]}")
        try:
            number = float(value)
        except OverflowError:
            number = math.inf
        if not math.isfinite(number):
            raise ValueError(f"{key} must be a finite number")
        out[key] = number
    return out


def format_action(cmd: Mapping[str, float], sites: Sequence[str], decimals: int = 3) -> str:
    """Commands as the action JSON text (thermal, the sites, battery)."""
    return "{" + ", ".join(f'"{k}": {float(cmd.get(k, 0.0)):.{decimals}f}'
                           for k in sources_of(sites)) + "}"


class SiteRules:
    """The one transition function of a v7 world (env, verifier, agents and judge share it)."""

    def __init__(self, world: Mapping[str, Any]) -> None:
        self.horizon = int(world["horizon"])
        self.sites: tuple[str, ...] = tuple(str(s) for s in world["sites"])
        for site in self.sites:
            kind_of(site)
        self.generators = ("thermal", *self.sites)
        self.sources = sources_of(self.sites)
        self.demand = [float(x) for x in world["demand"]]
        self.budget = [float(x) for x in world["budget"]]
        self.eff = {"thermal": [float(x) for x in world["eff_thermal"]],
                    **{s: [float(x) for x in world["eff"][s]] for s in self.sites}}
        self.capacity = {k: float(world["capacity"][k]) for k in self.sources}
        self.prices = {k: float(world["prices"][k]) for k in self.sources}
        self.initial = {k: float(world["initial_rated"].get(k, 0.0)) for k in self.generators}
        self.initial["battery"] = 0.0
        self.target_stability = float(world["target_stability"])
        self.target_carbon = float(world["target_carbon"])
        self.max_ramp = sum(self.capacity.values())
        for name, values in (("demand", self.demand), ("budget", self.budget),
                             *((f"eff {k}", v) for k, v in self.eff.items())):
            if len(values) < self.horizon:
                raise ValueError(f"world {name} has {len(values)} days, horizon {self.horizon}")

    def start(self) -> GridState:
        """The state before day 0."""
        return GridState(day=0, stored=0.0, prev=dict(self.initial))

    def over(self, state: GridState) -> bool:
        """Whether the episode has ended (horizon reached or collapsed)."""
        return state.collapsed or state.day >= self.horizon

    def efficiencies(self, day: int) -> dict[str, float]:
        """Every generator's efficiency on ``day``."""
        return {k: self.eff[k][day] for k in self.generators}

    def step(self, state: GridState, cmd: Mapping[str, float],
             eff: Mapping[str, float] | None = None) -> DayRecord:
        """Play one day (commands clamped here; ``eff`` replaces the day's efficiencies, for
        the probes' robustness check); mutates ``state`` and returns the day's record."""
        t = state.day
        eff = self.efficiencies(t) if eff is None else eff
        cap = self.capacity
        rated = {k: min(max(float(cmd.get(k, 0.0)), 0.0), cap[k]) for k in self.generators}
        battery = min(max(float(cmd.get("battery", 0.0)), -cap["battery"]), cap["battery"])
        rated["battery"] = battery
        actual = {k: rated[k] * eff[k] for k in self.generators}
        stored = state.stored
        flow = min(battery, stored) if battery >= 0 else -min(-battery, cap["battery"] - stored)
        actual["battery"] = flow
        state.stored = stored - flow
        supply = max(1e-6, sum(actual[k] for k in self.generators) + flow)
        cost = (sum(rated[k] * self.prices[k] for k in self.generators)
                + abs(flow) * self.prices["battery"])
        demand, budget = self.demand[t], self.budget[t]
        demand_violated, budget_violated = supply < demand, cost > budget
        ramp = sum(abs(rated[k] - state.prev[k]) for k in self.sources)
        stability = 1.0 - 0.5 * min(1.0, ramp / self.max_ramp)
        stability -= 0.5 * budget_violated + 0.5 * demand_violated  # v1's order of operations
        stability = min(max(stability, 0.0), 1.0)
        state.prev = dict(rated)
        state.stability_sum += stability
        state.cum_thermal += actual["thermal"]
        state.cum_supply += supply
        state.day = t + 1
        state.streak = state.streak + 1 if (demand_violated or budget_violated) else 0
        if state.streak >= COLLAPSE_DAYS:
            state.collapsed = True
        record = DayRecord(t, rated, actual, supply, demand, cost, budget, ramp, stability,
                           demand_violated, budget_violated)
        state.last = record
        return record
