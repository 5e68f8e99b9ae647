"""Repo v5 sampler: v4's worlds for the v5 game, with presets calibrated against stronger rungs.

A v5 world is a v4 world (:func:`~.sampler_v4.sample_world`, the same streams, so the same
packages, rules and solution); only the game's messages differ (:mod:`.game_v5`). The
presets and the calibration are v5's own: the learner no longer reads the solution's version
from conflict messages, and the model-free rungs now include memory-only optimism over the
visited state graph and a hill climb on visible progress (:mod:`.agents.climb`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from arena_gen.core.calibration import Calibration
from arena_gen.core.task import Draft
from arena_gen.envs.repo import sampler_v3 as v3
from arena_gen.envs.repo import sampler_v4 as v4
from arena_gen.envs.repo.sampler_v3 import RepoV3Preset

accept = v3.accept

PRESETS: dict[str, RepoV3Preset] = dict(v4.PRESETS)

CALIBRATION: dict[str, Calibration] = dict(v4.CALIBRATION)


def sample(config: Mapping[str, Any], seq: np.random.SeedSequence) -> Draft:
    """Draw one candidate task: v4's draft (same world, rules text and rubric; the v5 game
    inherits v4's rubric), from a v5 preset."""
    return v4.sample(config, seq)
