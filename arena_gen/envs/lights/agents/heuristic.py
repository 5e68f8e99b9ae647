"""Heuristic lights agent: an inductive learner that plans optimistically over what it learned.

It sees only observations: the state line after every turn tells it whether its toggle took
effect. For each bulb it keeps every (state, toggled?) observation and every smallest set of
other bulbs (up to ``MAX_VARS``) whose values explain all of them (a version space); a toggle is
predicted to work or fail only where all those hypotheses agree, otherwise it is an optimistic
guess. It plans a cheapest path to all-on over predicted edges (known-good toggles cost 1,
guesses 2), follows it while the world behaves as predicted, and re-plans on a surprise; with no
path it explores a toggle untried in the current state. No world, no rules text.
"""

from __future__ import annotations

import re
from collections import deque
from itertools import combinations

import numpy as np

from arena_gen.core.agent import TaskView

MAX_VARS = 2
PLAN_MAX_N = 14  # exhaustive planning over 2^N states up to here; greedy beyond
_STATE = re.compile(r"State:\s*((?:on|off)(?:\s+(?:on|off))*)")


def read_state(observation: str, n: int) -> int | None:
    """The bulb bitmask of an observation's ``State:`` line (None when absent or not n bulbs)."""
    m = _STATE.search(observation)
    if not m:
        return None
    words = m.group(1).split()
    if len(words) != n:
        return None
    return sum(1 << i for i, w in enumerate(words) if w == "on")


class _BulbModel:
    """Observations of one bulb and the smallest variable set that explains them."""

    def __init__(self, bulb: int, n: int) -> None:
        self.bulb, self.n = bulb, n
        self.seen: dict[int, bool] = {}
        self.hypotheses: list[tuple[tuple[int, ...], dict[int, bool]]] = [((), {})]

    def observe(self, state: int, enabled: bool) -> None:
        self.seen[state] = enabled
        self._refit()

    def _project(self, state: int, vs: tuple[int, ...]) -> int:
        return sum(((state >> v) & 1) << j for j, v in enumerate(vs))

    def _conflicts(self, vs: tuple[int, ...]) -> int:
        table: dict[int, set[bool]] = {}
        for s, e in self.seen.items():
            table.setdefault(self._project(s, vs), set()).add(e)
        clashes = sum(len(v) > 1 for v in table.values())
        if len(table) == 1 << len(vs) and all(v == {False} for v in table.values()):
            clashes += 1  # never toggleable: impossible, every condition can hold
        return clashes

    def _refit(self) -> None:
        """All smallest explaining variable sets (exhaustive up to MAX_VARS), else one grown
        greedily; predictions need every kept hypothesis to agree (a version space)."""
        others = [v for v in range(self.n) if v != self.bulb]
        for size in range(0, MAX_VARS + 1):
            found = [vs for vs in combinations(others, size) if self._conflicts(vs) == 0]
            if found:
                self.hypotheses = [(vs, self._table(vs)) for vs in found]
                return
        vs = min(combinations(others, MAX_VARS), key=self._conflicts)
        while self._conflicts(vs) > 0:
            rest = [v for v in others if v not in vs]
            vs = tuple(sorted(vs + (min(rest, key=lambda v: self._conflicts(
                tuple(sorted(vs + (v,))))),)))
        self.hypotheses = [(vs, self._table(vs))]

    def _table(self, vs: tuple[int, ...]) -> dict[int, bool]:
        return {self._project(s, vs): e for s, e in self.seen.items()}

    def predict(self, state: int) -> bool | None:
        """True/False where every kept hypothesis agrees, None where the agent must guess."""
        if state in self.seen:
            return self.seen[state]
        votes = {table.get(self._project(state, vs)) for vs, table in self.hypotheses}
        return votes.pop() if len(votes) == 1 else None


class LightsHeuristicAgent:
    """Inductive, non-LLM baseline for Turn On Lights (see module docstring)."""

    name = "heuristic"
    privileged = False

    def __init__(self) -> None:
        self.n = 0
        self.state = 0
        self.models: list[_BulbModel] = []
        self._last: tuple[int, int] | None = None
        self._route: list[tuple[int, int]] = []
        self._rng: np.random.Generator | None = None

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        self.n = int(view.public["n"])
        self.state = 0
        self.models = [_BulbModel(b, self.n) for b in range(self.n)]
        self._last = None
        self._route = []
        self._rng = rng

    def _read_state(self, observation: str) -> int | None:
        return read_state(observation, self.n)

    def act(self, observation: str) -> str:
        seen = self._read_state(observation)
        if seen is not None:
            if self._last is not None:
                before, bulb = self._last
                self.models[bulb].observe(before, seen != before)
            self.state = seen
        bulb = self._choose()
        self._last = (self.state, bulb)
        return str(bulb)

    def _edge_cost(self, state: int, bulb: int) -> int | None:
        guess = self.models[bulb].predict(state)
        return None if guess is False else (1 if guess else 2)

    def _choose(self) -> int:
        """Follow the current plan while the world behaves as predicted; re-plan on surprise."""
        goal = (1 << self.n) - 1
        if self._route and self._route[0][0] == self.state:
            return self._route.pop(0)[1]
        self._route = []
        if self.n <= PLAN_MAX_N and self.state != goal:
            self._route = self._plan(goal)
            if self._route:
                return self._route.pop(0)[1]
        return self._greedy()

    def _plan(self, goal: int) -> list[tuple[int, int]]:
        """A cheapest path to all-on as (state, toggle) pairs (0-1-2 costs, bucketed BFS)."""
        dist: dict[int, int] = {self.state: 0}
        parent: dict[int, tuple[int, int]] = {}
        buckets: list[deque[int]] = [deque([self.state])]
        d = 0
        while d < len(buckets):
            while buckets[d]:
                s = buckets[d].popleft()
                if dist.get(s) != d:
                    continue
                if s == goal:
                    route = []
                    while s != self.state:
                        prev, b = parent[s]
                        route.append((prev, b))
                        s = prev
                    return route[::-1]
                for b in range(self.n):
                    cost = self._edge_cost(s, b)
                    if cost is None:
                        continue
                    t, nd = s ^ (1 << b), d + cost
                    if nd < dist.get(t, 1 << 30):
                        dist[t] = nd
                        parent[t] = (s, b)
                        while len(buckets) <= nd:
                            buckets.append(deque())
                        buckets[nd].append(t)
            d += 1
        return []

    def _greedy(self) -> int:
        """No plan: explore a toggle untried in this exact state (off bulbs first)."""
        assert self._rng is not None
        off = [b for b in range(self.n) if not self.state >> b & 1]
        on = [b for b in range(self.n) if self.state >> b & 1]
        for group in (off, on):
            for want in (None, True):
                cands = [b for b in group if self.state not in self.models[b].seen
                         and self.models[b].predict(self.state) is want]
                if cands:
                    return int(cands[int(self._rng.integers(len(cands)))])
        cands = [b for b in range(self.n) if self.models[b].predict(self.state) is not False]
        pool = cands or list(range(self.n))
        return int(pool[int(self._rng.integers(len(pool)))])
