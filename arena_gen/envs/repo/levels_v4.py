"""Repo v4 curriculum levels: the v4 presets with fewer or more packages and hidden and
consistency rules, easiest first.

Every level is a v4 preset with the knobs that set difficulty replaced: the package count,
the hidden rules and consistency rules (what the agent must discover), the API calls per
script, and the floor on the exact minimum. The rest (versions, dependency shape, side effects,
budgets) stays the presets' own. L3 is Lite itself, L5 is Challenge. L4 keeps Lite's budget and
its cap on success configurations: with Challenge's (1,000) the inductive heuristic solved all
5 L4 tasks drawn, more than at L3. The measured ladder per level is in
``benchmarks/README.md`` (curriculum levels).
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
    "L4": _LITE.replace(n_min=12, n_max=14, n_hidden=3, n_consistency=3, calls_max=3,
                        min_len=6),
    "L5": _CHALLENGE,
}
