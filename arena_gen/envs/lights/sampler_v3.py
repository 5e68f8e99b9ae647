"""Lights v3 (preview) generation: conditions of at most 3 literals, Lite's budget cut to 50.

v2's Lite (up to 8 literals per condition, 200 turns) could not tell induction from memory:
the model-free sweep (depth-first over untried toggles) solved as many tasks as the inductive
learner (#25). v3 keeps the game and the sampler and changes two knobs: every condition is a
chain of at most 3 literals (a hypothesis class small enough that a learner can hold every
candidate condition and let each toggle outcome refute the wrong ones), and Lite's budget is 50
turns (the exact minimum is still at least 10), so search that remembers only what it walked
runs out of turns where a learner that generalises to unvisited states does not. Challenge
(N 16-24) draws the same 3-literal conditions with a 300-turn budget. The ladder is format 2:
the sweep as model-free rung, the version-space learner as heuristic; Lite's calibration asks
the best inductive rung to beat the best model-free one by 15 points, Challenge's caps the best
inductive rung (benchmarks/README.md, lights v3).
"""

from __future__ import annotations

import dataclasses

from arena_gen.core.calibration import Calibration
from arena_gen.envs.lights.sampler import PRESETS_V2, LightsPreset

#: v2's presets with 3-literal conditions and the v3 budgets.
PRESETS: dict[str, LightsPreset] = {
    "lite": dataclasses.replace(PRESETS_V2["lite"], max_literals=3, budget=50),
    "challenge": dataclasses.replace(PRESETS_V2["challenge"], max_literals=3, budget=300),
}

#: The #25 targets: Lite's bands plus the induction margin over the sweep; Challenge's ceiling
#: sits below the rung's pooled out-of-sample Lite rate (benchmarks/README.md, lights v3).
CALIBRATION: dict[str, Calibration] = {
    "lite": Calibration(induction_margin=0.15),
    "challenge": Calibration(inductive=None, planner_floor=0.8, inductive_ceiling=0.3),
}
