"""Trading v6 curriculum levels: v5's levels, each with one regime (v5's worlds), easiest
first; the regime changes are the Challenge's alone for now."""

from __future__ import annotations

from arena_gen.envs.trading.levels_v5 import LEVELS as LEVELS_V5
from arena_gen.envs.trading.sampler_v6 import TradingPresetV6, one_regime

#: The levels, easiest first.
LEVELS: dict[str, TradingPresetV6] = {name: one_regime(p) for name, p in LEVELS_V5.items()}
