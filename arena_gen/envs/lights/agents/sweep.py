"""Model-free lights agent: systematic search with memory of what was tried, no model of rules.

It remembers the transition graph it has walked (state, toggle -> next state) and nothing else:
no hypothesis about which bulbs a condition reads. In each state it tries a toggle it has not
tried there (off bulbs first, since the goal is all on, and never the undo of the last toggle);
when every toggle of the state has been tried it walks the known graph to the nearest state with
an untried toggle. This is the ladder's ``model_free`` rung: what memory alone buys, so the
inductive rungs' lead over it measures what modelling the hidden rules adds.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from arena_gen.core.agent import TaskView
from arena_gen.envs.lights.agents.heuristic import read_state


class LightsSweepAgent:
    """Depth-first exploration of the state graph by untried toggles, off bulbs first."""

    name, privileged = "sweep", False

    def __init__(self) -> None:
        self.n = 0
        self.state = 0
        self.edges: dict[int, dict[int, int]] = {}
        self._last: tuple[int, int] | None = None
        self._path: list[int] = []
        self._expected = -1
        self._rng: np.random.Generator | None = None

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        self.n = int(view.public["n"])
        self.state = 0
        self.edges = {}
        self._last = None
        self._path = []
        self._rng = rng

    def act(self, observation: str) -> str:
        seen = read_state(observation, self.n)
        if seen is not None:
            if self._last is not None:
                before, bulb = self._last
                self.edges.setdefault(before, {})[bulb] = seen
                if self._path and seen != self._expected:
                    self._path = []  # the walk went elsewhere than remembered: search again
            self.state = seen
        bulb = self._choose()
        self._last = (self.state, bulb)
        self._expected = self.edges.get(self.state, {}).get(bulb, -1)
        return str(bulb)

    def _untried(self, state: int) -> list[int]:
        tried = self.edges.get(state, {})
        undo = self._last[1] if self._last is not None and state == self.state else None
        fresh = [b for b in range(self.n) if b not in tried and b != undo]
        off = [b for b in fresh if not state >> b & 1]
        return off or fresh

    def _choose(self) -> int:
        if self._path:
            return self._path.pop(0)
        here = self._untried(self.state)
        if here:
            assert self._rng is not None
            return int(here[int(self._rng.integers(len(here)))])
        self._path = self._walk_to_untried()
        if self._path:
            return self._path.pop(0)
        assert self._rng is not None  # everything reachable is tried: any toggle
        return int(self._rng.integers(self.n))

    def _walk_to_untried(self) -> list[int]:
        """The shortest known walk to a state that still has an untried toggle."""
        parent: dict[int, tuple[int, int] | None] = {self.state: None}
        queue = deque([self.state])
        while queue:
            s = queue.popleft()
            if s != self.state and self._untried(s):
                path: list[int] = []
                while parent[s] is not None:
                    prev, bulb = parent[s]  # type: ignore[misc]
                    path.append(bulb)
                    s = prev
                return path[::-1]
            for bulb, nxt in sorted(self.edges.get(s, {}).items()):
                if nxt not in parent:
                    parent[nxt] = (s, bulb)
                    queue.append(nxt)
        return []
