"""Energy v6 curriculum levels: v3's levels as v6 presets (each drawing exactly its number of
shifts, so a level's worlds are v3's), easiest first."""

from __future__ import annotations

from arena_gen.envs.energy.levels_v3 import LEVELS as LEVELS_V3
from arena_gen.envs.energy.sampler_v6 import EnergyPresetV6, from_v3

#: The levels, easiest first.
LEVELS: dict[str, EnergyPresetV6] = {name: from_v3(p) for name, p in LEVELS_V3.items()}
