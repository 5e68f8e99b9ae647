"""Prior-aware lights learner (issue 39): it knows the generator, not the world.

The version-space rung (:mod:`.version_space`) prices each bulb's conditions alone, over every
other bulb, with a prior of its own. This learner's prior is the sampler's draw law
(:func:`~arena_gen.envs.lights.sampler.make_conditions`): a hidden order of the bulbs, the first
always enabled, the bulb at position ``pos`` conditioned on a chain over bulbs *earlier in the
order* (length uniform on ``1..min(max_literals, pos)``, literals an ordered draw without
replacement, each negated with ``p_not``, joined by ``and`` with ``p_and``), with the knobs of
the task's env version's presets. Its posterior is exact under that law, acceptance aside
(the sampler's acceptance is a property of the whole world; it is not conditioned on):

- given the order, bulbs' conditions are independent, so the evidence of bulb ``b`` with
  predecessor set ``S`` is ``Z_b(S)`` = the prior mass of its chains over ``S`` consistent with
  every toggle outcome seen (a subset-sum transform over the chains' read sets);
- the orders are summed out by dynamic programming over subsets (forward over prefixes, backward
  over suffixes), giving each bulb's posterior over its predecessor set;
- the probability that bulb ``b`` toggles in state ``s`` is the posterior mixture, one matrix
  product per bulb (each live chain weighted by a superset-sum of its predecessor sets).

It acts as the version-space rung does (risk-priced value iteration toward all-on, re-planned
every turn) on these probabilities, so the two differ only in what they know. Above
``max_prior_n`` bulbs (10: Lite's largest N) it plays the version-space rung. No world, no
rules text. Not on any released ladder (that would change certificates): benchmarked in
``benchmarks/bench_induction.py``.
"""

from __future__ import annotations

import math
from functools import lru_cache
from itertools import combinations, product
from typing import Any

import numpy as np

from arena_gen.core import registry
from arena_gen.core.agent import TaskView
from arena_gen.envs.lights.agents.version_space import LightsVersionSpaceAgent, _bits


@lru_cache(maxsize=4)
def chains(n: int, max_literals: int, p_not: float, p_and: float
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every chain the sampler can draw over n bulbs, one row per distinct (bulbs, signs, ops)
    up to swapping the first two literals (the same function): truth tables (H, 2^n) as
    float32, lengths (H,), read sets as bitmasks (H,), and each row's draw weight given its
    length and bulbs (negations, joins, and the two orders of the first two literals)."""
    bits = _bits(n)
    tables, lengths, reads, weights = [], [], [], []
    for k in range(1, min(max_literals, n) + 1):
        for chosen in combinations(range(n), k):
            mask = sum(1 << v for v in chosen)
            orders = [list(chosen)] if k <= 2 else [
                [v for v in chosen if v != last] + [last] for last in chosen]
            for order in orders:
                for signs in product((False, True), repeat=k):
                    p_sign = math.prod(p_not if s else 1 - p_not for s in signs)
                    lits = [~bits[v] if s else bits[v] for v, s in zip(order, signs, strict=True)]
                    for ops in product((True, False), repeat=k - 1):
                        node = lits[0]
                        for is_and, lit in zip(ops, lits[1:], strict=True):
                            node = node & lit if is_and else node | lit
                        p_ops = math.prod(p_and if a else 1 - p_and for a in ops)
                        tables.append(node)
                        lengths.append(k)
                        reads.append(mask)
                        weights.append((2 if k >= 2 else 1) * p_sign * p_ops)
    return (np.asarray(tables, dtype=np.float32), np.asarray(lengths),
            np.asarray(reads, dtype=np.int64), np.asarray(weights))


@lru_cache(maxsize=4)
def grouped(n: int, max_literals: int, p_not: float, p_and: float
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The chains grouped by read set (a chain reads as many bulbs as its length): the sets
    (M,), each chain's set index (H,), per set the weighted sum of its chains' truth tables
    (M, 2^n) and of their weights (M,). A learner keeps these per bulb, minus what it refuted,
    so each prediction is one small product per bulb instead of one over every chain."""
    table, _length, read, w0 = chains(n, max_literals, p_not, p_and)
    masks, index = np.unique(read, return_inverse=True)
    sums, mass = _by_set(index, np.arange(len(w0)), table, w0, len(masks))
    return masks, index, sums, mass


def _by_set(index: np.ndarray, rows: np.ndarray, table: np.ndarray, w0: np.ndarray,
            sets: int) -> tuple[np.ndarray, np.ndarray]:
    """Per read set, the weighted sum of ``rows``' truth tables and of their weights."""
    sums = np.zeros((sets, table.shape[1]))
    if len(rows):
        rows = rows[np.argsort(index[rows], kind="stable")]
        keys, starts = np.unique(index[rows], return_index=True)
        sums[keys] = np.add.reduceat(w0[rows, None] * table[rows], starts, axis=0)
    return sums, np.bincount(index[rows], weights=w0[rows], minlength=sets)


def _subset_sums(v: np.ndarray, n: int) -> np.ndarray:
    """``out[S] = sum of v[R] over R subset of S`` (v indexed by bitmask, length 2^n)."""
    out = v.copy()
    for i in range(n):
        view = out.reshape(-1, 2, 1 << i)
        view[:, 1, :] += view[:, 0, :]
    return out


def _superset_sums(v: np.ndarray, n: int) -> np.ndarray:
    """``out[R] = sum of v[S] over S superset of R``."""
    out = v.copy()
    for i in range(n):
        view = out.reshape(-1, 2, 1 << i)
        view[:, 0, :] += view[:, 1, :]
    return out


def _length_prior(n: int, max_literals: int) -> np.ndarray:
    """``a[k, m]``: the probability of one ordered draw of k given bulbs at position m."""
    a = np.zeros((max_literals + 1, n + 1))
    for m in range(1, n + 1):
        top = min(max_literals, m)
        for k in range(1, top + 1):
            a[k, m] = 1.0 / top / math.perm(m, k)
    return a


def generator_knobs(env_version: int) -> tuple[int, float, float]:
    """The chain knobs (max literals, p_not, p_and) of the env version's presets: what a
    learner that knows the generator knows (they must agree across the version's suites)."""
    presets = registry.get("lights", env_version).load("presets")
    knobs = {(int(p.max_literals), float(p.p_not), float(p.p_and)) for p in presets.values()}
    if len(knobs) != 1:
        raise ValueError(f"lights v{env_version}'s presets draw chains differently: {knobs}")
    return knobs.pop()


class LightsPriorAgent(LightsVersionSpaceAgent):
    """Inductive learner with the generator's prior: exact posterior over orders and chains."""

    name = "prior_aware"
    max_prior_n = 10

    def __init__(self) -> None:
        super().__init__()
        self.exact = False
        self.live: list[np.ndarray] = []
        self.rows: list[np.ndarray] = []

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        n = int(view.public["n"])
        self.exact = n <= self.max_prior_n
        if not self.exact:
            super().reset(view, mode, rng)
            return
        self.start(n, generator_knobs(view.env_version))

    def start(self, n: int, knobs: tuple[int, float, float]) -> None:
        """A fresh posterior over the ``n``-bulb worlds of a generator with these chain knobs
        (max literals, p_not, p_and)."""
        self.n, self.state, self._last, self.fallback = n, 0, None, None
        self.exact, self.knobs = True, knobs
        self.table, self.length, self.read, self.w0 = chains(n, *self.knobs)
        self.a = _length_prior(n, self.knobs[0])
        self.rows = [np.flatnonzero((self.read >> b) & 1 == 0) for b in range(n)]
        self.live = [np.ones(len(r), dtype=bool) for r in self.rows]
        # per bulb, its live chains' weighted tables and weights by read set (sets holding
        # the bulb itself stay in but never count: no predecessor set holds the bulb)
        self.masks, self.index, sums, mass = grouped(n, *self.knobs)
        self.sums = [sums.copy() for _ in range(n)]
        self.mass = [mass.copy() for _ in range(n)]
        self.first_ok = [True] * n  # whether ``True`` (the first bulb's condition) still fits
        self.evidence = np.zeros((n, 1 << n))
        self.completions = np.zeros(1 << n)
        self.p = self._posterior()

    def observe(self, state: int, bulb: int, toggled: bool) -> None:
        if not self.exact:
            super().observe(state, bulb, toggled)
            return
        rows = self.rows[bulb]
        keep = (self.table[rows, state] > 0.5) == toggled
        refuted = rows[self.live[bulb] & ~keep]
        self.live[bulb] &= keep
        if len(refuted):
            sums, mass = _by_set(self.index, refuted, self.table, self.w0, len(self.masks))
            self.sums[bulb] -= sums
            self.mass[bulb] -= mass
            # what is left of a fully refuted set is rounding: exactly nothing
            self.sums[bulb][self.sums[bulb] < 1e-12] = 0.0
            self.mass[bulb][self.mass[bulb] < 1e-12] = 0.0
        if not toggled:
            self.first_ok[bulb] = False
        self.p = self._posterior()

    def _posterior(self) -> np.ndarray:
        """Each bulb's probability of toggling in each state, under the posterior."""
        n, size = self.n, 1 << self.n
        top = self.knobs[0]
        popcount = np.array([bin(s).count("1") for s in range(size)])
        sizes = popcount[self.masks]
        z = np.zeros((n, size))
        for b in range(n):
            for k in range(1, top + 1):
                g = np.zeros(size)
                g[self.masks[sizes == k]] = self.mass[b][sizes == k]
                z[b] += self.a[k, popcount] * _subset_sums(g, n)
            z[b, 0] = 1.0 if self.first_ok[b] else 0.0
            z[b, (np.arange(size) >> b) & 1 == 1] = 0.0  # a bulb never precedes itself
        fwd, bwd = self._orders(z)
        self.evidence, self.completions = z, bwd
        total = fwd[size - 1]
        if not total > 0:  # the outcomes fit no world of the generator: optimistic
            return np.ones((n, size))
        sets = np.arange(size)
        out = np.zeros((n, size))
        for b in range(n):
            c = np.where((sets >> b) & 1 == 0, fwd * bwd[sets | (1 << b)], 0.0) / total
            u = np.zeros(len(self.masks))  # per read set: the mass of its supersets' posts
            for k in range(1, top + 1):
                here = sizes == k
                u[here] = _superset_sums(c * self.a[k, popcount], n)[self.masks[here]]
            out[b] = u @ self.sums[b] + c[0] * z[b, 0]
        out[out < 1e-9] = 0.0  # refuted everywhere: exactly impossible
        return np.clip(out, 0.0, 1.0)

    def _orders(self, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Forward mass of each prefix set (orders of it, each bulb's evidence given the bulbs
        before it) and backward mass of each completion."""
        n, size = self.n, 1 << self.n
        fwd, bwd = np.zeros(size), np.zeros(size)
        fwd[0], bwd[size - 1] = 1.0, 1.0
        for t in range(1, size):
            fwd[t] = sum(fwd[t ^ (1 << b)] * z[b, t ^ (1 << b)] for b in range(n) if t >> b & 1)
        for t in range(size - 2, -1, -1):
            bwd[t] = sum(z[c, t] * bwd[t | (1 << c)] for c in range(n) if not t >> c & 1)
        return fwd, bwd

    def knowledge(self) -> dict[str, Any]:
        """The generator knobs this learner assumed (for reports)."""
        return {"max_literals": self.knobs[0], "p_not": self.knobs[1], "p_and": self.knobs[2]}


class LightsPosteriorSamplingAgent(LightsPriorAgent):
    """The same posterior, acted on by posterior sampling: draw one world from it (an order,
    then each bulb's chain over its predecessors), walk a shortest path to all-on in it, and
    draw again only when an outcome refutes the drawn world."""

    name = "posterior_sampling"

    def __init__(self) -> None:
        super().__init__()
        self.rng = np.random.default_rng(0)  # reset passes the episode's own
        self.drawn: np.ndarray | None = None

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        self.rng = rng
        super().reset(view, mode, rng)

    def start(self, n: int, knobs: tuple[int, float, float]) -> None:
        super().start(n, knobs)
        self.drawn = None

    def observe(self, state: int, bulb: int, toggled: bool) -> None:
        super().observe(state, bulb, toggled)
        if self.exact and self.drawn is not None and self.drawn[bulb, state] != toggled:
            self.drawn = None

    def draw(self) -> np.ndarray | None:
        """One world from the posterior, as each bulb's toggle table (None: none fits)."""
        n, size = self.n, 1 << self.n
        z, bwd = self.evidence, self.completions
        if not bwd[0] > 0:
            return None
        before, sets = 0, [0] * n
        for _ in range(n):
            options = [c for c in range(n) if not before >> c & 1]
            mass = np.array([z[c, before] * bwd[before | 1 << c] for c in options])
            c = options[int(self.rng.choice(len(options), p=mass / mass.sum()))]
            sets[c], before = before, before | 1 << c
        out = np.zeros((n, size), dtype=bool)
        for b in range(n):
            if sets[b] == 0:
                out[b] = True
                continue
            rows = self.rows[b][self.live[b]]
            rows = rows[(self.read[rows] & ~sets[b]) == 0]
            weight = self.w0[rows] * self.a[self.length[rows], bin(sets[b]).count("1")]
            pick = rows[int(self.rng.choice(len(rows), p=weight / weight.sum()))]
            out[b] = self.table[pick] > 0.5
        return out

    def _choose(self) -> int:
        if not self.exact:
            return super()._choose()
        for _ in range(8):
            if self.drawn is None:
                self.drawn = self.draw()
            if self.drawn is None:
                break
            step = _first_step(self.drawn, self.state, self.n)
            if step is not None:
                return step
            self.drawn = None  # all-on unreachable in the drawn world (acceptance excludes it)
        return super()._choose()


def _first_step(enabled: np.ndarray, start: int, n: int) -> int | None:
    """The first toggle of a shortest path from ``start`` to all-on where bulb b flips in
    state s iff ``enabled[b, s]`` (None: all-on unreachable)."""
    goal = (1 << n) - 1
    if start == goal:
        return None
    first = {start: -1}
    frontier = [start]
    while frontier:
        nxt = []
        for s in frontier:
            for b in range(n):
                if enabled[b, s]:
                    t = s ^ (1 << b)
                    if t not in first:
                        first[t] = b if first[s] < 0 else first[s]
                        if t == goal:
                            return first[t]
                        nxt.append(t)
        frontier = nxt
    return None
