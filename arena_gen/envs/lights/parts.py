"""Independent parts of a lights world: exact minima and random bounds part by part.

A *part* is a set of bulbs closed under the conditions: every bulb of the part has a condition
that reads only bulbs of the part. The parts of a world are the connected components of the
graph joining each bulb to the bulbs its condition reads (:func:`parts`), so they are derived
from the conditions alone, never taken from the generator.

Why the exact minimum of a world is the sum of its parts' minima. A turn toggles one bulb, so
it can change the bulbs of at most one part; and whether a toggle of a bulb of part P works
depends on P's bulbs only. So the toggles of P's bulbs in any completion, taken alone and in
order, are a completion of P played as a world of its own (every one of them sees the same P
bulbs as before): the completion has at least ``k_P`` turns on P's bulbs for every P, and at
least the sum in all. The parts' own shortest plans played one after another reach all-on in
exactly the sum. ``tests/test_lights_v5.py`` checks this against a BFS over whole small worlds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from arena_gen.core.compiled import compiled
from arena_gen.envs.lights.bfs import bfs
from arena_gen.envs.lights.formula import Formula, variables
from arena_gen.envs.lights.game_v1 import Rules
from arena_gen.envs.lights.random_bound import solve_probability

#: The largest part a part-wise search takes (BFS over 2^size states).
MAX_PART = 20
#: Up to here the random bound is v4's exact one over the whole world's 2^N states.
EXACT_MAX_N = 20


def parts(conditions: list[Formula]) -> list[list[int]]:
    """The connected components of the read graph, each sorted, ordered by smallest bulb."""
    n = len(conditions)
    root = list(range(n))

    def find(i: int) -> int:
        while root[i] != i:
            root[i] = root[root[i]]
            i = root[i]
        return i

    for bulb, cond in enumerate(conditions):
        for v in variables(cond):
            a, b = find(bulb), find(int(v))
            if a != b:
                root[max(a, b)] = min(a, b)
    groups: dict[int, list[int]] = {}
    for bulb in range(n):
        groups.setdefault(find(bulb), []).append(bulb)
    return sorted(groups.values())


def _relabel(node: Formula, local: dict[int, int]) -> Formula:
    """A condition with its bulbs renamed by ``local``."""
    (key, value), = node.items()
    if key == "var":
        return {"var": local[int(value)]}
    if key == "const":
        return {"const": value}
    if key == "not":
        return {"not": _relabel(value, local)}
    return {key: [_relabel(value[0], local), _relabel(value[1], local)]}


def sub_world(conditions: list[Formula], part: list[int]) -> dict[str, Any]:
    """Part ``part`` as a world of its own (its i-th bulb is bulb ``part[i]``)."""
    local = {bulb: i for i, bulb in enumerate(part)}
    return {"n": len(part), "conditions": [_relabel(conditions[b], local) for b in part]}


def project(state: int, part: list[int]) -> int:
    """The part's own bitmask of a whole-world state."""
    return sum(1 << i for i, bulb in enumerate(part) if state >> bulb & 1)


@dataclass(frozen=True)
class PartsResult:
    """Part-wise exact search: the parts, each one's minimum (None: unreachable), a witness
    of the whole world (the parts' plans one after another) and the states visited."""

    parts: list[list[int]]
    minima: list[int | None]
    witness: list[int]
    states_visited: int

    @property
    def min_steps(self) -> int | None:
        """The world's exact minimum: the sum of the parts' (see the module docstring)."""
        if any(k is None for k in self.minima):
            return None
        return sum(k for k in self.minima if k is not None)


def solve_parts(world: dict[str, Any], start: int = 0) -> PartsResult:
    """Exact BFS per part from ``start`` (a whole-world bitmask) to all-on."""
    conditions = list(world["conditions"])
    found = parts(conditions)
    if max(len(p) for p in found) > MAX_PART:
        raise ValueError(f"a part of {max(len(p) for p in found)} bulbs is above {MAX_PART}")
    minima: list[int | None] = []
    witness: list[int] = []
    visited = 0
    for part in found:
        result = bfs(sub_world(conditions, part), start=project(start, part),
                     explore_all=False)
        minima.append(result.min_steps)
        witness += [part[b] for b in result.witness]
        visited += result.states_visited
    return PartsResult(found, minima, witness, visited)


def lazy_part_probability(world: dict[str, Any], part: list[int], budget: int) -> float:
    """P(part ``part`` is ever all-on within ``budget`` uniform random toggles of the whole
    world): each turn picks one of the world's N bulbs, and only picks inside the part move it
    (a lazy chain over the part's 2^size states, all-on absorbing)."""
    rules = Rules(sub_world(list(world["conditions"]), part))
    n, size = int(world["n"]), 1 << rules.n
    states = np.arange(size, dtype=np.int64)
    masks = rules.enabled_masks(states.astype(np.uint32))
    nxt = np.concatenate([states ^ (m.astype(np.int64) << b) for b, m in enumerate(masks)])
    stay = (n - rules.n) / n
    p = np.zeros(size)
    p[0] = 1.0
    solved = 0.0
    if rules.goal == 0:
        return 1.0
    for _ in range(budget):
        p = stay * p + np.bincount(nxt, weights=np.tile(p, rules.n), minlength=size) / n
        solved += float(p[rules.goal])
        p[rules.goal] = 0.0
    return solved


def random_bound(task: Any) -> float | dict[str, Any]:
    """The registered v5 ``random_bound``: v4's exact probability up to :data:`EXACT_MAX_N`
    bulbs; above, an upper bound: the random policy solves the world only if it lights each
    part, so the smallest part's chance (:func:`lazy_part_probability`) bounds it."""
    world = task.world
    if int(world["n"]) <= EXACT_MAX_N:
        return solve_probability(compiled(Rules, world), int(task.budget))
    found = parts(list(world["conditions"]))
    chances = [lazy_part_probability(world, p, int(task.budget)) for p in found]
    return {"bound": min(chances), "method": "per-part"}
