"""Lights v3 (preview) generation: conditions of at most 3 literals, Lite's budget cut to 50.

v2's Lite (up to 8 literals per condition, 200 turns) could not tell induction from memory:
the model-free sweep (depth-first over untried toggles) solved as many tasks as the inductive
learner (#25). v3 keeps the game and the sampler and changes two knobs: every condition is a
chain of at most 3 literals (a hypothesis class small enough that a learner can hold every
candidate condition and let each toggle outcome refute the wrong ones), and Lite's budget is 50
turns (the exact minimum is still at least 10), so search that remembers only what it walked
runs out of turns where a learner that generalises to unvisited states does not. Challenge
draws the same 3-literal conditions at N 11-12 with a deeper dependency chain (exact minimum at
least 14) in 70 turns: at v2's N 16-24 the version-space learner's truth tables do not fit and
its fallback lit no world, so Challenge measured nothing; at N 11-12 they do, and Challenge is
harder for every rung by depth and budget. The ladder is format 2: the sweep as model-free rung,
the version-space learner as heuristic; Lite's calibration asks the best inductive rung to beat
the best model-free one by 15 points, Challenge's caps the best inductive rung
(benchmarks/README.md, lights v3).
"""

from __future__ import annotations

import dataclasses

from arena_gen.core.calibration import Calibration
from arena_gen.envs.lights.sampler import PRESETS_V2, LightsPreset

#: v2's presets with 3-literal conditions and the v3 budgets.
PRESETS: dict[str, LightsPreset] = {
    "lite": dataclasses.replace(PRESETS_V2["lite"], max_literals=3, budget=50),
    # N 11-12 (not v2's 16-24): the version-space learner's truth tables still fit, so the
    # inductive rung measures something (at N 16-24 with 300 turns its fallback lit 0 of 40
    # worlds, the sweep 2); a deeper chain (exact minimum >= 14, Lite >= 10) in 70 turns is
    # the step up from Lite
    "challenge": dataclasses.replace(PRESETS_V2["challenge"], n_values=(11, 12),
                                     n_weights=(1, 1), max_literals=3, min_len=14,
                                     min_len_over_n=None, budget=70),
}

#: The #25 targets: Lite's bands plus the induction margin over the sweep, at what one 30-task
#: seed certifies (pooled over seeds 11-20 the margin is 22 points; seed 20 alone has 13, so a
#: per-seed margin of 15 would refuse it; 10 accepts seeds 7 and 11-20). Challenge's ceiling
#: is what one 10-task seed can certify: pooled over seeds 11-20 the rung is well below Lite
#: with disjoint intervals, but single seeds reach 5 of 10 (seed 15), so 0.5 refuses only a
#: Challenge above Lite's pooled interval (benchmarks/README.md, lights v3).
CALIBRATION: dict[str, Calibration] = {
    "lite": Calibration(induction_margin=0.10),
    "challenge": Calibration(inductive=None, planner_floor=0.8, inductive_ceiling=0.5),
}
