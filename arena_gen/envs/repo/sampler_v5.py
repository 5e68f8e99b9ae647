"""Repo v5 sampler: v4's worlds for the v5 game, with presets calibrated against stronger rungs.

A v5 world is a v4 world (:func:`~.sampler_v4.sample_world`, the same streams, so the same
packages, rules and solution); only the game's messages differ (:mod:`.game_v5`; a world's
conflict texts keep v4's words, which the v5 game never prints). The presets and targets are
v5's own tables, measured against v5's ladder (the learner no longer reads the solution's
version from conflict messages; the model-free rungs now include memory-only optimism over the
visited state graph and a hill climb on visible progress, :mod:`.agents.climb`); their values
are v4's, which met every target without a change (below).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy as np

from arena_gen.core.calibration import Calibration
from arena_gen.core.task import Draft
from arena_gen.envs.repo import sampler_v3 as v3
from arena_gen.envs.repo import sampler_v4 as v4
from arena_gen.envs.repo.sampler_v3 import RepoV3Preset

accept = v3.accept

#: v4's presets: tuned on seeds 7, 11 and 12 (Lite) and 7 and 11 (Challenge) against the v5
#: rungs, the v5 learner stays >= 15 points above the best model-free rung pooled (36.7 % vs the
#: climb's 16.7 % on Lite) and Challenge below Lite, and out of sample (seeds 31-40 pooled,
#: ``benchmarks/README.md``, "Repo v5") Lite's learner is 48.0 % against the climb's 21.0 %,
#: Challenge's 27.0 % (interval below Lite's), the planner 100 %: no knob had to move.
PRESETS: dict[str, RepoV3Preset] = dict(v4.PRESETS)

#: The largest random-policy success bound a v5 task may have (above the fallback's 4.5 %
#: at 0 of 100 episodes, so a task random never solved passes).
RANDOM_EPSILON = 0.05

#: v4's per-suite targets with per-task resistance switched on (issue 38), now against the
#: stronger rungs (a 30-task Lite's gap swings by about 10 points between seeds, so one suite
#: certifies a 5-point margin; pooled it is >= 15).
CALIBRATION: dict[str, Calibration] = {
    suite: dataclasses.replace(cal, random_epsilon=RANDOM_EPSILON, reject_model_free=True)
    for suite, cal in v4.CALIBRATION.items()
}


def sample(config: Mapping[str, Any], seq: np.random.SeedSequence) -> Draft:
    """Draw one candidate task: v4's draft (same world, rules text and rubric; the v5 game
    inherits v4's rubric), from a v5 preset."""
    return v4.sample(config, seq)
