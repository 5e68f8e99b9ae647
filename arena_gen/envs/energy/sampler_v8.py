"""Energy Dispatch v8 presets (a preview): v7's sampler and worlds, a harder Challenge.

v8 draws its worlds with :func:`~.sampler_v7.sample` (the sites, each with its own regimes);
only the presets and calibration are v8's own.
"""

from __future__ import annotations

from arena_gen.core.calibration import Calibration
from arena_gen.envs.energy.sampler_v7 import CALIBRATION as CALIBRATION_V7
from arena_gen.envs.energy.sampler_v7 import PRESETS as PRESETS_V7
from arena_gen.envs.energy.sampler_v7 import EnergyPresetV7

__all__ = ["CALIBRATION", "PRESETS"]

#: Lite: v7's playground. Challenge: v7's for now.
PRESETS: dict[str, EnergyPresetV7] = dict(PRESETS_V7)

#: v7's: per-task resistance, the planner on every task, the inductive ceiling.
CALIBRATION: dict[str, Calibration] = dict(CALIBRATION_V7)
