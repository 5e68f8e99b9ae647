"""Energy v3 curriculum levels: the v3 presets with a shorter or longer horizon and none, one
or two shifts of the demand and price patterns, easiest first.

Every level is a v3 preset with the knobs that set difficulty replaced: the horizon (days to
keep stable and within the carbon cap), and the shifts (a regime change the agent must notice
and re-learn) with their shortest regime. L2 is Lite itself, L5 is Challenge; L4 is Challenge's
two shifts over a horizon between the two. The measured ladder per level is in
``benchmarks/README.md`` (curricula).
"""

from __future__ import annotations

from arena_gen.envs.energy.sampler_v3 import PRESETS, EnergyPresetV3

_LITE, _CHALLENGE = PRESETS["lite"], PRESETS["challenge"]

#: The levels, easiest first.
LEVELS: dict[str, EnergyPresetV3] = {
    "L1": _LITE.replace(horizon=60),
    "L2": _LITE,
    "L3": _LITE.replace(shift=True, shifts=1, min_regime=_LITE.horizon // 3),
    "L4": _CHALLENGE.replace(horizon=2 * _LITE.horizon, min_regime=_LITE.horizon // 2),
    "L5": _CHALLENGE,
}
