"""Repo v4 curriculum levels: the v4 presets with fewer packages and rules, and fewer or
more high-priority packages, easiest first.

Every level is a v4 preset with the knobs that set difficulty replaced. The knob that orders
them for the inductive heuristic is ``p_high``, the share of high-priority packages: their
installs have side effects that move other packages off their solution, so a repair the
heuristic made is silently undone. More packages, hidden or consistency rules, a tighter success
cap or a higher floor did not make worlds harder for it, and Challenge's stream is about as easy
for it as Lite's. L1-L2 are smaller worlds with fewer hidden and consistency rules (lower floors
on the exact minimum) and fewer high-priority packages (0.2, 0.3), L3 is Lite itself (0.4), L4
is Lite with 0.65 and L5 Challenge with 0.7. Pooled over the seed-7 and seed-11 streams (60
tasks each) the heuristic solves 90, 65, 42, 22 and 5 % of them, each level's Wilson 95 %
interval clear of its neighbours', while the planner solves every task
(``benchmarks/README.md``, curriculum levels).
"""

from __future__ import annotations

from arena_gen.envs.repo.sampler_v3 import RepoV3Preset
from arena_gen.envs.repo.sampler_v4 import PRESETS

_LITE, _CHALLENGE = PRESETS["lite"], PRESETS["challenge"]

#: The levels, easiest first.
LEVELS: dict[str, RepoV3Preset] = {
    "L1": _LITE.replace(n_min=5, n_max=7, n_hidden=1, n_consistency=1, min_len=3, p_high=0.2),
    "L2": _LITE.replace(n_min=7, n_max=9, n_hidden=1, min_len=4, p_high=0.3),
    "L3": _LITE,
    "L4": _LITE.replace(p_high=0.65),
    "L5": _CHALLENGE.replace(p_high=0.7),
}
