"""Trading v4 curriculum levels: v3's L1-L3 made from the v4 presets (v3's worlds and knobs,
plus v4's switch margin), and v4's own L4 and L5, ordered for the inductive heuristic.

v3's L4 (Challenge's stocks and factors at Challenge's factor scale over Lite's 120 days) left
the heuristic below Challenge itself (0 against 3 of 20 tasks, seed 7): Challenge's 300 days
give a learner more data at the same scale. v4's L4 keeps v3's stocks and factors over 120
days at a factor scale between Lite's and Challenge's, and L5 is Challenge with fewer days, so
the heuristic falls L3 > L4 > L5 (figures in ``benchmarks/README.md``, curriculum levels).
"""

from __future__ import annotations

from typing import TypeVar

from arena_gen.envs.trading.levels_v3 import levels_from
from arena_gen.envs.trading.sampler_v3 import TradingPresetV3
from arena_gen.envs.trading.sampler_v4 import PRESETS, TradingPresetV4

P = TypeVar("P", bound=TradingPresetV3)

#: L4's factor scale (Lite 1.8, Challenge 0.5): 23 % of 100 tasks for the heuristic (seeds 7
#: and 8), against 39 % at L3; Challenge's 0.5 gave 0 of 20.
L4_W_MAX = 1.2
#: L5's days (Challenge 300): 3 % of 100 tasks for the heuristic, against Challenge's 11 %.
L5_HORIZON = 240


def v4_levels(lite: P, challenge: P) -> dict[str, P]:
    """v3's levels of the v4 (or later) presets with v4's L4 and L5 (v3's own levels stay as
    they are)."""
    levels = levels_from(lite, challenge)
    return {**levels, "L4": levels["L4"].replace(w_max=L4_W_MAX),
            "L5": challenge.replace(horizon=L5_HORIZON)}


#: The levels, easiest first.
LEVELS: dict[str, TradingPresetV4] = v4_levels(PRESETS["lite"], PRESETS["challenge"])
