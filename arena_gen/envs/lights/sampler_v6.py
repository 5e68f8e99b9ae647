"""Lights v6 generation: v5's sampler and acceptance; Lite v4's; Challenge re-tuned.

v6 answers issue 42's attack on v5's Challenge: the parallel chain learner
(:mod:`.agents.parallel`), which grows every hidden order at once, lit 18 of 30 v5 Challenge
worlds (seeds 41-43) where the ladder's chain learner lit 4, so v5's ladder understated the
best inductive rung. In v6 it is on the ladder beside the chain learner, and the Challenge
preset is re-tuned against it. Its cost grows with the length of the hidden orders (the
ring-puzzle walks) more than with their number, so v6 draws fewer, longer parts.
"""

from __future__ import annotations

from arena_gen.core.calibration import Calibration
from arena_gen.core.presets import Preset
from arena_gen.envs.lights.sampler_v5 import CALIBRATION as CALIBRATION_V5
from arena_gen.envs.lights.sampler_v5 import PRESETS as PRESETS_V5
from arena_gen.envs.lights.sampler_v5 import PartsPreset

#: Paper-scale Challenge: 4 parts of 9-10 bulbs (N 36-40), every part's minimum >= 30, the
#: world's >= 270, in 1,000 turns; tuned against the parallel learner on seeds 7-9 and 11-16
#: (the candidates and their figures: docs/envs/lights.md, "v6").
CHALLENGE = PartsPreset(count=10, parts=4, part_size=(9, 10), part_min_len=30,
                        min_len=270, budget=1000, max_attempts=2000)

PRESETS: dict[str, Preset] = {"lite": PRESETS_V5["lite"], "challenge": CHALLENGE}

#: v5's targets: Lite v4's; Challenge per-task resistance and the best inductive rung (now
#: the better of the chain and parallel learners) at most Lite's rate.
CALIBRATION: dict[str, Calibration] = dict(CALIBRATION_V5)
