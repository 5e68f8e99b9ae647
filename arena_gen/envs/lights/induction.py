"""The hypothesis class of a small lights task: every world the sampler can draw with its public
view, with the sampler's own probability, as :mod:`arena_gen.core.induction` solves it.

A lights task tells the agent N and the budget; its class is every (order, conditions) the
sampler (:func:`~.sampler.make_conditions`) can draw for N under the preset's knobs and the
acceptance rule (:func:`~.sampler.accept`: solvable, exact minimum in [floor, budget]). Worlds
that behave alike on every state (the same bulbs enabled in the same states) cannot be told apart
by any agent, so the class is kept as behaviours, each with the summed probability of its worlds
and one representative world whose game (:class:`~.game_v1.Rules`) plays it.

The probabilities mirror the sampler's draws (tested against the sampler itself): the order is
a uniform permutation; at position ``pos`` the literal count is uniform on ``1..min(max_literals,
pos)``, the literals an ordered draw without replacement of earlier positions, each negated with
``p_not``, joined left to right by ``and`` with ``p_and`` (else ``or``).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena_gen.core.induction import WorldClass
from arena_gen.envs.lights.bfs import bfs
from arena_gen.envs.lights.formula import Formula, evaluate_many
from arena_gen.envs.lights.game_v1 import Rules

#: Largest N the exact enumeration is offered for (N! orders x literal choices).
MAX_EXACT_N = 5

#: A behaviour: per bulb, the bitmask over the 2^N states in which that bulb may flip.
Behaviour = tuple[int, ...]


@dataclass(frozen=True)
class LightsClass:
    """The accepted behaviours of one public view, their prior and a world playing each."""

    n: int
    budget: int
    behaviours: tuple[Behaviour, ...]
    weights: tuple[float, ...]
    worlds: tuple[dict[str, Any], ...]
    #: The exact with-rules minimum of each behaviour (its BFS depth).
    min_steps: tuple[int, ...]
    #: Share of the sampler's draws the acceptance rule keeps (the rest is outside H).
    accepted_mass: float

    def world_class(self) -> WorldClass:
        """The class as the generic solver takes it; each step is the world's own rule."""
        return world_class(self.worlds, self.weights)

    def expected_min_steps(self) -> float:
        """The prior's mean of the with-rules minimum (what an agent told the rules needs)."""
        total = sum(self.weights)
        return sum(w * m for w, m in zip(self.weights, self.min_steps, strict=True)) / total


def world_class(worlds: Sequence[dict[str, Any]], weights: Sequence[float]) -> WorldClass:
    """Lights worlds of one N as the generic solver takes them: each step is the world's own
    rule (:class:`~.game_v1.Rules`), the distance its exact with-rules distance."""
    rules = [Rules(w) for w in worlds]
    n = rules[0].n
    goal = (1 << n) - 1
    dists = [_distances(w) for w in worlds]

    def step(w: int, state: Any, bulb: Any) -> int:
        return rules[w].step(int(state), int(bulb))  # the agent sees every bulb

    def success(state: Any) -> bool:
        return int(state) == goal

    def distance(w: int, state: Any) -> int:
        return int(dists[w][int(state)])

    return WorldClass(weights=tuple(weights), start=0, actions=tuple(range(n)), step=step,
                      success=success, distance=distance)


def _distances(world: dict[str, Any]) -> np.ndarray:
    """Each state's exact distance to all-on in ``world`` (toggles are their own inverse, so
    the BFS from all-on over the game's moves gives them)."""
    rules = Rules(world)
    n = int(world["n"])
    dist = np.full(1 << n, -1, dtype=np.int64)
    frontier = [rules.goal]
    dist[rules.goal] = 0
    depth = 0
    while frontier:
        depth += 1
        nxt = []
        for s in frontier:
            for b in range(n):
                t = rules.step(s, b)
                if dist[t] < 0:
                    dist[t] = depth
                    nxt.append(t)
        frontier = nxt
    dist[dist < 0] = 1 << 30  # all-on unreachable from there: no learner finishes
    return dist


def _chains(pos: int, max_literals: int, p_not: float,
            p_and: float) -> Iterator[tuple[list[tuple[int, bool]], list[str], float]]:
    """Every condition the sampler can draw at ``pos`` as (literals as (earlier position,
    negated), joining ops, probability)."""
    top = min(max_literals, pos)
    for k in range(1, top + 1):
        p_k = 1.0 / top / math.perm(pos, k)
        for chosen in itertools.permutations(range(pos), k):
            for negs in itertools.product((False, True), repeat=k):
                p_neg = math.prod(p_not if n else 1 - p_not for n in negs)
                for ops in itertools.product(("and", "or"), repeat=k - 1):
                    p_ops = math.prod(p_and if o == "and" else 1 - p_and for o in ops)
                    yield list(zip(chosen, negs, strict=True)), list(ops), p_k * p_neg * p_ops


def _formula(literals: list[tuple[int, bool]], ops: list[str], order: list[int]) -> Formula:
    """The left-nested chain the sampler builds from these draws."""
    node: Formula | None = None
    for n, (idx, neg) in enumerate(literals):
        lit: Formula = {"var": order[idx]}
        if neg:
            lit = {"not": lit}
        node = lit if node is None else {ops[n - 1]: [node, lit]}
    assert node is not None
    return node


def _mask(node: Formula, states: np.ndarray) -> int:
    """The bitmask over all states in which ``node`` holds (the game's own evaluation)."""
    truth = evaluate_many(node, states)
    return int(sum(1 << int(s) for s in states[truth]))


def lights_class(n: int, *, max_literals: int, p_not: float, p_and: float, min_len: int,
                 budget: int) -> LightsClass:
    """The hypothesis class of an N-bulb task of these knobs (exact; N <= MAX_EXACT_N)."""
    if not 1 <= n <= MAX_EXACT_N:
        raise ValueError(f"the exact lights class is enumerated for 1 <= N <= {MAX_EXACT_N}, "
                         f"got {n}")
    states = np.arange(1 << n, dtype=np.uint32)
    every = (1 << (1 << n)) - 1
    prob: dict[Behaviour, float] = {}
    world_of: dict[Behaviour, dict[str, Any]] = {}
    p_order = 1.0 / math.factorial(n)
    for order in itertools.permutations(range(n)):
        # per position, the distribution of its bulb's (mask, formula)
        dists: list[dict[int, tuple[float, Formula]]] = [{every: (1.0, {"const": True})}]
        for pos in range(1, n):
            dist: dict[int, tuple[float, Formula]] = {}
            for literals, ops, p in _chains(pos, max_literals, p_not, p_and):
                node = _formula(literals, ops, list(order))
                mask = _mask(node, states)
                old = dist.get(mask)
                dist[mask] = (p + old[0], old[1]) if old else (p, node)
            dists.append(dist)
        for combo in itertools.product(*(d.items() for d in dists)):
            masks = [0] * n
            conds: list[Formula] = [{"const": True}] * n
            p = p_order
            for pos, (mask, (pm, node)) in enumerate(combo):
                masks[order[pos]] = mask
                conds[order[pos]] = node
                p *= pm
            key = tuple(masks)
            prob[key] = prob.get(key, 0.0) + p
            world_of.setdefault(key, {"n": n, "order": list(order), "conditions": conds})
    kept, weights, worlds, minima = [], [], [], []
    for key in sorted(prob):
        result = bfs(world_of[key])
        m = result.min_steps
        if m is None or m < min_len or m > budget:
            continue
        kept.append(key)
        weights.append(prob[key])
        worlds.append(world_of[key])
        minima.append(m)
    if not kept:
        raise ValueError(f"no {n}-bulb world of these knobs is accepted (floor {min_len}, "
                         f"budget {budget})")
    return LightsClass(n=n, budget=budget, behaviours=tuple(kept), weights=tuple(weights),
                       worlds=tuple(worlds), min_steps=tuple(minima),
                       accepted_mass=float(sum(weights)))
