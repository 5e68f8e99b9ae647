"""Trading v3 curriculum levels: the v3 presets with fewer or more stocks and factors and a
wider or narrower noise range, easiest first.

Every level is a v3 preset with the knobs that set difficulty replaced: the stock and factor
ranges (how many prices move, through how many hidden factors) and the noise scale's range
(how much of a day's move the news does not explain). The acceptance thresholds and the other
knobs stay the preset's own. L1-L4 keep Lite's 120 days and fees; L3 is Lite itself, L5 is
Challenge. L4 takes Challenge's stocks, factors and factor scale (``w_max``): with Lite's scale
the inductive heuristic solved more L4 tasks than L3 ones (5 against 4 of 10). The measured
ladder per level is in ``benchmarks/README.md`` (curriculum levels).
"""

from __future__ import annotations

from typing import TypeVar

from arena_gen.envs.trading.sampler_v3 import PRESETS, TradingPresetV3

P = TypeVar("P", bound=TradingPresetV3)


def levels_from(lite: P, challenge: P) -> dict[str, P]:
    """The five levels made from a version's Lite and Challenge presets (v4 reuses them)."""
    return {
        "L1": lite.replace(stocks=(3, 4), factors=(2, 3), noise_hi=0.5),
        "L2": lite.replace(stocks=(4, 6), factors=(3, 4), noise_hi=1.0),
        "L3": lite,
        "L4": lite.replace(stocks=challenge.stocks, factors=challenge.factors,
                           cover_grid=challenge.cover_grid, w_max=challenge.w_max),
        "L5": challenge,
    }


#: The levels, easiest first.
LEVELS: dict[str, TradingPresetV3] = levels_from(PRESETS["lite"], PRESETS["challenge"])
