"""Trading v5 curriculum levels: v4's levels made from the v5 presets (v4's worlds and knobs,
with v5's knowledge bars), easiest first."""

from __future__ import annotations

from arena_gen.envs.trading.levels_v4 import v4_levels
from arena_gen.envs.trading.sampler_v3 import TradingPresetV3
from arena_gen.envs.trading.sampler_v5 import PRESETS

#: The levels, easiest first.
LEVELS: dict[str, TradingPresetV3] = v4_levels(PRESETS["lite"], PRESETS["challenge"])
