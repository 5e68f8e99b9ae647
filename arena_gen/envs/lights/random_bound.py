"""The exact chance that the uniform random policy lights every bulb within a task's budget.

The random agent toggles a uniformly drawn bulb each turn (:meth:`LightsGame.random_action`),
so its state is a Markov chain over the 2^N bulb states with the game's own transition rule;
a dynamic program over states x turns, with all-on absorbing, gives the probability exactly
(up to float rounding) in N x 2^N x budget operations: at most 12 x 4096 x 70 on Challenge.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arena_gen.core.compiled import compiled
from arena_gen.envs.lights.game_v1 import Rules


def successors(rules: Rules) -> np.ndarray:
    """Per bulb (rows) and state (columns): the state toggling that bulb leads to."""
    states = np.arange(1 << rules.n, dtype=np.int64)
    masks = rules.enabled_masks(states.astype(np.uint32))
    return np.stack([states ^ (mask.astype(np.int64) << bulb)
                     for bulb, mask in enumerate(masks)])


def solve_probability(rules: Rules, budget: int) -> float:
    """P(all bulbs on within ``budget`` uniform random toggles, starting all off)."""
    nxt = successors(rules).ravel()
    size = 1 << rules.n
    p = np.zeros(size)
    p[0] = 1.0
    solved = 0.0
    for _ in range(budget):
        p = np.bincount(nxt, weights=np.tile(p, rules.n), minlength=size) / rules.n
        solved += float(p[rules.goal])
        p[rules.goal] = 0.0
    return solved


def random_bound(task: Any) -> float:
    """The registered ``random_bound`` part: the exact probability for ``task``."""
    return solve_probability(compiled(Rules, task.world), int(task.budget))
