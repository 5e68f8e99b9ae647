"""Prove a dial task solvable by breadth-first search over the game's own transitions."""

from __future__ import annotations

from collections import deque
from typing import Any

from arena_gen.core.task import Certificate
from arena_gen_dial.game_v1 import DialGame

VERIFIER_VERSION = 1


def verify(draft: Any) -> Certificate:
    """The exact minimum and a shortest witness (BFS through ``DialGame.step``)."""
    game = DialGame(draft)
    start = game.initial()
    parent: dict[int, tuple[int, str] | None] = {start: None}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        if game.done(state):
            plan: list[str] = []
            while parent[state] is not None:
                state, action = parent[state]  # type: ignore[misc]
                plan.append(action)
            plan.reverse()
            return Certificate(True, "bfs", len(plan), plan, VERIFIER_VERSION, None,
                               {"states": len(parent)})
        for action in ("left", "right"):
            after, _ = game.step(state, game.parse(action))
            if after not in parent:
                parent[after] = (state, action)
                queue.append(after)
    return Certificate(False, "bfs", None, [], VERIFIER_VERSION, None, {"states": len(parent)})
