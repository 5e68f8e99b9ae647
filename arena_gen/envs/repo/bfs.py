"""Breadth-first search over repo configurations: the test oracle for the BMC on small worlds.

Edges are the game's own command rule (``RepoGame.command``) applied to every command that can
change a configuration (``RepoGame.moves``: Python selections, exact installs, uninstalls);
failed and no-op commands leave the configuration unchanged, so they are never on a shortest
path. The depth of the first configuration where ``python run.py`` succeeds, plus one for that
command, is the exact minimum number of commands.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

from arena_gen.core.game import WorldView
from arena_gen.envs.repo.game_v1 import RepoGame, State


@dataclass
class RepoBfsResult:
    """Exact minimum (None if unreachable within the state cap), a witness and the states seen."""

    min_steps: int | None
    witness: list[str]
    states_visited: int
    complete: bool


def bfs(world: dict[str, Any], *, max_states: int = 2_000_000) -> RepoBfsResult:
    """Search from the empty configuration to one where ``python run.py`` succeeds."""
    game = RepoGame(WorldView(world))
    rules, moves = game.rules, game.moves()
    start = game.initial().config
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
        for text, cmd in moves:
            nxt, _ = game.command(state, cmd)
            if nxt not in parent:
                parent[nxt] = (state, text)
                queue.append(nxt)
        if len(parent) > max_states:
            return RepoBfsResult(None, [], len(parent), False)
    return RepoBfsResult(None, [], len(parent), True)
