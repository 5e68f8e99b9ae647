"""Energy Dispatch v3 sampler: Lite as v2; Challenge with more than one hidden pattern shift.

With a sound change detector (:mod:`.agents.changepoint`) one shift costs an inductive agent
little: it notices the shift the day after and relearns, and v2's 360-day Challenge was easier
than Lite for it (60 % against 43 % on seed 7). v3's Challenge draws ``shifts`` shifts (two),
with every regime at least ``min_regime`` days long and the shift days spread over the whole
horizon, so the learner pays the cost of learning a pattern three times; the horizon is 330
days (v2's 360 left the stronger rung, 2.5 sigmas of pessimism, near its Lite rate: less time
to pay back what it hedges while it learns makes Challenge harder). Each regime draws a
new period and base pattern (tiled from its first day), as v2's one shift does. The rules text
discloses every regime (with-rules mode stays deductive); nothing the agent sees in inductive
mode names a shift day.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena_gen.core.calibration import Calibration
from arena_gen.core.presets import PresetError, knob
from arena_gen.core.seeds import component_rngs
from arena_gen.core.task import Draft
from arena_gen.envs.energy.game_v1 import EnergyGame
from arena_gen.envs.energy.sampler_v1 import (
    BUDGET_FACTOR,
    _round,
    accept,
    base_pattern,
    public_view,
    shared_world,
    tiled,
    turn_budget,
)
from arena_gen.envs.energy.sampler_v2 import EnergyPresetV2, _pattern, ranges
from arena_gen.envs.energy.sampler_v2 import sample as sample_v2

__all__ = ["CALIBRATION", "PRESETS", "EnergyPresetV3", "accept", "rules_text_v3", "sample"]


@dataclass(frozen=True)
class EnergyPresetV3(EnergyPresetV2):
    """v2's knobs plus ``shifts`` (pattern shifts when ``shift`` is set) and ``min_regime``
    (the fewest days of every regime)."""

    shifts: int = knob(0, 10, kind=int)
    min_regime: int = knob(1, 1000, kind=int)

    def validate(self) -> None:
        super().validate()
        if self.shift and (self.shifts + 1) * self.min_regime > self.horizon:
            raise PresetError(f"EnergyPresetV3: {self.shifts + 1} regimes of at least "
                              f"{self.min_regime} days exceed the horizon {self.horizon}")


PRESETS: dict[str, EnergyPresetV3] = {
    "lite": EnergyPresetV3(count=30, horizon=120, t_min=30, t_max=60, shift=False,
                           min_stability_slack=0.01, min_carbon_slack=0.01, max_attempts=50,
                           segment=(1, 3), swing=1.5, shifts=0, min_regime=1),
    "challenge": EnergyPresetV3(count=10, horizon=330, t_min=35, t_max=60, shift=True,
                                min_stability_slack=0.01, min_carbon_slack=0.01,
                                max_attempts=50, segment=(1, 3), swing=1.6, shifts=2,
                                min_regime=90),
}


def shift_days(horizon: int, shifts: int, min_regime: int, rng: np.random.Generator
               ) -> list[int]:
    """``shifts`` sorted shift days with every regime (first, between, last) at least
    ``min_regime`` days long, uniform over such placements."""
    spare = horizon - (shifts + 1) * min_regime
    cuts = np.sort(rng.integers(0, spare + 1, size=shifts))
    return [int(c) + (i + 1) * min_regime for i, c in enumerate(cuts)]


def regimes(horizon: int, t_min: int, t_max: int, days: list[int], rng: np.random.Generator,
            segment: tuple[int, int], limits: tuple[float, float]
            ) -> tuple[list[float], list[int], list[list[float]]]:
    """One renewable's timeline over regimes starting at 0 and each of ``days``: each a new
    period and base pattern tiled from its first day; returns (timeline, periods, bases)."""
    lo, hi = limits
    bounds = [0, *days, horizon]
    parts, periods, bases = [], [], []
    for start, end in zip(bounds[:-1], bounds[1:], strict=True):
        period = int(rng.integers(t_min, t_max + 1))
        base = base_pattern(period, lo, hi, rng, segment)
        parts.append(tiled(base, end - start, lo, hi, rng))
        periods.append(period)
        bases.append(_round(base))
    return _round(np.concatenate(parts)), periods, bases


def rules_text_v3(world: dict[str, Any]) -> str:
    """The with-rules disclosure: periods, ranges, noise, the first regime's base pattern and,
    for every shift, its day, new periods and new base pattern."""
    r = world["eff_ranges"]
    lines = [
        f"Wind efficiency follows a pattern that repeats every {world['wind_period']} days and "
        f"solar efficiency one that repeats every {world['solar_period']} days, counted from "
        f"day 0; each repetition adds small noise (a per-cycle offset and daily noise of about "
        f"0.01).",
        f"Efficiency ranges: wind {r['wind'][0]:.2f}-{r['wind'][1]:.2f}, solar "
        f"{r['solar'][0]:.2f}-{r['solar'][1]:.2f}, thermal {r['thermal'][0]:.2f}-"
        f"{r['thermal'][1]:.2f} (about 1.00 +/- 0.01).",
        f"Base pattern of one cycle (day 0 of the cycle first), before the noise: wind "
        f"[{_pattern(world['wind_base'])}]; solar [{_pattern(world['solar_base'])}].",
        f"Demand is shown each day; the day's budget is {BUDGET_FACTOR:g} x that day's demand.",
    ]
    for shift in world.get("shifts") or []:
        lines.append(f"On day {shift['day']} the patterns shift: from that day on, wind repeats "
                     f"every {shift['wind_period']} days and solar every "
                     f"{shift['solar_period']} days, counted from day {shift['day']}.")
        lines.append(f"Base pattern from day {shift['day']} on: wind "
                     f"[{_pattern(shift['wind_base'])}]; solar "
                     f"[{_pattern(shift['solar_base'])}].")
    return "\n".join(lines)


def sample(config: EnergyPresetV3 | Mapping[str, Any], seq: np.random.SeedSequence) -> Draft:
    """Draw one candidate world: without shifts exactly v2's draw, else the multi-shift one."""
    preset = EnergyPresetV3.of(config)
    if not preset.shift or preset.shifts == 0:
        v2 = {k: v for k, v in preset.to_dict().items() if k not in ("shifts", "min_regime")}
        draft = sample_v2(v2, seq)
        draft.params.update({"shifts": 0, "min_regime": int(preset.min_regime)})
        return draft
    rngs = component_rngs(seq, ["wind", "solar", "thermal", "demand", "targets", "initial",
                                "shift"])
    h, t_min, t_max = preset.horizon, preset.t_min, preset.t_max
    segment = (int(preset.segment[0]), int(preset.segment[1]))
    limits = ranges(float(preset.swing))
    days = shift_days(h, int(preset.shifts), int(preset.min_regime), rngs["shift"])
    eff_wind, wind_periods, wind_bases = regimes(h, t_min, t_max, days, rngs["wind"], segment,
                                                 limits["wind"])
    eff_solar, solar_periods, solar_bases = regimes(h, t_min, t_max, days, rngs["solar"],
                                                    segment, limits["solar"])
    world: dict[str, Any] = {
        **shared_world(h, rngs),
        "eff_wind": eff_wind, "eff_solar": eff_solar,
        "wind_period": wind_periods[0], "solar_period": solar_periods[0],
        "wind_base": wind_bases[0], "solar_base": solar_bases[0],
        "shift": None,
        "shifts": [{"day": d, "wind_period": wind_periods[i + 1],
                    "solar_period": solar_periods[i + 1], "wind_base": wind_bases[i + 1],
                    "solar_base": solar_bases[i + 1]} for i, d in enumerate(days)],
        "eff_ranges": {k: list(v) for k, v in limits.items()},
    }
    params = {"horizon": h, "t_min": t_min, "t_max": t_max, "shift_days": days,
              "segment": list(segment), "swing": float(preset.swing),
              "shifts": int(preset.shifts), "min_regime": int(preset.min_regime),
              "min_stability_slack": float(preset.min_stability_slack),
              "min_carbon_slack": float(preset.min_carbon_slack)}
    budget = turn_budget(h)
    return Draft(params=params, budget=budget, public=public_view(world, budget), world=world,
                 rules_text=rules_text_v3(world), rubric=EnergyGame.rubric(params, world))


#: The ladder targets (issue 25), checked per seed by ``build``: Lite's best inductive rung in
#: 10-70 % and 15 points above the best model-free rung; Challenge's best inductive rung at
#: most 60 %. Out of sample (seeds 11-20, docs/envs/energy.md) Lite pools at 48 % and Challenge
#: at 17 %, but single seeds reach 63 % (Lite 15) and 60 % (Challenge 15): one 30- or 10-task
#: build cannot certify the pooled bands, so the per-seed checks are what a seed can certify.
CALIBRATION: dict[str, Calibration] = {
    "lite": Calibration(inductive=(0.10, 0.70), induction_margin=0.15),
    "challenge": Calibration(inductive=None, planner_floor=0.8, inductive_ceiling=0.6),
}
