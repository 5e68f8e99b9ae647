"""Energy v4 generation: v3's worlds and presets, each task proven to resist model-free play.

v4 switches on the per-task resistance rules of issue 38 and changes nothing else: a task the
model-free rung (persistence) solves is rejected, and so is a task whose random-policy success
bound exceeds 5 %. Energy's actions are continuous, so no exact bound is registered: the
certificate records the generic Clopper-Pearson upper bound over 100 seeded random episodes
(99 % one-sided; with no success it is 4.5 %). Neither rule rejected a task of seed 7 (Lite and
Challenge), nor the model-free rule one of seeds 31-40 (Lite), in the measurements of
benchmarks/README.md ("Per-task resistance"), so the bands are v3's.
"""

from __future__ import annotations

import dataclasses

from arena_gen.core.calibration import Calibration
from arena_gen.envs.energy.sampler_v3 import CALIBRATION as CALIBRATION_V3
from arena_gen.envs.energy.sampler_v3 import PRESETS as PRESETS_V3

PRESETS = dict(PRESETS_V3)

#: The largest random-policy success bound a v4 task may have (above the fallback's 4.5 %
#: at 0 of 100 episodes, so a task random never solved passes).
RANDOM_EPSILON = 0.05

CALIBRATION: dict[str, Calibration] = {
    suite: dataclasses.replace(cal, random_epsilon=RANDOM_EPSILON, reject_model_free=True)
    for suite, cal in CALIBRATION_V3.items()
}
