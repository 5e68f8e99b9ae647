"""Trading v4 curriculum levels: v3's levels made from the v4 presets (v3's worlds and knobs,
plus v4's switch margin), so a level's worlds are the v3 level's and only the rubric differs.
"""

from __future__ import annotations

from arena_gen.envs.trading.levels_v3 import levels_from
from arena_gen.envs.trading.sampler_v4 import PRESETS, TradingPresetV4

#: The levels, easiest first.
LEVELS: dict[str, TradingPresetV4] = levels_from(PRESETS["lite"], PRESETS["challenge"])
