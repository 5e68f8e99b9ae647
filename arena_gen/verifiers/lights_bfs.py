"""Exact breadth-first search over the 2^N bulb states of a lights world, one numpy frontier.

Each level applies the env's own transition rule (``Rules.moves``, the vectorised form of
``Rules.step``) to the whole frontier at once, and a 2^N ``int8`` parent array is both the
visited set and the witness trail. Only effective toggles are edges, so the depth of the
all-on state is the exact minimum number of turns.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..envs.lights import Rules

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


def beam_plan(world: dict[str, Any], start: int = 0, *, beam: int,
              max_depth: int) -> list[int] | None:
    """A plan from ``start`` to all-on found fast on large N: breadth-first, but each level keeps
    only the ``beam`` new states with the most bulbs on (ties: the smaller bitmask).

    Every step is an effective toggle of the env's own rule (``Rules.enabled_masks``). The plan
    is shortest whenever no level overflows the beam; None means the beam found no plan within
    ``max_depth`` levels (not that none exists: :func:`bfs` decides that).
    """
    rules = Rules(world)
    goal = rules.goal
    if start == goal:
        return []
    frontier = np.full(1, start, dtype=np.uint32)
    seen = frontier.copy()  # sorted: every state kept so far
    levels: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # (states, parent row, bulb)
    for _ in range(max_depth):
        succ, rows, bulbs = [], [], []
        for bulb, mask in enumerate(rules.enabled_masks(frontier)):
            row = np.flatnonzero(mask)
            if row.size:
                succ.append(frontier[row] ^ np.uint32(1 << bulb))
                rows.append(row)
                bulbs.append(np.full(row.size, bulb, dtype=np.int16))
        if not succ:
            return None
        states, first = np.unique(np.concatenate(succ), return_index=True)
        fresh = ~np.isin(states, seen, assume_unique=True)
        states, first = states[fresh], first[fresh]
        if not states.size:
            return None
        if states.size > beam:
            lit = np.bitwise_count(states).astype(np.int64)
            keep = np.sort(np.lexsort((states, -lit))[:beam])
            states, first = states[keep], first[keep]
        levels.append((states, np.concatenate(rows)[first], np.concatenate(bulbs)[first]))
        at = int(np.searchsorted(states, goal))
        if at < states.size and states[at] == goal:
            plan = []
            for _, row, bulb in reversed(levels):
                plan.append(int(bulb[at]))
                at = int(row[at])
            return plan[::-1]
        seen = np.union1d(seen, states)
        frontier = states
    return None


def best_first_plan(rules: Rules, start: int = 0, *, max_expansions: int) -> list[int]:
    """A plan from ``start`` toward all-on by A* (cost: turns; estimate: bulbs still off, which
    never overestimates, so a completed search is a shortest plan), for large N where BFS over
    2^N states is too slow to repeat.

    Ties prefer the deeper state, so a plan that only turns bulbs on is found in as many
    expansions as it has steps. After ``max_expansions`` the plan leads to the state nearest
    all-on seen so far (fewest bulbs off, then fewest turns): a partial plan, never a claim.
    Empty when ``start`` is all-on or no toggle is enabled.
    """
    goal = rules.goal
    n = rules.n
    off = n - _popcount(start)
    dist = {start: 0}
    parent: dict[int, tuple[int, int]] = {}
    heap = [(off, -0, start)]
    best = (off, 0, start)
    expansions = 0
    while heap and expansions < max_expansions:
        _, neg_g, state = heapq.heappop(heap)
        g = -neg_g
        if dist.get(state) != g:
            continue
        if state == goal:
            best = (0, g, state)
            break
        expansions += 1
        for bulb in range(n):
            if not rules.enabled(state, bulb):
                continue
            nxt = state ^ (1 << bulb)
            if g + 1 < dist.get(nxt, g + 2):
                dist[nxt] = g + 1
                parent[nxt] = (state, bulb)
                h = n - _popcount(nxt)
                heapq.heappush(heap, (g + 1 + h, -(g + 1), nxt))
                if (h, g + 1) < best[:2]:
                    best = (h, g + 1, nxt)
    plan = []
    state = best[2]
    while state != start:
        state, bulb = parent[state]
        plan.append(bulb)
    return plan[::-1]


def _popcount(x: int) -> int:
    return bin(x).count("1")
