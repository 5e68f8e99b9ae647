"""Energy Dispatch v7 sampler (a preview): more sources, each site with its own hidden regimes.

A v7 world has 2-3 wind and 2-3 solar sites (drawn per world), splitting ``capacity_scale``
of v1's wind (350) and solar (250) capacity evenly; prices and budgets stay v6's. Each site
draws, from its own child stream, its own number of shifts, shift days (every regime at least
``min_regime`` days), periods and base patterns (v3's regime draw at the preset's swing), so
the sites' patterns and regime changes are unrelated: a learner must model and watch every
site. Thermal, demand, budget, targets and the initial rated values are v3's shared draw; the
initial wind and solar values are split over their sites (capped at their capacity).

Challenge keeps v6's 1,000 days (1,100 turns), periods 35-60 days, swing 1.6 and 1-3 day
segments. Independent sites alone made it easy: an LP dispatcher leans on the sites whose
patterns it knows while it learns the one that shifted (on 10 worlds of a tuning stream, not
a build seed, the change-point learner solved 9 with v6's capacity and 4-7 shifts per site,
6 with half the capacity, 5 with 40 % of it). So the sites share 40 % of v1's renewable
capacity (every site is needed most days) and each shifts 5-9 times, regimes of at least 90
days (2 of 10 there; the planner 10 of 10, persistence 0). The with-rules text discloses
every site's regimes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena_gen.core.calibration import Calibration
from arena_gen.core.presets import PresetError, knob
from arena_gen.core.seeds import child, component_rngs, rng
from arena_gen.core.task import Draft
from arena_gen.envs.energy.game_v1 import EnergyGame
from arena_gen.envs.energy.rules_v7 import kind_of, site_names, sources_of
from arena_gen.envs.energy.sampler_v1 import (
    BUDGET_FACTOR,
    CAPACITY,
    DECIMALS,
    PRICES,
    accept,
    shared_world,
    turn_budget,
)
from arena_gen.envs.energy.sampler_v2 import _pattern, ranges
from arena_gen.envs.energy.sampler_v3 import regimes, shift_days
from arena_gen.envs.energy.sampler_v4 import CALIBRATION as CALIBRATION_V4
from arena_gen.envs.energy.sampler_v6 import EnergyPresetV6

__all__ = ["CALIBRATION", "PRESETS", "EnergyPresetV7", "accept", "public_again",
           "public_view", "rules_text", "sample"]

#: The spawn key (below an attempt's seed) the site counts are drawn from (v3's seven world
#: components use 0-6, v6's shift count 7).
LAYOUT_CHILD = 8
#: Site ``i`` (in :func:`~.rules_v7.site_names` order) draws from spawn key ``SITE_CHILD + i``.
SITE_CHILD = 16


@dataclass(frozen=True)
class EnergyPresetV7(EnergyPresetV6):
    """v6's knobs (``shift_counts`` now per site) plus the [lo, hi] wind and solar sites."""

    wind_sites: tuple[int, int] = knob(1, 4, kind=tuple)
    solar_sites: tuple[int, int] = knob(1, 4, kind=tuple)
    #: The sites' total capacity per kind as a share of v1's (wind 350, solar 250).
    capacity_scale: float = knob(0.1, 1.0)

    def validate(self) -> None:
        super().validate()
        if not self.shift and self.shift_counts[1] > 0:
            raise PresetError("EnergyPresetV7: shift_counts above 0 need shift true")


#: Challenge: v6's horizon, periods and swing (1,000 days, 35-60, 1.6) on 2-3 wind and 2-3
#: solar sites sharing 40 % of v1's renewable capacity, each site shifting 5-9 times (regimes
#: of at least 90 days). Lite: v3's Lite knobs on 2 + 2 sites with v1's capacity, without
#: shifts (for playing and the registry-wide tests; no ladder targets).
PRESETS: dict[str, EnergyPresetV7] = {
    "lite": EnergyPresetV7(count=30, horizon=120, t_min=30, t_max=60, shift=False,
                           min_stability_slack=0.01, min_carbon_slack=0.01, max_attempts=50,
                           segment=(1, 3), swing=1.5, shifts=0, min_regime=1,
                           shift_counts=(0, 0), wind_sites=(2, 2), solar_sites=(2, 2),
                           capacity_scale=1.0),
    "challenge": EnergyPresetV7(count=10, horizon=1000, t_min=35, t_max=60, shift=True,
                                min_stability_slack=0.01, min_carbon_slack=0.01,
                                max_attempts=50, segment=(1, 3), swing=1.6, shifts=5,
                                min_regime=90, shift_counts=(5, 9), wind_sites=(2, 3),
                                solar_sites=(2, 3), capacity_scale=0.4),
}


def _draw(pair: tuple[int, int], gen: np.random.Generator) -> int:
    lo, hi = (int(x) for x in pair)
    return lo if lo == hi else int(gen.integers(lo, hi + 1))


def rules_text(world: Mapping[str, Any]) -> str:
    """The with-rules disclosure: ranges, noise, and every site's regimes (first day, period,
    base pattern)."""
    r = world["eff_ranges"]
    lines = [
        f"Sites: {', '.join(world['sites'])}. Each site's efficiency follows a pattern of its "
        f"own that repeats every P days counted from its regime's first day; each repetition "
        f"adds small noise (a per-cycle offset and daily noise of about 0.01).",
        f"Efficiency ranges: wind sites {r['wind'][0]:.2f}-{r['wind'][1]:.2f}, solar sites "
        f"{r['solar'][0]:.2f}-{r['solar'][1]:.2f}, thermal {r['thermal'][0]:.2f}-"
        f"{r['thermal'][1]:.2f} (about 1.00 +/- 0.01).",
        f"Demand is shown each day; the day's budget is {BUDGET_FACTOR:g} x that day's demand.",
    ]
    for site in world["sites"]:
        for regime in world["regimes"][site]:
            lines.append(f"Site {site} from day {regime['day']} on: repeats every "
                         f"{regime['period']} days, base pattern (day 0 of the cycle first, "
                         f"before the noise) [{_pattern(regime['base'])}].")
    return "\n".join(lines)


def public_view(world: Mapping[str, Any], budget: int) -> dict[str, Any]:
    """What the agent is told at the start: mechanics, sites, capacities, prices, targets."""
    h, cap, pr = world["horizon"], world["capacity"], world["prices"]
    sites, init = list(world["sites"]), world["initial_rated"]
    listed = "; ".join(f"{s} ({kind_of(s)}, capacity {cap[s]:g}, price {pr[s]:g})"
                       for s in sites)
    before = ", ".join(f"{k} {init[k]:.2f}" for k in ("thermal", *sites))
    keys = ", ".join(f'"{k}": x' for k in sources_of(sites))
    total = sum(cap[k] for k in sources_of(sites))
    intro = (
        f"You run a power grid for {h} days. Each day, set the rated output of thermal "
        f"(capacity {cap['thermal']:g}, price {pr['thermal']:g}) and of each renewable site: "
        f"{listed}; and a battery command in [-{cap['battery']:g}, {cap['battery']:g}] "
        f"(positive discharges, negative charges; the battery stores 0 to {cap['battery']:g} "
        f"units and starts empty). Actual output = rated x a hidden daily efficiency; every "
        f"site's efficiency varies over time following a hidden pattern of its own, which can "
        f"change.\n"
        f"Supply = actual thermal + every site's actual output + battery flow. Demand is "
        f"violated when supply < demand. Cost = sum over thermal and the sites of rated x "
        f"price + {pr['battery']:g} x |battery flow|; the budget is violated when cost > "
        f"budget.\n"
        f"Ramp = sum over every source of |rated today - rated yesterday| (before day 0: "
        f"{before}, battery 0). Day stability = 1 - 0.5 x min(1, ramp / {total:g}) - 0.5 if "
        f"demand is violated - 0.5 if the budget is violated, clipped to [0, 1]; the stability "
        f"score is the average over days. Thermal share = total actual thermal output / total "
        f"supply.\n"
        f"Three consecutive days with a demand or budget violation collapse the grid (failure). "
        f"Goal: reach day {h} with average stability > {world['target_stability']:.6f} and "
        f"thermal share < {world['target_carbon']:.6f}. You have {budget} turns; a malformed "
        f"reply spends a turn without advancing the day.\n"
        f"Reply each day with one JSON object: {{{keys}}}.")
    example = {"thermal": 250, **{s: 40 for s in sites}, "battery": 0}
    return {"horizon": h, "sites": sites, "capacity": dict(cap), "prices": dict(pr),
            "initial_rated": dict(init), "target_stability": world["target_stability"],
            "target_carbon": world["target_carbon"], "intro": intro,
            "action_format": "{" + ", ".join(f'"{k}": {v}' for k, v in example.items()) + "}"}


def public_again(public: Mapping[str, Any], budget: int,
                 config: Mapping[str, Any] | None) -> tuple[dict[str, Any], int]:
    """The public view and budget the sampler gives a task of these public facts (the preset's
    horizon when its ``config`` is given)."""
    horizon = int(config["horizon"] if config is not None else public["horizon"])
    world = {"horizon": horizon, **{k: public[k] for k in (
        "sites", "capacity", "prices", "initial_rated", "target_stability", "target_carbon")}}
    return public_view(world, turn_budget(horizon)), turn_budget(horizon)


def sample(config: EnergyPresetV7 | Mapping[str, Any], seq: np.random.SeedSequence) -> Draft:
    """Draw one candidate world: v3's shared parts, the site counts, then each site's regimes
    from its own stream."""
    preset = EnergyPresetV7.of(config)
    h, t_min, t_max = preset.horizon, preset.t_min, preset.t_max
    segment = (int(preset.segment[0]), int(preset.segment[1]))
    limits = ranges(float(preset.swing))
    rngs = component_rngs(seq, ["wind", "solar", "thermal", "demand", "targets", "initial",
                                "shift"])
    shared = shared_world(h, rngs)
    layout = rng(child(seq, LAYOUT_CHILD))
    counts = {"wind": _draw(preset.wind_sites, layout), "solar": _draw(preset.solar_sites, layout)}
    sites = site_names(counts["wind"], counts["solar"])
    eff: dict[str, list[float]] = {}
    site_regimes: dict[str, list[dict[str, Any]]] = {}
    for i, site in enumerate(sites):
        gen = rng(child(seq, SITE_CHILD + i))
        shifts = _draw(preset.shift_counts, gen) if preset.shift else 0
        days = shift_days(h, shifts, int(preset.min_regime), gen) if shifts else []
        eff[site], periods, bases = regimes(h, t_min, t_max, days, gen, segment,
                                            limits[kind_of(site)])
        site_regimes[site] = [{"day": d, "period": p, "base": b}
                              for d, p, b in zip([0, *days], periods, bases, strict=True)]
    init = shared["initial_rated"]
    world: dict[str, Any] = {
        **{k: v for k, v in shared.items() if k not in ("capacity", "prices", "initial_rated")},
        "sites": sites,
        "capacity": {"thermal": CAPACITY["thermal"],
                     **{s: round(CAPACITY[kind_of(s)] * float(preset.capacity_scale)
                                 / counts[kind_of(s)], DECIMALS)
                        for s in sites}, "battery": CAPACITY["battery"]},
        "prices": {"thermal": PRICES["thermal"], **{s: PRICES[kind_of(s)] for s in sites},
                   "battery": PRICES["battery"]},
        "initial_rated": {"thermal": init["thermal"],
                          **{s: round(min(init[kind_of(s)], CAPACITY[kind_of(s)]
                                          * float(preset.capacity_scale)) / counts[kind_of(s)],
                                      DECIMALS)
                             for s in sites}},
        "eff": eff, "regimes": site_regimes,
        "eff_ranges": {k: list(v) for k, v in limits.items()},
    }
    params = {"horizon": h, "t_min": t_min, "t_max": t_max, "segment": list(segment),
              "swing": float(preset.swing), "min_regime": int(preset.min_regime),
              "capacity_scale": float(preset.capacity_scale),
              "shift_counts": list(preset.shift_counts), "sites": sites,
              "shift_days": sorted({r["day"] for s in sites for r in site_regimes[s][1:]}),
              "site_shifts": {s: [r["day"] for r in site_regimes[s][1:]] for s in sites},
              "min_stability_slack": float(preset.min_stability_slack),
              "min_carbon_slack": float(preset.min_carbon_slack)}
    budget = turn_budget(h)
    return Draft(params=params, budget=budget, public=public_view(world, budget), world=world,
                 rules_text=rules_text(world), rubric=EnergyGame.rubric(params, world))


#: v4's per-task resistance and planner rule; Challenge's ceiling on the best inductive rung
#: (v6's 0.6). Lite has no targets (a preview playground, no ladder).
CALIBRATION: dict[str, Calibration] = {
    "challenge": dataclasses.replace(CALIBRATION_V4["challenge"]),
}
