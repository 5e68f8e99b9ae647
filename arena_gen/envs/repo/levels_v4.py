"""Repo v4 curriculum levels: the v4 presets with fewer or more packages and hidden and
consistency rules, easiest first.

Every level is a v4 preset with the knobs that set difficulty replaced: the package count,
the hidden rules and consistency rules (what the agent must discover), and the floor on the
exact minimum. The rest (versions, dependency shape, side effects, budgets) stays the presets'
own. L1-L2 are smaller worlds with fewer rules, L3 is Lite itself, L4 is Lite with 12-14
packages, L5 is Challenge. More hidden rules alone did not make a world harder for the inductive
heuristic (Lite with 3 hidden and 3 consistency rules: 7 of 16 solved against 3 of 16 at L3),
nor did Challenge's budget and success cap at L4; at seed 7 no L4 tried measured below L3
(``benchmarks/README.md``, curriculum levels).
"""

from __future__ import annotations

from arena_gen.envs.repo.sampler_v3 import RepoV3Preset
from arena_gen.envs.repo.sampler_v4 import PRESETS

_LITE, _CHALLENGE = PRESETS["lite"], PRESETS["challenge"]

#: The levels, easiest first.
LEVELS: dict[str, RepoV3Preset] = {
    "L1": _LITE.replace(n_min=5, n_max=7, n_hidden=1, n_consistency=1, min_len=3),
    "L2": _LITE.replace(n_min=7, n_max=9, n_hidden=1, min_len=4),
    "L3": _LITE,
    "L4": _LITE.replace(n_min=12, n_max=14, min_len=6),
    "L5": _CHALLENGE,
}
