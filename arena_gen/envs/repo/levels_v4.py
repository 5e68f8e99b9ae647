"""Repo v4 curriculum levels: the v4 presets with fewer packages and rules, or more
high-priority packages, easiest first.

Every level is a v4 preset with the knobs that set difficulty replaced. L1-L2 are smaller
worlds with fewer hidden and consistency rules (and lower floors on the exact minimum), L3 is
Lite itself. Above Lite the knob is ``p_high``, the share of high-priority packages: their
installs have side effects that move other packages off their solution, so a repair the
inductive heuristic made is silently undone. On Lite's seed-7 stream its rate falls with that
share (0.4: 45 %, 0.55: 25 %, 0.7: 20 %, 0.85: 10 %, 1.0: 5 % of 40 tasks) while the planner
solves every task; more packages, hidden or consistency rules, a tighter success cap or a
higher floor did not make worlds harder for it, and Challenge's stream is about as easy for it
as Lite's (``benchmarks/README.md``, curriculum levels). So L4 is Lite and L5 is Challenge, each
with ``p_high`` 0.7.
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
    "L4": _LITE.replace(p_high=0.7),
    "L5": _CHALLENGE.replace(p_high=0.7),
}
