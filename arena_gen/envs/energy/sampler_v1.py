"""Energy Dispatch sampler: periodic hidden efficiencies, seasonal demand, budgets and targets.

Every world component (wind, solar, thermal, demand, targets, initial values, shift day) draws
from its own child stream, so targets are not functions of the demand (the released generator
reused one seed across them). Stored floats are rounded to 6 decimals.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena_gen.core.presets import Preset, PresetError, knob
from arena_gen.core.seeds import component_rngs
from arena_gen.core.task import Certificate, Draft
from arena_gen.envs.energy.game_v1 import GENERATORS, EnergyGame

CAPACITY = {"thermal": 600.0, "wind": 350.0, "solar": 250.0, "battery": 80.0}
#: Unit prices of rated output; ``battery`` is the wear cost per unit of battery flow.
PRICES = {"thermal": 3.0, "wind": 5.0, "solar": 6.0, "battery": 0.1}
RANGES = {"wind": (0.60, 1.05), "solar": (0.65, 1.10), "thermal": (0.95, 1.05)}
BUDGET_FACTOR = 4.2
DECIMALS = 6

# Bounds on what an energy world may ask for: a task file's (``schemas/envs/energy.world``
# states the same numbers; ``tests/test_energy_limits.py`` checks they agree) and an imported
# config's. Every generated and released value lies well inside them (horizons 120 and 1000,
# efficiencies 0.60-1.10, demand below 700, budgets below 3,000), and they keep the verifier's
# linear programs small and well scaled: unbounded, a mutated released config (an efficiency
# of 1e6 or 1e-300, a demand of 3e14) kept HiGHS busy for 5-25 s on 120 days.
#: Longest horizon of a task (the Challenge preset's); also the longest series and period.
MAX_HORIZON = 1000
#: Longest horizon of an imported config: the released format has 120 days; proving a config
#: of 240 days takes about 1.5 s of CPU (a 1000-day task file about 10 s, like a Challenge task).
MAX_IMPORT_HORIZON = 240
#: Range of every daily efficiency and of the ``eff_ranges`` bounds (0.60-1.10 generated).
EFFICIENCY = (0.01, 2.0)
MAX_DEMAND = 10_000.0
MAX_BUDGET = 100_000.0
#: Largest capacity and initial rated value of a source (600 thermal generated).
MAX_CAPACITY = 10_000.0
#: Largest unit price (6 for solar generated).
MAX_PRICE = 1_000.0

@dataclass(frozen=True)
class EnergyPreset(Preset):
    """The knobs of an energy suite: horizon, pattern periods, the shift, acceptance slacks.

    ``horizon``: days; ``t_min`` / ``t_max``: the range of the hidden wind and solar periods;
    ``shift``: one pattern shift (new base pattern and period) between H/3 and 2H/3;
    ``min_stability_slack`` / ``min_carbon_slack``: acceptance floors on the LP slacks.
    """

    count: int = knob(1, 10_000, kind=int)
    horizon: int = knob(3, MAX_HORIZON, kind=int)  # the schema's limit; a shift needs 3 days
    t_min: int = knob(2, MAX_HORIZON, kind=int)
    t_max: int = knob(2, MAX_HORIZON, kind=int)
    shift: bool = knob(kind=bool)
    min_stability_slack: float = knob(0.0, 1.0)
    min_carbon_slack: float = knob(0.0, 1.0)
    max_attempts: int = knob(1, 100_000, kind=int)

    def validate(self) -> None:
        if self.t_min > self.t_max:
            raise PresetError(f"EnergyPreset knob 't_min' = {self.t_min} exceeds 't_max' = "
                              f"{self.t_max}")


PRESETS: dict[str, EnergyPreset] = {
    "lite": EnergyPreset(count=30, horizon=120, t_min=15, t_max=25, shift=False,
                         min_stability_slack=0.01, min_carbon_slack=0.01, max_attempts=50),
    "challenge": EnergyPreset(count=10, horizon=1000, t_min=15, t_max=25, shift=True,
                              min_stability_slack=0.01, min_carbon_slack=0.01,
                              max_attempts=50),
}


def turn_budget(horizon: int) -> int:
    """Agent turns: the horizon plus 10% for malformed replies."""
    return horizon + math.ceil(0.1 * horizon)


def base_pattern(period: int, lo: float, hi: float, rng: np.random.Generator,
                 segment: tuple[int, int] = (2, 5)) -> np.ndarray:
    """One period: constant segments of ``segment`` days (2-5 in v1), a random-walk drift and
    rare spikes, clipped."""
    values: list[float] = []
    while len(values) < period:
        seg = min(int(rng.integers(segment[0], segment[1] + 1)), period - len(values))
        values.extend([float(rng.uniform(lo + 0.05, hi - 0.05))] * seg)
    pattern = np.asarray(values) + np.cumsum(rng.normal(0.0, 0.02, size=period))
    for i in range(period):
        if rng.random() < 0.05:
            pattern[i] += rng.normal(0.1, 0.05)
    return np.clip(pattern, lo, hi)


def tiled(base: np.ndarray, length: int, lo: float, hi: float,
          rng: np.random.Generator) -> np.ndarray:
    """Repeat a base pattern over ``length`` days with per-cycle offsets and daily noise."""
    period = len(base)
    cycles = math.ceil(length / period)
    curve = np.tile(base, cycles)[:length].copy()
    for c in range(cycles):
        curve[c * period:(c + 1) * period] += rng.normal(0.0, 0.01)
    curve += rng.normal(0.0, 0.01, size=length)
    return np.clip(curve, lo, hi)


def efficiency(source: str, horizon: int, t_min: int, t_max: int, shift_day: int | None,
               rng: np.random.Generator) -> tuple[list[float], list[int]]:
    """A periodic efficiency timeline; with ``shift_day`` a second pattern starts that day."""
    timeline, periods, _ = efficiency_regimes(source, horizon, t_min, t_max, shift_day, rng)
    return timeline, periods


def efficiency_regimes(source: str, horizon: int, t_min: int, t_max: int,
                       shift_day: int | None, rng: np.random.Generator,
                       segment: tuple[int, int] = (2, 5),
                       limits: tuple[float, float] | None = None
                       ) -> tuple[list[float], list[int], list[list[float]]]:
    """:func:`efficiency` plus each regime's base pattern (rounded like the timeline);
    ``limits`` replaces the source's range (v1: :data:`RANGES`)."""
    lo, hi = RANGES[source] if limits is None else limits
    bounds = [0, horizon] if shift_day is None else [0, shift_day, horizon]
    parts, periods, bases = [], [], []
    for start, end in zip(bounds[:-1], bounds[1:], strict=True):
        period = int(rng.integers(t_min, t_max + 1))
        base = base_pattern(period, lo, hi, rng, segment)
        parts.append(tiled(base, end - start, lo, hi, rng))
        periods.append(period)
        bases.append(_round(base))
    return _round(np.concatenate(parts)), periods, bases


def demand_series(horizon: int, rng: np.random.Generator) -> list[float]:
    """Seasonal demand (30-day sine) with 4% multiplicative noise."""
    base = rng.uniform(320.0, 480.0)
    amp = rng.uniform(0.25, 0.35)
    phase = rng.uniform(0.0, 2 * math.pi)
    t = np.arange(horizon)
    season = np.sin(2 * math.pi * (t % 30) / 30 + phase)
    return _round(base * (1 + amp * season) * (1 + rng.normal(0.0, 0.04, size=horizon)))


def initial_rated(demand0: float, rng: np.random.Generator) -> dict[str, float]:
    """Yesterday's rated values before day 0: random shares of about day-0 demand."""
    shares = np.array([rng.uniform(0.55, 0.75), rng.uniform(0.20, 0.40), rng.uniform(0.15, 0.35)])
    total = demand0 * rng.uniform(0.95, 1.05)
    values = shares / shares.sum() * total
    return {k: round(min(float(v), CAPACITY[k]), DECIMALS)
            for k, v in zip(GENERATORS, values, strict=True)}


def _round(values: Any) -> list[float]:
    return [round(float(v), DECIMALS) for v in np.asarray(values).tolist()]


def rules_text(world: dict[str, Any]) -> str:
    """The with-rules disclosure: periods, value ranges, noise, and the shift day if any."""
    lines = [
        f"Wind efficiency follows a pattern that repeats every {world['wind_period']} days and "
        f"solar efficiency one that repeats every {world['solar_period']} days, counted from "
        f"day 0; each repetition adds small noise (a per-cycle offset and daily noise of about "
        f"0.01).",
        f"Efficiency ranges: wind {RANGES['wind'][0]:.2f}-{RANGES['wind'][1]:.2f}, solar "
        f"{RANGES['solar'][0]:.2f}-{RANGES['solar'][1]:.2f}, thermal "
        f"{RANGES['thermal'][0]:.2f}-{RANGES['thermal'][1]:.2f} (about 1.00 +/- 0.01).",
    ]
    shift = world.get("shift")
    if shift:
        lines.append(f"On day {shift['day']} the patterns shift once: from that day on, wind "
                     f"repeats every {shift['wind_period']} days and solar every "
                     f"{shift['solar_period']} days, counted from day {shift['day']}.")
    return "\n".join(lines)


def public_view(world: dict[str, Any], budget: int) -> dict[str, Any]:
    """What the agent is told at the start: mechanics, capacities, prices and targets."""
    h, cap, pr = world["horizon"], world["capacity"], world["prices"]
    init = world["initial_rated"]
    intro = (
        f"You run a power grid for {h} days. Each day, set the rated output of thermal "
        f"(capacity {cap['thermal']:.0f}), wind ({cap['wind']:.0f}) and solar "
        f"({cap['solar']:.0f}), and a battery command in [-{cap['battery']:.0f}, "
        f"{cap['battery']:.0f}] (positive discharges, negative charges; the battery stores 0 to "
        f"{cap['battery']:.0f} units and starts empty). Actual output = rated x a hidden daily "
        f"efficiency; wind and solar efficiencies vary over time following hidden patterns.\n"
        f"Supply = actual thermal + wind + solar + battery flow. Demand is violated when supply < "
        f"demand. Cost = thermal x {pr['thermal']:g} + wind x {pr['wind']:g} + solar x "
        f"{pr['solar']:g} (rated values) + {pr['battery']:g} x |battery flow|; the budget is "
        f"violated when cost > budget.\n"
        f"Ramp = sum over the four sources of |rated today - rated yesterday| (before day 0: "
        f"thermal {init['thermal']:.2f}, wind {init['wind']:.2f}, solar {init['solar']:.2f}, "
        f"battery 0). Day stability = 1 - 0.5 x min(1, ramp / {sum(cap.values()):.0f}) - 0.5 if "
        f"demand is violated - 0.5 if the budget is violated, clipped to [0, 1]; the stability "
        f"score is the average over days. Thermal share = total actual thermal output / total "
        f"supply.\n"
        f"Three consecutive days with a demand or budget violation collapse the grid (failure). "
        f"Goal: reach day {h} with average stability > {world['target_stability']:.6f} and "
        f"thermal share < {world['target_carbon']:.6f}. You have {budget} turns; a malformed "
        f"reply spends a turn without advancing the day.\n"
        'Reply each day with one JSON object: {"thermal": x, "wind": x, "solar": x, '
        '"battery": x}.')
    return {"horizon": h, "capacity": dict(cap), "prices": dict(pr),
            "initial_rated": dict(init), "target_stability": world["target_stability"],
            "target_carbon": world["target_carbon"], "intro": intro,
            "action_format": '{"thermal": 250, "wind": 120, "solar": 80, "battery": 0}'}


def public_again(public: Mapping[str, Any], budget: int,
                 config: Mapping[str, Any] | None) -> tuple[dict[str, Any], int]:
    """The public view and budget the samplers give a task of these public facts (the
    preset's horizon when its ``config`` is given): what a sealed public copy is checked by."""
    horizon = int(config["horizon"] if config is not None else public["horizon"])
    world = {"horizon": horizon, **{k: public[k] for k in (
        "capacity", "prices", "initial_rated", "target_stability", "target_carbon")}}
    return public_view(world, turn_budget(horizon)), turn_budget(horizon)


def make_draft(world: dict[str, Any], params: dict[str, Any]) -> Draft:
    """Wrap a world into a Draft (shared by the sampler and the importer)."""
    budget = turn_budget(int(world["horizon"]))
    return Draft(params=params, budget=budget, public=public_view(world, budget), world=world,
                 rules_text=rules_text(world), rubric=EnergyGame.rubric(params, world))


def shared_world(h: int, rngs: Mapping[str, np.random.Generator]) -> dict[str, Any]:
    """The world fields every energy sampler draws alike: thermal efficiency, demand, budget,
    targets, tables and the initial rated values."""
    lo, hi = RANGES["thermal"]
    demand = demand_series(h, rngs["demand"])
    return {
        "horizon": h, "demand": demand,
        "budget": [round(BUDGET_FACTOR * d, DECIMALS) for d in demand],
        "eff_thermal": _round(np.clip(1.0 + rngs["thermal"].normal(0.0, 0.01, size=h), lo, hi)),
        "target_stability": round(float(rngs["targets"].uniform(0.95, 0.97)), DECIMALS),
        "target_carbon": round(float(rngs["targets"].uniform(0.66, 0.72)), DECIMALS),
        "capacity": dict(CAPACITY), "prices": dict(PRICES),
        "initial_rated": initial_rated(demand[0], rngs["initial"]),
    }


def sample(config: EnergyPreset | Mapping[str, Any], seq: np.random.SeedSequence) -> Draft:
    """Draw one candidate world from a preset and one attempt's seed stream."""
    preset = EnergyPreset.of(config)
    rngs = component_rngs(seq, ["wind", "solar", "thermal", "demand", "targets", "initial",
                                "shift"])
    h, t_min, t_max = preset.horizon, preset.t_min, preset.t_max
    shift_day = int(rngs["shift"].integers(h // 3, 2 * h // 3 + 1)) if preset.shift else None
    eff_wind, wind_periods = efficiency("wind", h, t_min, t_max, shift_day, rngs["wind"])
    eff_solar, solar_periods = efficiency("solar", h, t_min, t_max, shift_day, rngs["solar"])
    world: dict[str, Any] = {
        **shared_world(h, rngs),
        "eff_wind": eff_wind, "eff_solar": eff_solar,
        "wind_period": wind_periods[0], "solar_period": solar_periods[0],
        "shift": None if shift_day is None else {"day": shift_day,
                                                 "wind_period": wind_periods[1],
                                                 "solar_period": solar_periods[1]},
        "eff_ranges": {k: list(v) for k, v in RANGES.items()},
    }
    params = {"horizon": h, "t_min": t_min, "t_max": t_max, "shift_day": shift_day,
              "min_stability_slack": float(preset.min_stability_slack),
              "min_carbon_slack": float(preset.min_carbon_slack)}
    return make_draft(world, params)


def accept(draft: Draft, cert: Certificate) -> str | None:
    """Return why a verified candidate is rejected, or None to accept it."""
    if not cert.solvable:
        return "unsolvable: no perfect-foresight schedule meets every constraint"
    facts = cert.facts
    min_s = float(draft.params.get("min_stability_slack", 0.01))
    min_c = float(draft.params.get("min_carbon_slack", 0.01))
    if facts.get("stability_slack", -1.0) < min_s:
        return f"tight stability slack {facts.get('stability_slack')} < {min_s}"
    if facts.get("carbon_slack", -1.0) < min_c:
        return f"tight carbon slack {facts.get('carbon_slack')} < {min_c}"
    if not facts.get("nontrivial", False):
        return "trivial: a plan for worst-case efficiencies already succeeds"
    return None
