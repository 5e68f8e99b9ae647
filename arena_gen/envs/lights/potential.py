"""The certified shaping potential of a lights world: minus the exact turns from a state to all-on.

One backward breadth-first search from the all-on state over all 2^N bulb states gives every
state's exact distance at once: a state ``p`` is a predecessor of ``s`` through bulb ``b`` when
``p = s ^ (1 << b)`` and ``b``'s condition holds in ``p`` (the env's own rule, vectorised as
``Rules.enabled_masks``, which the forward BFS of the verifier uses too). The table is built
once per world (cached by the world's rules, so re-made envs of one world share it); each step
then costs one list lookup. A state from which all-on is unreachable (none exists in a sampled
world, whose toggles are all reversible) gets one more than the largest finite distance.

Above :data:`MAX_N` bulbs (the paper-scale Challenge's 36-40) the world is split into its closed
parts (:func:`~.parts.parts`: the components of the graph joining each bulb to the bulbs its
condition reads, the split the verifier and the decomposed proofs use), one table per part. The
exact distance of a state is the sum of its parts' exact distances: a toggle moves one part
only and whether it works reads that part only, so a completion's toggles of part P, taken in
order, complete P from its own state (at least its distance on P, for every P), and the parts'
shortest plans played one after another take exactly the sum (:mod:`.parts` says it for the
minimum from all-off; nothing there depends on the start). A state with an unreachable part
gets one more than the largest finite sum (the sum of the parts' largest), as the whole table
would give it.
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
from arena_gen.envs.lights.parts import parts, sub_world

#: Above this the 2^N table (and the per-bulb masks building it) costs too much memory; a
#: larger world is split into closed parts, none of which may have more bulbs.
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


class PartDistances:
    """Exact distances of a world's states as the sum of its closed parts' (module docstring):
    per part its bulbs and its distance table; per byte of a state, the local index bits each
    part reads from it (so a state's part indices cost a few lookups, not a loop per bulb)."""

    def __init__(self, world: Mapping[str, Any]) -> None:
        n = int(world["n"])
        conditions = list(world["conditions"])
        self.parts = parts(conditions)
        largest = max(len(p) for p in self.parts)
        if largest > MAX_N:
            raise ValueError(f"the distance tables need 2^size entries per closed part; this "
                             f"world of N = {n} bulbs has a part of {largest} bulbs, above "
                             f"{MAX_N}")
        self.tables = [tuple(distances(sub_world(conditions, p)).tolist()) for p in self.parts]
        self.dead = sum(max(t) for t in self.tables) + 1
        self.bytes = [[tuple(sum(1 << i for i, b in enumerate(p) if 8 * k <= b < 8 * k + 8
                                 and value >> (b - 8 * k) & 1) for value in range(256))
                       for k in range((n + 7) // 8)] for p in self.parts]

    def __call__(self, state: int) -> int:
        """The exact number of turns from ``state`` to all-on (:attr:`dead` if none)."""
        total = 0
        for table, by_byte in zip(self.tables, self.bytes, strict=True):
            index = 0
            for k, byte in enumerate(by_byte):
                index |= byte[state >> 8 * k & 255]
            d = table[index]
            if d < 0:
                return self.dead
            total += d
        return total


@functools.lru_cache(maxsize=CACHE_WORLDS)
def _parted(rules_key: str) -> PartDistances:
    return PartDistances(json.loads(rules_key))


def part_distances(world: Mapping[str, Any]) -> PartDistances:
    """The part-wise exact distances of ``world`` (cached per world's rules)."""
    return _parted(canonical_json({"n": int(world["n"]), "conditions": world["conditions"]}))


def potential(game: Game[Any, Any, Any]) -> Callable[[int], float]:
    """The env's ``potential`` part: Phi of a lights game's state (a bulb bitmask): today's
    whole table up to :data:`MAX_N` bulbs, the parts' sum above."""
    world = game.task.world
    if int(world["n"]) <= MAX_N:
        return potential_table(world).__getitem__
    distance = part_distances(world)

    def phi(state: int) -> float:
        return -float(distance(state))

    return phi
