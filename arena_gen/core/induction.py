"""Exact induction cost on small hypothesis classes: the optimum of discovery, by belief search.

A task's hypothesis class H is every world its sampler can produce and accept with the task's
public view, each with the sampler's probability. A learner knows H and its prior, not the world;
after each action it sees the state (the classes solved here are fully observed and
deterministic, as lights is), so its belief is the observed state and the set of worlds
consistent with everything seen, kept as a bitset over H. Two references follow
(``docs/induction.md``):

- the **worst-case induction cost**: the fewest steps a learner can guarantee to reach success on
  every world of H (an AND-OR game against an adversary that answers consistently with H);
- the **expected induction cost**: the fewest expected steps to success, worlds drawn from the
  prior, over learners that succeed on every world of H within the horizon (the Bayes-optimal
  learner that knows the generator, not the world).

Worlds come as a :class:`WorldClass` whose ``step`` is the env's own transition (its Game), never
restated here. Every search is bounded in nodes and seconds and raises :class:`InductionLimit`
when it stops, so a class too large for exact values says so instead of running away.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar


class InductionLimit(RuntimeError):
    """The exact solver stopped at its node or time bound (the class is too large for it)."""


@dataclass(frozen=True)
class WorldClass:
    """A hypothesis class: worlds 0..k-1 with prior weights, one observed start, the actions."""

    #: Prior weight of each world (normalised by the solver; the sampler's probabilities).
    weights: Sequence[float]
    #: The starting state, the same in every world (the public view shows it).
    start: Hashable
    actions: Sequence[Hashable]
    #: ``step(world, state, action) -> next state``: one world's transition, as the agent sees it.
    step: Callable[[int, Hashable, Hashable], Hashable]
    #: Whether a state is a success.
    success: Callable[[Hashable], bool]
    #: At most the steps world ``w`` still needs from ``state`` (its exact with-rules distance
    #: where known): prunes the worst-case search. Default: 0 at a success, else 1.
    distance: Callable[[int, Hashable], int] | None = None


@dataclass
class InductionCost:
    """The exact references of one class within ``horizon`` steps (``math.inf``: no learner
    finishes within it)."""

    worst: float
    expected: float
    #: The prior's mean of the with-rules minimum: what a learner told the world needs.
    told: float
    nodes: int
    seconds: float
    notes: list[str] = field(default_factory=list)

    @property
    def price_of_discovery(self) -> float:
        """Expected steps an optimal learner spends beyond a learner told the world."""
        return self.expected - self.told


Node = tuple[Hashable, int]  # (observed state, bitset of the consistent worlds)
N = TypeVar("N", bound=Hashable)  # a belief node of any solver here


class _Moves:
    """Per (state, action), the partition of every world by the state it leads to (computed
    once, then each belief's children are bitset intersections)."""

    def __init__(self, cls: WorldClass) -> None:
        self.cls = cls
        self.k = len(cls.weights)
        self.cache: dict[tuple[Hashable, Hashable], list[tuple[Hashable, int]]] = {}

    def parts(self, state: Hashable, action: Hashable) -> list[tuple[Hashable, int]]:
        key = (state, action)
        got = self.cache.get(key)
        if got is None:
            split: dict[Hashable, int] = {}
            for w in range(self.k):
                nxt = self.cls.step(w, state, action)
                split[nxt] = split.get(nxt, 0) | (1 << w)
            got = self.cache[key] = list(split.items())
        return got

    def children(self, node: Node) -> list[tuple[Hashable, list[Node]]]:
        """Each useful action's children (an action that changes nothing in every consistent
        world teaches nothing and moves nowhere: never part of an optimum)."""
        state, worlds = node
        out = []
        for action in self.cls.actions:
            kids = [(t, worlds & m) for t, m in self.parts(state, action) if worlds & m]
            if kids != [node]:
                out.append((action, kids))
        return out


def _members(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def solve(cls: WorldClass, horizon: int, *, max_nodes: int = 2_000_000,
          seconds: float = 60.0) -> InductionCost:
    """Exact worst-case and expected induction cost of ``cls`` within ``horizon`` steps, by
    value iteration over the whole reachable belief graph."""
    start = time.perf_counter()
    deadline = start + seconds
    weights = [float(w) for w in cls.weights]
    if not weights or min(weights) <= 0:
        raise ValueError("a hypothesis class needs worlds of positive weight only")
    total = sum(weights)
    moves = _Moves(cls)
    root: Node = (cls.start, (1 << len(weights)) - 1)
    edges = explore(root, lambda node: [] if cls.success(node[0]) else
                    [children for _action, children in moves.children(node)],
                    max_nodes, start, deadline)
    kids, mass = indexed(edges, weights, lambda node: node[1])
    worst = _iterate(kids, horizon, mass, deadline, expected=False)
    expected = _iterate(kids, horizon, mass, deadline, expected=True)
    dist = cls.distance
    told = (sum(weights[w] * dist(w, cls.start) for w in range(len(weights))) / total
            if dist is not None else math.nan)
    return InductionCost(worst=worst[0], expected=expected[0], told=told,
                         nodes=len(edges), seconds=time.perf_counter() - start)


def explore(root: N, expand: Callable[[N], list[list[N]]], max_nodes: int, start: float,
            deadline: float) -> dict[N, list[list[N]]]:
    """The belief graph reachable from ``root``: per node its options (one list of child
    nodes per action that splits or moves the belief), insertion-ordered so the root is node
    0; bounded in nodes and time (:class:`InductionLimit` says where it stopped)."""
    edges: dict[N, list[list[N]]] = {}
    todo = [root]
    while todo:
        node = todo.pop()
        if node in edges:
            continue
        if len(edges) >= max_nodes or time.perf_counter() > deadline:
            raise InductionLimit(f"belief graph larger than {len(edges)} nodes "
                                 f"({time.perf_counter() - start:.0f} s)")
        options = expand(node)
        edges[node] = options
        todo.extend(c for children in options for c in children if c not in edges)
    return edges


def indexed(edges: dict[N, list[list[N]]], weights: Sequence[float],
            worlds_of: Callable[[N], int]) -> tuple[list[list[list[int]]], list[float]]:
    """The graph as node indices (what :func:`_iterate` walks) and each node's prior mass
    (the weight of the worlds still consistent there, ``worlds_of`` giving their bitset)."""
    index = {node: i for i, node in enumerate(edges)}
    kids = [[[index[c] for c in children] for children in edges[node]] for node in edges]
    mass = [sum(weights[w] for w in _members(worlds_of(node))) for node in edges]
    return kids, mass


def _iterate(kids: list[list[list[int]]], horizon: int, mass: list[float], deadline: float, *,
             expected: bool, goal: Sequence[bool] | None = None) -> list[float]:
    """Values after ``horizon`` rounds of the Bellman operator from "solved: 0, else inf":
    round k's value is the optimum over learners that finish within k steps on every world
    (node 0 is the root). The solved nodes are ``goal`` (default: the nodes without options)."""
    solved = goal if goal is not None else [not options for options in kids]
    value = [0.0 if g else math.inf for g in solved]
    for _ in range(horizon):
        if time.perf_counter() > deadline:
            raise InductionLimit("value iteration did not finish in time")
        new = value[:]
        for i, options in enumerate(kids):
            best = value[i]
            for children in options:
                if expected:
                    v = 1 + sum(mass[c] * value[c] for c in children) / mass[i]
                else:
                    v = 1 + max(value[c] for c in children)
                if v < best:
                    best = v
            new[i] = best
        if new == value:
            break
        value = new
    return value


class WorstSearch:
    """Whether a learner can guarantee success within d steps from a belief, by depth-first
    AND-OR search pruned by the admissible ``distance`` of the most demanding consistent world;
    what it proves impossible is remembered, so an adversary can ask again as play goes on."""

    def __init__(self, cls: WorldClass, *, seconds: float = 60.0,
                 max_entries: int = 5_000_000) -> None:
        self.cls, self.moves = cls, _Moves(cls)
        self.seconds, self.max_entries = seconds, max_entries
        self.deadline = time.perf_counter() + seconds
        self.failed: dict[Node, int] = {}  # a node known to need more than this many steps
        self.bound: dict[Node, int] = {}
        self.dist = cls.distance or (lambda w, s: 0 if cls.success(s) else 1)
        self.root: Node = (cls.start, (1 << len(cls.weights)) - 1)

    def lower(self, node: Node) -> int:
        """The most any consistent world still needs told its rules (admissible)."""
        got = self.bound.get(node)
        if got is None:
            got = self.bound[node] = max(self.dist(w, node[0]) for w in _members(node[1]))
        return got

    def can(self, node: Node, d: int) -> bool:
        """Whether some learner reaches success within ``d`` steps on every world of ``node``."""
        if self.cls.success(node[0]):
            return True
        if self.lower(node) > d or self.failed.get(node, -1) >= d:
            return False
        if time.perf_counter() > self.deadline or len(self.failed) > self.max_entries:
            raise InductionLimit(f"worst-case search stopped at depth {d} "
                                 f"({len(self.failed)} beliefs, {self.seconds:g} s)")
        options = self.moves.children(node)
        options.sort(key=lambda o: max(self.lower(c) for c in o[1]))
        for _action, kids in options:
            if all(self.can(k, d - 1) for k in sorted(kids, key=self.lower, reverse=True)):
                return True
        self.failed[node] = d
        return False

    def value(self, node: Node, horizon: int) -> int | None:
        """The fewest steps a learner can guarantee from ``node`` (None: not within
        ``horizon``), by iterative deepening from the admissible bound."""
        for d in range(self.lower(node), horizon + 1):
            if self.can(node, d):
                return d
        return None


def worst_case(cls: WorldClass, horizon: int, *, seconds: float = 60.0,
               max_entries: int = 5_000_000) -> int | None:
    """The worst-case induction cost alone, by iterative deepening over beliefs (no full graph):
    the fewest steps a learner can guarantee within ``horizon``, or None when it cannot."""
    search = WorstSearch(cls, seconds=seconds, max_entries=max_entries)
    return search.value(search.root, horizon)


class Adversary:
    """Answers a learner's actions consistently with ``cls`` so that it needs at least
    ``lower`` = the class's worst-case cost to succeed, whatever it does (docs/induction.md).

    Invariant: after t answers the belief still needs at least ``lower - t`` steps. It holds
    at the start, and for any action the belief's value is at most one plus its largest
    child's (a learner may take that action), so some child keeps it; the adversary answers
    with that child. A learner that reaches success after t steps stands on a belief whose
    value is 0, so t >= ``lower``, on every world still consistent (each of which saw exactly
    these answers).
    """

    def __init__(self, cls: WorldClass, horizon: int, *, seconds: float = 60.0,
                 max_entries: int = 5_000_000) -> None:
        self.search = WorstSearch(cls, seconds=seconds, max_entries=max_entries)
        found = self.search.value(self.search.root, horizon)
        #: The class's worst-case cost within the horizon (horizon + 1: none guarantees it).
        self.lower = horizon + 1 if found is None else found
        self.node, self.steps = self.search.root, 0

    def reset(self) -> None:
        """A new episode from the start, every world consistent again."""
        self.node, self.steps = self.search.root, 0

    def answer(self, action: Hashable) -> Hashable:
        """The state ``action`` leads to, as answered (some consistent world's own step)."""
        self.search.deadline = time.perf_counter() + self.search.seconds
        state, worlds = self.node
        kids = [(t, worlds & m) for t, m in self.search.moves.parts(state, action) if worlds & m]
        need = self.lower - self.steps - 1  # what the chosen child must still need
        self.steps += 1
        if need <= 0 or len(kids) == 1:
            self.node = max(kids, key=lambda k: bin(k[1]).count("1"))
            return self.node[0]
        for kid in sorted(kids, key=self.search.lower, reverse=True):
            if not self.search.can(kid, need - 1):
                self.node = kid
                return kid[0]
        raise AssertionError("no child keeps the adversary's invariant (a search bug)")

    def consistent(self) -> list[int]:
        """The worlds consistent with every answer so far (each saw exactly these answers)."""
        return _members(self.node[1])
