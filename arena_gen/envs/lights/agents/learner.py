"""Model-learning lights agent (the v2 inductive heuristic): fit each bulb's condition, plan on it.

It sees only observations: the state line after every turn says whether its toggle took effect,
so each turn is one labelled example ``(state, toggled?)`` of one bulb's condition. Every hidden
condition is a left-nested chain of literals joined by ``and``/``or``, which is exactly a
decision list read from its last literal (``X and l``: if ``l`` is false, false, else ``X``;
``X or l``: if ``l`` is true, true, else ``X``). So per bulb the agent fits a decision list to
its examples with Rivest's greedy rule (repeatedly the literal whose covered examples all share
one label, covering the most), with an optimistic default (toggleable) where no example
decides, and a satisfiable one (every condition holds somewhere) where all examples failed.
The fitted lists, written back as the game's condition AST, are a complete world: the agent
plans on it with the project's BFS machinery (:func:`~arena_gen.envs.lights.bfs.bfs`
exactly for small N, the same vectorised search with a beam above), follows the plan while
the world behaves as the model predicts, and re-fits and re-plans on a surprise. Where the model
offers no plan it explores a toggle untried in the current state. No world, no rules text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from arena_gen.core.agent import TaskView
from arena_gen.core.probes import Probe
from arena_gen.envs.lights.agents.heuristic import read_state
from arena_gen.envs.lights.bfs import bfs
from arena_gen.envs.lights.formula import Formula

#: Up to this N the plan is an exact BFS over the model's 2^N states; above it a beam search.
EXACT_MAX_N = 12

#: A literal: (bulb, value) holds when the bulb is on (value 1) or off (value 0).
Literal = tuple[int, int]


def _popcount(x: int) -> int:
    return bin(x).count("1")


class DecisionList:
    """One bulb's examples and the decision list fitted to them."""

    def __init__(self, bulb: int, n: int, rng: np.random.Generator | None = None,
                 controllable: set[int] | None = None) -> None:
        self.bulb, self.n, self.rng = bulb, n, rng
        #: bulbs seen to toggle (shared by all the lists of one agent): only these may be
        #: guessed to be needed on, so guesses never form a cycle of bulbs that need each other
        self.controllable = controllable if controllable is not None else set()
        self.index: dict[int, int] = {}  # state -> example number
        self.labels: list[bool] = []
        self.on = [0] * n  # per bulb v: bitset of the examples where v is on
        self.positive = 0  # bitset of the examples where the bulb toggled
        self.rules: list[tuple[Literal, bool]] = []
        self.default = True

    def observe(self, state: int, enabled: bool) -> bool:
        """Add an example; True when it contradicts the current fit (a refit happened)."""
        if state in self.index:
            return False
        i = len(self.labels)
        self.index[state] = i
        self.labels.append(enabled)
        for v in range(self.n):
            if state >> v & 1:
                self.on[v] |= 1 << i
        if enabled:
            self.positive |= 1 << i
        surprise = self.predict(state) != enabled
        if surprise:
            self.fit()
        return surprise

    def predict(self, state: int) -> bool:
        for (v, value), out in self.rules:
            if (state >> v & 1) == value:
                return out
        return self.default

    def _cover(self, lit: Literal, remaining: int) -> int:
        v, value = lit
        return remaining & (self.on[v] if value else ~self.on[v])

    def fit(self) -> None:
        """Rivest's greedy decision-list learner, largest uniform cover first."""
        everything = (1 << len(self.labels)) - 1
        remaining = everything
        rules: list[tuple[Literal, bool]] = []
        literals = [(v, value) for v in range(self.n) if v != self.bulb for value in (1, 0)]
        while remaining & self.positive and remaining & ~self.positive:
            best: tuple[int, Literal, bool] | None = None
            for lit in literals:
                cover = self._cover(lit, remaining)
                if not cover:
                    continue
                if not cover & ~self.positive:
                    label = True
                elif not cover & self.positive:
                    label = False
                else:
                    continue
                size = _popcount(cover)
                if best is None or size > best[0]:
                    best = (size, lit, label)
            if best is None:  # no decision list fits (never for the generator's conditions)
                break
            _, lit, label = best
            rules.append((lit, label))
            remaining &= ~self._cover(lit, remaining)
        if not remaining:
            default = True  # nothing decides the rest: optimistic
        else:
            default = bool(remaining & self.positive)
        if not self.positive:
            rules, default = self._conjunction(literals, everything), True
        self.rules, self.default = rules, default

    def _conjunction(self, literals: list[Literal], negatives: int) -> list[tuple[Literal, bool]]:
        """No example toggled: a shortest-by-greedy conjunction of literals that every example
        violates (a condition that holds somewhere), as "if not l then False" rules."""
        rules: list[tuple[Literal, bool]] = []
        used: set[int] = set()
        strict = True  # first only bulbs seen to toggle may be needed on, then any
        while negatives:
            best: tuple[int, Literal] | None = None
            for v, value in literals:
                if v in used or (strict and value and v not in self.controllable):
                    continue
                excluded = _popcount(self._cover((v, 1 - value), negatives))
                if excluded and (best is None or excluded > best[0]):
                    best = (excluded, (v, value))
            if best is None:
                if not strict:
                    break
                strict = False
                continue
            v, value = best[1]
            used.add(v)
            rules.append(((v, 1 - value), False))
            negatives &= ~self._cover((v, 1 - value), negatives)
        return rules

    def reads(self) -> set[int]:
        """The bulbs the fitted list reads."""
        return {v for (v, _), _ in self.rules}

    def nearest_true(self, state: int) -> dict[int, int] | None:
        """Values of the list's bulbs that make it true with the fewest changes to ``state``
        (rule i fires: its literal holds and no earlier false-rule's does), or None."""
        best: tuple[int, dict[int, int]] | None = None
        blocked: dict[int, int] = {}  # literals of earlier false-rules must not hold
        options = [(lit, out) for lit, out in self.rules] + [(None, self.default)]
        for lit, out in options:
            if out:
                need = dict(blocked)
                if lit is not None:
                    v, value = lit
                    if need.get(v, value) != value:
                        continue
                    need[v] = value
                cost = sum((state >> v & 1) != val for v, val in need.items())
                if best is None or cost < best[0]:
                    best = (cost, need)
            elif lit is not None:
                v, value = lit
                if blocked.get(v, 1 - value) != 1 - value:
                    break  # every later option needs this bulb both ways
                blocked[v] = 1 - value
        return None if best is None else best[1]

    def formula(self) -> Formula:
        """The fitted list as the game's condition AST (a left-nested and/or chain)."""
        node: Formula = {"const": self.default}
        for (v, value), out in reversed(self.rules):
            lit: Formula = {"var": v} if value else {"not": {"var": v}}
            if out:  # if lit then True else node  ==  node or lit
                node = lit if node == {"const": False} else (
                    node if node == {"const": True} else {"or": [node, lit]})
            else:  # if lit then False else node  ==  node and not lit
                neg: Formula = {"not": {"var": v}} if value else {"var": v}
                node = neg if node == {"const": True} else (
                    node if node == {"const": False} else {"and": [node, neg]})
        return node


class LightsLearnerAgent:
    """Inductive, non-LLM baseline for Turn On Lights v2 (see module docstring)."""

    name = "heuristic"
    privileged = False

    def __init__(self) -> None:
        self.n = 0
        self.budget = 0
        self.state = 0
        self.models: list[DecisionList] = []
        self.tried: dict[int, set[int]] = {}
        self.controllable: set[int] = set()
        self._last: tuple[int, int] | None = None
        self._plan: list[int] = []
        self._stalled: set[int] = set()  # states where the model offers no plan
        self.goal = 0
        self._rng: np.random.Generator | None = None
        self.replans = 0

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        self.n = int(view.public["n"])
        self.budget = int(view.budget)
        self.state = 0
        self.controllable = set()
        self.models = [DecisionList(b, self.n, rng, self.controllable) for b in range(self.n)]
        self.tried = {}
        self._last = None
        self._plan = []
        self._stalled = set()
        self.goal = (1 << self.n) - 1
        self._rng = rng
        self.replans = 0

    def _read_state(self, observation: str) -> int | None:
        return read_state(observation, self.n)

    def act(self, observation: str) -> str:
        seen = self._read_state(observation)
        if seen is not None:
            if self._last is not None:
                before, bulb = self._last
                self.tried.setdefault(before, set()).add(bulb)
                if seen != before:
                    self.controllable.add(bulb)
                if self.models[bulb].observe(before, seen != before):
                    self._plan = []  # the model was wrong here: re-fitted, re-plan
                    self._stalled = set()
                elif not self._plan and seen != self.goal:
                    self._stalled.add(seen)  # the plan ran out short of all-on: explore here
            self.state = seen
        bulb = self._choose()
        self._last = (self.state, bulb)
        return str(bulb)

    def answer_probes(self, probes: Sequence[Probe]) -> list[str]:
        """From the fitted decision lists: ``yes`` where the bulb's list predicts a flip."""
        return ["yes" if self.models[int(p.subject["bulb"])].predict(int(p.subject["state"]))
                else "no" for p in probes]

    def world(self) -> dict[str, Any]:
        """The learned model as a lights world (what the planner searches)."""
        return {"n": self.n, "conditions": [m.formula() for m in self.models]}

    def _choose(self) -> int:
        if not self._plan and self.state not in self._stalled:
            self._plan = self._replan()
            if not self._plan:
                self._stalled.add(self.state)
        if self._plan:
            return self._plan.pop(0)
        return self._explore()

    def _replan(self) -> list[int]:
        self.replans += 1
        if self.n <= EXACT_MAX_N:
            result = bfs(self.world(), start=self.state, explore_all=False)
            return list(result.witness) if result.min_steps is not None else []
        return self._construct()

    def _order(self) -> dict[int, int]:
        """A position per bulb from the model's reads (Kahn; on a cycle, the bulb with the
        fewest unplaced reads goes next): conditions should read earlier bulbs only."""
        reads = [m.reads() for m in self.models]
        placed: dict[int, int] = {}
        while len(placed) < self.n:
            rest = [b for b in range(self.n) if b not in placed]
            nxt = min(rest, key=lambda b: (len(reads[b] - placed.keys()), b))
            placed[nxt] = len(placed)
        return placed

    def _construct(self) -> list[int]:
        """A plan on the model by constructive detours (as the SAT module extends plans): for
        each bulb, latest first, set the bulbs its condition needs (recursively), toggle it."""
        pos = self._order()
        models = self.models
        out: list[int] = []
        limit = 4 * self.n

        def put(state: int, v: int, value: int, stack: frozenset[int]) -> int | None:
            if (state >> v & 1) == value:
                return state
            if v in stack or len(out) > limit:
                return None
            need = models[v].nearest_true(state)
            if need is None:
                return None
            got = reach(state, need, stack | {v})
            if got is None or not models[v].predict(got):
                return None
            out.append(v)
            return got ^ (1 << v)

        def reach(state: int, targets: dict[int, int], stack: frozenset[int]) -> int | None:
            for _ in range(2):
                for v in sorted(targets, key=lambda b: -pos[b]):
                    got = put(state, v, targets[v], stack)
                    if got is None:
                        return None
                    state = got
                if all((state >> v & 1) == val for v, val in targets.items()):
                    return state
            return None

        state = self.state
        plan: list[int] = []
        for _ in range(2 * self.n):  # cheapest bulb next: unknown bulbs are tried early
            best: tuple[int, int, list[int], int] | None = None
            for v in range(self.n):
                if state >> v & 1:
                    continue
                out.clear()
                got = put(state, v, 1, frozenset())
                if got is not None and (best is None or len(out) < best[0]):
                    best = (len(out), v, list(out), got)
            if best is None:
                break
            plan += best[2]
            state = best[3]
            if len(plan) > limit:
                break
        return plan

    def _explore(self) -> int:
        """No plan: a toggle untried in this exact state (off bulbs first), else any."""
        assert self._rng is not None
        tried = set(self.tried.get(self.state, set()))
        if self._last is not None:
            tried.add(self._last[1])  # never undo the last toggle right away
        off = [b for b in range(self.n) if not self.state >> b & 1 and b not in tried]
        on = [b for b in range(self.n) if self.state >> b & 1 and b not in tried]
        pool = off or on or [b for b in range(self.n) if b not in tried] or list(range(self.n))
        return int(pool[int(self._rng.integers(len(pool)))])
