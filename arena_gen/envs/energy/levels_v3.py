"""Energy v3 curriculum levels: the v3 presets with shorter or longer demand and price
patterns, and none to three shifts of them, easiest first.

Every level is a v3 preset with the knobs that set difficulty replaced: the pattern periods
(short periods repeat more often within the horizon, so there is more to learn the pattern
from), and the shifts (a regime change the agent must notice and re-learn) with the horizon and
shortest regime they need. L1 is Lite with periods of 15-30 days instead of 30-60, L2 is Lite
itself, L3 adds one shift over 240 days, L4 is Challenge's two shifts over those 240 days, L5
is Challenge with three shifts (every regime at least 80 of its 330 days). A shorter horizon is
not easier: 60 Lite days measured 0 of 6 for the inductive heuristic against 2 of 6 at 120.
Challenge itself (two shifts) was level with L4 (1 of 12 each; 2 of 20 against 3 of 20); a
third shift costs the heuristic every task (0 of 20) and the planner none
(``benchmarks/README.md``, curriculum levels).
"""

from __future__ import annotations

from arena_gen.envs.energy.sampler_v3 import PRESETS, EnergyPresetV3

_LITE, _CHALLENGE = PRESETS["lite"], PRESETS["challenge"]

#: The levels, easiest first.
LEVELS: dict[str, EnergyPresetV3] = {
    "L1": _LITE.replace(t_min=15, t_max=30),
    "L2": _LITE,
    "L3": _LITE.replace(horizon=2 * _LITE.horizon, shift=True, shifts=1,
                        min_regime=_LITE.horizon // 2),
    "L4": _CHALLENGE.replace(horizon=2 * _LITE.horizon, min_regime=_LITE.horizon // 2),
    "L5": _CHALLENGE.replace(shifts=3, min_regime=80),
}
