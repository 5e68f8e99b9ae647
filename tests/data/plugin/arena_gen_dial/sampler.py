"""Dial worlds: a size and a hidden non-zero target, drawn only from the seed given."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from arena_gen.core.task import Draft
from arena_gen_dial.game_v1 import DialGame

PRESETS = {"lite": {"count": 4, "size": 8}, "challenge": {"count": 2, "size": 40}}


def sample(config: Mapping[str, Any], seed: np.random.SeedSequence) -> Draft:
    """One world of the preset ``config``."""
    size = int(config["size"])
    target = int(np.random.default_rng(seed).integers(1, size))
    world = {"size": size, "target": target}
    return Draft(params={"size": size}, budget=2 * size,
                 public={"intro": f"Turn a dial of {size} positions to a hidden number.",
                         "action_format": "left or right"},
                 world=world, rules_text="left and right move the dial one position, wrapping.",
                 rubric=DialGame.rubric({"size": size}, world))
