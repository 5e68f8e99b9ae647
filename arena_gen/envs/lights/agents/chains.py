"""Prior-aware chain learner for lights v5 Challenge: it knows the generator, not the world.

The v5 Challenge law (:mod:`~arena_gen.envs.lights.sampler_v5`): hidden parts, each a hidden
order whose first bulb is always toggleable and whose bulb at position ``p`` toggles when bulb
``p - 1`` is on and two of the bulbs at ``p - 2 .. p - 4`` are off. The learner induces the
orders and the conditions from toggle outcomes alone, and plans exactly on what it knows:

- at all-off only first bulbs toggle, so it tries every bulb there (undoing each success);
- it grows one order at a time: with its last known bulb on and the three before it off (a
  state that satisfies any condition the law allows the next bulb), while every other order's last
  known bulb is off, the only unknown bulb that can toggle is the next one, so it tries the
  unknown bulbs (those already refused for this order skipped) until one toggles; when none
  does, the order is complete;
- where the law leaves a condition open (which two earlier bulbs must be off) it keeps every
  option the outcomes allow, plans on what all of them require, and drops an option an
  outcome refutes;
- it moves an order's bulbs by exact BFS over that order's known prefix (closed: a prefix reads
  only itself), and, once every bulb is placed, plays each order to all-on.

Its cost is the exploration (about half the unknown bulbs per step of an order) plus walking
each order along its ring-puzzle path about twice, so it lights worlds with short enough
minima within the budget and not the others. Up to 24 bulbs (Lite) it plays the v4 heuristic.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Generator
from itertools import combinations
from typing import Any

import numpy as np

from arena_gen.core.agent import TaskView
from arena_gen.envs.lights.agents.heuristic import read_state
from arena_gen.envs.lights.agents.version_space import LightsVersionSpaceAgent

#: A condition: (bulb, must be on) literals, all required.
Condition = tuple[tuple[int, bool], ...]
#: Above this many bulbs the chain learner plays; up to it, the v4 heuristic.
SMALL_N = 24
_LOOKBACK = 4


def options_at(chain: list[int], p: int) -> list[Condition]:
    """The conditions the law allows the bulb at position ``p`` of ``chain``."""
    if p == 0:
        return [()]
    back = [chain[q] for q in range(p - 2, max(p - 1 - _LOOKBACK, -1), -1)]
    negs = [back] if len(back) <= 2 else [list(c) for c in combinations(back, 2)]
    return [((chain[p - 1], True), *((b, False) for b in sorted(ns))) for ns in negs]


def holds(cond: Condition, state: int) -> bool:
    return all(bool(state >> b & 1) == on for b, on in cond)


def optimistic(options: list[Condition], state: int) -> bool:
    """Whether some remaining option lets the bulb toggle (the model plans are made on: a
    toggle it wrongly expects to work refutes an option, one it avoids would teach nothing)."""
    return any(holds(c, state) for c in options)


class LightsChainLearnerAgent:
    """Induces each hidden order of a v5 Challenge world, then plays it by exact BFS."""

    name, privileged = "heuristic", False

    def __init__(self) -> None:
        self.n = 0
        self.small: LightsVersionSpaceAgent | None = None
        self.policy: Generator[int, int, None] | None = None
        self.state = 0
        self.options: dict[int, list[Condition]] = {}
        self.rng: np.random.Generator | None = None

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        self.n = int(view.public["n"])
        self.rng = rng
        self.small = None
        if self.n <= SMALL_N:
            self.small = LightsVersionSpaceAgent()
            self.small.reset(view, mode, rng)
            return
        self.state = 0
        self.options = {}
        self.policy = self._policy()
        next(self.policy)

    def act(self, observation: str) -> str:
        if self.small is not None:
            return self.small.act(observation)
        assert self.policy is not None
        seen = read_state(observation, self.n)
        if seen is not None:
            self.state = seen
        try:
            return str(self.policy.send(self.state))
        except StopIteration:
            return "0"

    # -- the policy: a generator that yields toggles and receives the state after each ----

    def _toggle(self, bulb: int) -> Generator[int, int, bool]:
        """Toggle ``bulb``; whether it flipped (and refine its options by the outcome)."""
        before = self.state
        after = yield bulb
        flipped = (after ^ before) >> bulb & 1 == 1
        if bulb in self.options:
            kept = [c for c in self.options[bulb] if holds(c, before) == flipped]
            self.options[bulb] = kept or self.options[bulb]
        return bool(flipped)

    def _policy(self) -> Generator[int, int, None]:
        assert self.rng is not None
        yield -1  # primed by reset
        firsts = []
        for b in (int(x) for x in self.rng.permutation(self.n)):
            if (yield from self._toggle(b)):
                firsts.append(b)
                yield from self._toggle(b)  # back off: keep the unknown bulbs' tests clean
        chains = [[f] for f in firsts]
        self.chains = chains
        for f in firsts:
            self.options[f] = [()]
        unknown = [b for b in (int(x) for x in self.rng.permutation(self.n)) if b not in firsts]
        for chain in chains:
            while unknown:
                # the next bulb reads the last one (on) and two of the three before (off)
                target = {b: b == chain[-1] for b in chain[-1 - _LOOKBACK + 1:]}
                yield from self._move(chain, target)
                grown = False
                for u in list(unknown):
                    if (yield from self._toggle(u)):
                        chain.append(u)
                        unknown.remove(u)
                        self.options[u] = options_at(chain, len(chain) - 1)
                        grown = True
                        break
                if not grown:
                    break
        for chain in chains:
            yield from self._move(chain, {b: True for b in chain})
        while True:  # every order played: nothing left to learn or do
            yield int(self.rng.integers(self.n))

    def _move(self, chain: list[int], target: dict[int, bool]) -> Generator[int, int, None]:
        """Walk ``chain``'s bulbs to ``target`` by BFS on the first options, re-planning on a
        surprise (at most as many times as there are options to drop, plus one)."""
        for _ in range(4 * len(chain) + 4):
            plan = self._plan(chain, target)
            if plan is None:
                return
            surprised = False
            for b in plan:
                expect = optimistic(self.options[b], self.state)
                if (yield from self._toggle(b)) != expect:
                    surprised = True
                    break
            if not surprised:
                return

    def _plan(self, chain: list[int], target: dict[int, bool]) -> list[int] | None:
        """A shortest toggle list taking ``chain``'s bulbs from now to a state that matches
        ``target`` on the bulbs it names (None when the model says it cannot)."""
        index = {b: i for i, b in enumerate(chain)}
        conds = [[[(index[b], on) for b, on in c] for c in self.options[bulb]]
                 for bulb in chain]
        start = sum(1 << i for i, b in enumerate(chain) if self.state >> b & 1)
        care = sum(1 << index[b] for b in target)
        goal = sum(1 << index[b] for b, on in target.items() if on)
        parent: dict[int, tuple[int, int] | None] = {start: None}
        queue = deque([start])
        while queue:
            s = queue.popleft()
            if s & care == goal:
                out: list[int] = []
                while parent[s] is not None:
                    prev, i = parent[s]  # type: ignore[misc]
                    out.append(chain[i])
                    s = prev
                return out[::-1]
            for i, options in enumerate(conds):
                if any(all(bool(s >> j & 1) == on for j, on in c) for c in options):
                    t = s ^ (1 << i)
                    if t not in parent:
                        parent[t] = (s, i)
                        queue.append(t)
        return None

    def answer_probes(self, probes: Any) -> list[str]:
        """From what it has induced: ``yes`` where a known bulb's first option holds."""
        if self.small is not None:
            return list(self.small.answer_probes(probes))
        out = []
        for p in probes:
            b, s = int(p.subject["bulb"]), int(p.subject["state"])
            known = self.options.get(b)
            out.append("yes" if known and holds(known[0], s) else "no")
        return out
