"""Lights v3 (preview): v2's generation, ladder format 2 and the #25 targets.

The presets are v2's (the game and its generation are unchanged); what v3 adds is the model-free
rung (:class:`~arena_gen.envs.lights.agents.sweep.LightsSweepAgent`) beside the inductive
learner and two suite targets: on Lite the best inductive rung must beat the best model-free one
by ``induction_margin``; on Challenge the best inductive rung must stay under
``inductive_ceiling``. On v2's generation the Lite margin is missed (the sweep matches the
learner, docs/envs/lights.md), so a v3 Lite build records that miss and ``arena-gen build``
refuses it: v3 stays a preview until a generation or a learner meets the margin.
"""

from __future__ import annotations

from arena_gen.core.calibration import Calibration
from arena_gen.envs.lights.sampler import PRESETS_V2, LightsPreset

#: v2's presets unchanged (same generation, same bytes for the same seed path).
PRESETS: dict[str, LightsPreset] = dict(PRESETS_V2)

#: The #25 targets: Lite bands plus the induction margin over the sweep; Challenge's ceiling
#: sits below the learner's pooled out-of-sample Lite rate (benchmarks/README.md, lights).
CALIBRATION: dict[str, Calibration] = {
    "lite": Calibration(induction_margin=0.15),
    "challenge": Calibration(inductive=None, planner_floor=0.8, inductive_ceiling=0.3),
}
