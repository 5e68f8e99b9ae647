"""Lights v4 generation: v3's worlds, each task proven to resist model-free play (issue 38).

v3's margin over model-free play was a property of a whole 30-task draw: optimism over the
remembered state graph (:class:`~.agents.optimist.LightsOptimistAgent`) reached 30 % of seed
7's Lite (the inductive rung 40 %), and a sealed Lite build from a fresh secret was refused by
its own calibration. v4 keeps v3's sampler and presets and makes resistance a per-task rule:
the ladder has three model-free rungs (the sweep, the optimist and the hill-climbing
:class:`~.agents.optimist.LightsClimberAgent`), a task any of them solves is rejected, and so
is a task the uniform random policy solves within its budget with probability above 1 % (exact,
:mod:`.random_bound`). Every accepted task is then unsolved by every model-free rung, whatever
the seed or sealed secret, so the draw-level bands are reported, not enforced
(docs/tasks.md); the figures out of sample are in benchmarks/README.md (lights v4).
"""

from __future__ import annotations

import dataclasses

from arena_gen.core.calibration import Calibration
from arena_gen.envs.lights.sampler import LightsPreset
from arena_gen.envs.lights.sampler_v3 import CALIBRATION as CALIBRATION_V3
from arena_gen.envs.lights.sampler_v3 import PRESETS as PRESETS_V3

#: v3's presets (the rejection of model-free-solved tasks needs more attempts at most).
PRESETS: dict[str, LightsPreset] = dict(PRESETS_V3)

#: The largest random-policy success probability a v4 task may have.
RANDOM_EPSILON = 0.01

#: v3's targets with per-task resistance switched on (the Lite margin is the #38 15 points:
#: with every task unsolved by every model-free rung it holds whenever the inductive rung
#: solves 15 % of a draw).
CALIBRATION: dict[str, Calibration] = {
    "lite": dataclasses.replace(CALIBRATION_V3["lite"], induction_margin=0.15,
                                random_epsilon=RANDOM_EPSILON, reject_model_free=True),
    "challenge": dataclasses.replace(CALIBRATION_V3["challenge"],
                                     random_epsilon=RANDOM_EPSILON, reject_model_free=True),
}
