"""Energy v3 curriculum levels: the v3 presets with shorter or longer demand and price
patterns, and none to three shifts of them, easiest first.

Every level is a v3 preset with the knobs that set difficulty replaced: the pattern periods
(short periods repeat more often within the horizon, so there is more to learn the pattern
from), and the shifts (a regime change the agent must notice and re-learn) with the horizon and
shortest regime they need. L1 is Lite with periods of 15-30 days instead of 30-60, L2 is Lite
itself, L3 adds one shift over 240 days, L4 is Challenge's periods and swing with one shift over
180 days (less to re-learn from after it), L5 is Challenge with three shifts (every regime at
least 80 of its 330 days). A shorter horizon is not easier: 60 Lite days measured 0 of 6 for
the inductive heuristic against 2 of 6 at 120, and L4's one shift within 150 days 0 of 60. Two
shifts within 240 days left it 1-3 of 40 tasks, about L5's rate, so L4 has one; pooled over the
seed-7 and seed-11 streams (200-300 tasks a level) it solves 64, 46, 26, 10 and 3 %, each step
beyond noise (``benchmarks/README.md``, curriculum levels).
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
    "L4": _CHALLENGE.replace(horizon=3 * _LITE.horizon // 2, shifts=1,
                             min_regime=_LITE.horizon // 2),
    "L5": _CHALLENGE.replace(shifts=3, min_regime=80),
}
