"""The certified shaping potential of a lights world: minus the exact turns from a state to all-on.

One backward breadth-first search from the all-on state over all 2^N bulb states gives every
state's exact distance at once: a state ``p`` is a predecessor of ``s`` through bulb ``b`` when
``p = s ^ (1 << b)`` and ``b``'s condition holds in ``p`` (the env's own rule, vectorised as
``Rules.enabled_masks``, which the forward BFS of the verifier uses too). The table is built
once per world (cached by the world's rules, so re-made envs of one world share it); each step
then costs one list lookup. A state from which all-on is unreachable (none exists in a sampled
world, whose toggles are all reversible) gets one more than the largest finite distance.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from arena_gen.core.canon import canonical_json
from arena_gen.core.game import Game
from arena_gen.envs.lights.game_v1 import Rules

#: Above this the 2^N table (and the per-bulb masks building it) costs too much memory.
MAX_N = 20
#: Distinct worlds whose tables a process keeps.
CACHE_WORLDS = 256


def distances(world: Mapping[str, Any]) -> np.ndarray:
    """The exact number of turns from every state (a bitmask index) to all-on; -1 where all-on
    cannot be reached."""
    n = int(world["n"])
    if n > MAX_N:
        raise ValueError(f"the distance table needs 2^N entries; N = {n} is above {MAX_N}")
    rules = Rules(dict(world))
    enabled = rules.enabled_masks(np.arange(1 << n, dtype=np.uint32))
    dist = np.full(1 << n, -1, dtype=np.int32)
    dist[rules.goal] = 0
    frontier = np.full(1, rules.goal, dtype=np.uint32)
    depth = 0
    while frontier.size:
        depth += 1
        parts = []
        for bulb, can in enumerate(enabled):
            before = frontier ^ np.uint32(1 << bulb)
            before = before[can[before] & (dist[before] < 0)]
            dist[before] = depth
            parts.append(before)
        frontier = np.concatenate(parts)
    return dist


@functools.lru_cache(maxsize=CACHE_WORLDS)
def _table(rules_key: str) -> tuple[float, ...]:
    dist = distances(json.loads(rules_key))
    dead = int(dist.max()) + 1
    return tuple(float(-d) if d >= 0 else float(-dead) for d in dist.tolist())


def potential_table(world: Mapping[str, Any]) -> tuple[float, ...]:
    """Phi per state: minus the exact distance to all-on (cached per world's rules)."""
    return _table(canonical_json({"n": int(world["n"]), "conditions": world["conditions"]}))


def potential(game: Game[Any, Any, Any]) -> Callable[[int], float]:
    """The env's ``potential`` part: Phi of a lights game's state (a bulb bitmask)."""
    return potential_table(game.task.world).__getitem__
