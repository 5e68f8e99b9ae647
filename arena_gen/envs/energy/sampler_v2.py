"""Energy Dispatch v2 sampler: v1's worlds plus the base patterns, disclosed in the rules text.

The world is drawn exactly as in v1 (:mod:`.energy`, same streams and draw order) except for
the ``segment`` knob (the length range of the constant segments of a base pattern; v1 fixes
2-5 days), and it also records each regime's base pattern (``wind_base`` / ``solar_base``, and
the shift's ``wind_base`` / ``solar_base``). The v2 rules text discloses those patterns, so an
agent that knows the rules can plan every day ahead (with-rules mode is deductive up to the
per-cycle and daily noise); an inductive agent must learn them from what it observes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena_gen.core.calibration import Calibration
from arena_gen.core.presets import knob
from arena_gen.core.seeds import component_rngs
from arena_gen.core.task import Draft
from arena_gen.envs.energy.game_v1 import EnergyGame
from arena_gen.envs.energy.sampler_v1 import (
    BUDGET_FACTOR,
    RANGES,
    EnergyPreset,
    accept,
    efficiency_regimes,
    public_view,
    rules_text,
    shared_world,
    turn_budget,
)

__all__ = ["CALIBRATION", "PRESETS", "EnergyPresetV2", "accept", "rules_text_v2", "sample"]


@dataclass(frozen=True)
class EnergyPresetV2(EnergyPreset):
    """v1's knobs plus ``segment``: the [lo, hi] days of a base pattern's constant segments
    (short segments make yesterday a poor guess of today, so the pattern must be learnt)."""

    segment: tuple[int, int] = knob(1, 100, kind=tuple)
    swing: float = knob(0.5, 2.0)


def ranges(swing: float) -> dict[str, tuple[float, float]]:
    """The efficiency ranges: v1's wind and solar ranges scaled by ``swing`` about their
    centres (thermal unchanged), rounded to 4 decimals."""
    out = {}
    for k, (lo, hi) in RANGES.items():
        mid, half = (lo + hi) / 2, (hi - lo) / 2 * (swing if k != "thermal" else 1.0)
        out[k] = (round(mid - half, 4), round(mid + half, 4))
    return out


PRESETS: dict[str, EnergyPresetV2] = {
    "lite": EnergyPresetV2(count=30, horizon=120, t_min=30, t_max=60, shift=False,
                           min_stability_slack=0.01, min_carbon_slack=0.01, max_attempts=50,
                           segment=(1, 3), swing=1.5),
    "challenge": EnergyPresetV2(count=10, horizon=360, t_min=35, t_max=60, shift=True,
                                min_stability_slack=0.01, min_carbon_slack=0.01,
                                max_attempts=50, segment=(1, 3), swing=1.6),
}


def _pattern(values: list[float]) -> str:
    return ", ".join(f"{v:.3f}" for v in values)


def rules_text_v2(world: dict[str, Any]) -> str:
    """v1's disclosure (with the world's ranges) plus each regime's base pattern (one cycle,
    3 decimals)."""
    r = world["eff_ranges"]
    v1 = rules_text(world).split("\n")
    v1[1] = (f"Efficiency ranges: wind {r['wind'][0]:.2f}-{r['wind'][1]:.2f}, solar "
             f"{r['solar'][0]:.2f}-{r['solar'][1]:.2f}, thermal {r['thermal'][0]:.2f}-"
             f"{r['thermal'][1]:.2f} (about 1.00 +/- 0.01).")
    lines = ["\n".join(v1),
             f"Base pattern of one cycle (day 0 of the cycle first), before the noise: wind "
             f"[{_pattern(world['wind_base'])}]; solar [{_pattern(world['solar_base'])}].",
             "Demand is shown each day; the day's budget is "
             f"{BUDGET_FACTOR:g} x that day's demand."]
    shift = world.get("shift")
    if shift:
        lines.append(f"Base pattern from day {shift['day']} on: wind "
                     f"[{_pattern(shift['wind_base'])}]; solar "
                     f"[{_pattern(shift['solar_base'])}].")
    return "\n".join(lines)


def sample(config: EnergyPresetV2 | Mapping[str, Any], seq: np.random.SeedSequence) -> Draft:
    """Draw one candidate world from a preset and one attempt's seed stream."""
    preset = EnergyPresetV2.of(config)
    rngs = component_rngs(seq, ["wind", "solar", "thermal", "demand", "targets", "initial",
                                "shift"])
    h, t_min, t_max = preset.horizon, preset.t_min, preset.t_max
    segment = (int(preset.segment[0]), int(preset.segment[1]))
    limits = ranges(float(preset.swing))
    shift_day = int(rngs["shift"].integers(h // 3, 2 * h // 3 + 1)) if preset.shift else None
    eff_wind, wind_periods, wind_bases = efficiency_regimes(
        "wind", h, t_min, t_max, shift_day, rngs["wind"], segment, limits["wind"])
    eff_solar, solar_periods, solar_bases = efficiency_regimes(
        "solar", h, t_min, t_max, shift_day, rngs["solar"], segment, limits["solar"])
    world: dict[str, Any] = {
        **shared_world(h, rngs),
        "eff_wind": eff_wind, "eff_solar": eff_solar,
        "wind_period": wind_periods[0], "solar_period": solar_periods[0],
        "wind_base": wind_bases[0], "solar_base": solar_bases[0],
        "shift": None if shift_day is None else {
            "day": shift_day, "wind_period": wind_periods[1], "solar_period": solar_periods[1],
            "wind_base": wind_bases[1], "solar_base": solar_bases[1]},
        "eff_ranges": {k: list(v) for k, v in limits.items()},
    }
    params = {"horizon": h, "t_min": t_min, "t_max": t_max, "shift_day": shift_day,
              "segment": list(segment), "swing": float(preset.swing),
              "min_stability_slack": float(preset.min_stability_slack),
              "min_carbon_slack": float(preset.min_carbon_slack)}
    budget = turn_budget(h)
    return Draft(params=params, budget=budget, public=public_view(world, budget), world=world,
                 rules_text=rules_text_v2(world), rubric=EnergyGame.rubric(params, world))


#: The ladder targets (issue 15): Lite's best inductive baseline in 10-60 %, Challenge below.
CALIBRATION: dict[str, Calibration] = {
    "lite": Calibration(),
    "challenge": Calibration(inductive=None, planner_floor=0.8),
}
