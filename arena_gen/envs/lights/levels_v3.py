"""Lights v3 curriculum levels: the v3 presets with fewer or more bulbs and a shallower or
deeper dependency chain (the exact-minimum floor), easiest first.

Every level is a v3 preset with the knobs that set difficulty replaced: the bulb counts, and
the floor on the exact minimum (a deeper chain of conditions needs more toggles). The condition
shape (at most 3 literals, ``p_not``, ``p_and``) and the budgets stay the presets' own: L1-L3
keep Lite's 50 turns, L4-L5 Challenge's 70. L3 is Lite's bulb band at its floor, L4 is
Challenge's knobs. The measured ladder per level is in ``benchmarks/README.md`` (curricula).
"""

from __future__ import annotations

from arena_gen.envs.lights.sampler import LightsPreset
from arena_gen.envs.lights.sampler_v3 import PRESETS

_LITE, _CHALLENGE = PRESETS["lite"], PRESETS["challenge"]

#: The levels, easiest first.
LEVELS: dict[str, LightsPreset] = {
    "L1": _LITE.replace(n_values=(5, 6), n_weights=(1, 1), min_len=6),
    "L2": _LITE.replace(n_values=(7, 8), n_weights=(1, 1), min_len=8),
    "L3": _LITE.replace(n_values=(9, 10), n_weights=(1, 1)),
    "L4": _CHALLENGE,
    "L5": _CHALLENGE.replace(n_values=(13, 14), min_len=16),
}
