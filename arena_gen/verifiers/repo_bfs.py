"""Breadth-first search over repo env states: the test oracle for the BMC on small worlds.

Edges are the env's own state-changing commands (``Rules.successors``: Python selection,
installs of every version, uninstalls); failed and no-op commands leave the state unchanged, so
they are never on a shortest path. The depth of the first state where ``python run.py``
succeeds, plus one for that command, is the exact minimum number of commands.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

from ..envs.repo import Rules, State


@dataclass
class RepoBfsResult:
    """Exact minimum (None if unreachable within the state cap), a witness and the states seen."""

    min_steps: int | None
    witness: list[str]
    states_visited: int
    complete: bool


def bfs(world: dict[str, Any], *, max_states: int = 2_000_000) -> RepoBfsResult:
    """Search from the empty state to a state where ``python run.py`` succeeds."""
    rules = Rules(world)
    start = rules.initial()
    parent: dict[State, tuple[State, str] | None] = {start: None}
    queue: deque[State] = deque([start])
    while queue:
        state = queue.popleft()
        if rules.ok(state):
            plan: list[str] = ["python run.py"]
            cur: State = state
            while parent[cur] is not None:
                prev, cmd = parent[cur]  # type: ignore[misc]
                plan.append(cmd)
                cur = prev
            plan.reverse()
            return RepoBfsResult(len(plan), plan, len(parent), True)
        for cmd, nxt in rules.successors(state):
            if nxt not in parent:
                parent[nxt] = (state, cmd)
                queue.append(nxt)
        if len(parent) > max_states:
            return RepoBfsResult(None, [], len(parent), False)
    return RepoBfsResult(None, [], len(parent), True)
