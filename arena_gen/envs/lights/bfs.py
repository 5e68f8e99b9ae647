"""Exact breadth-first search over the 2^N bulb states of a lights world, one numpy frontier.

Each level applies the env's own transition rule (``Rules.moves``, the vectorised form of
``Rules.step``) to the whole frontier at once, and a 2^N ``int8`` parent array is both the
visited set and the witness trail. Only effective toggles are edges, so the depth of the
all-on state is the exact minimum number of turns.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from arena_gen.envs.lights.game_v1 import Rules

UNSEEN = -1
START = -2
MAX_N = 30
FULL_EXPLORE_N = 16  # up to here every reachable state is counted (cheap), for certificates


@dataclass
class BfsResult:
    """Outcome of a lights BFS: exact minimum (None if unreachable), a witness, state counts."""

    min_steps: int | None
    witness: list[int]
    states_visited: int
    reachable_states: int | None


def bfs(world: dict[str, Any], *, explore_all: bool | None = None, start: int = 0) -> BfsResult:
    """Search from all-off (or the bitmask ``start``) to all-on; with ``explore_all`` also count
    every reachable state (default: only when N <= 16, where the full exploration is cheap)."""
    n = int(world["n"])
    if explore_all is None:
        explore_all = n <= FULL_EXPLORE_N
    if n > MAX_N:
        raise ValueError(f"BFS needs 2^N memory; N = {n} is above {MAX_N}")
    rules = Rules(world)
    goal = rules.goal
    parent = np.full(1 << n, UNSEEN, dtype=np.int8)
    parent[start] = START
    frontier = np.full(1, start, dtype=np.uint32)
    visited = 1
    depth = 0
    found: int | None = 0 if goal == start else None
    while frontier.size and (found is None or explore_all):
        parts = []
        for bulb, nxt in enumerate(rules.moves(frontier)):
            if not nxt.size:
                continue
            nxt = nxt[parent[nxt] == UNSEEN]
            parent[nxt] = bulb
            parts.append(nxt)
        depth += 1
        frontier = np.concatenate(parts) if parts else np.zeros(0, dtype=np.uint32)
        visited += int(frontier.size)
        if found is None and parent[goal] != UNSEEN:
            found = depth
    witness: list[int] = []
    if found is not None:
        state = goal
        while state != start:
            bulb = int(parent[state])
            witness.append(bulb)
            state ^= 1 << bulb
        witness.reverse()
    return BfsResult(min_steps=found, witness=witness, states_visited=visited,
                     reachable_states=visited if (explore_all or not frontier.size) else None)

