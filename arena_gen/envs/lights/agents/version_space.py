"""Version-space lights learner: every condition the generator can draw, refuted by examples.

The generator draws each bulb's condition as a left-nested chain of at most ``max_literals``
literals over other bulbs (``((l1 op l2) op l3)``, each literal possibly negated, ``op`` and/or)
or, for the first bulb of the hidden order, ``True``. For each bulb this agent enumerates every
such chain up to ``max_literals`` (3; both v3 presets' bound) as a truth table over all 2^N
states, weighted by its prior (the chain length uniform, then uniform over the chains of that
length; ``True`` 1/N). Each toggle outcome
``(state, toggled?)`` removes every hypothesis it refutes, so predictions generalise to states
never visited. Where the hypotheses disagree, P(toggle works) is their weighted share.

It acts by value iteration toward all-on over the model: a toggle that works with probability
p costs ``1 + risk * -log2(p)`` (impossible toggles have no edge), and it takes the cheapest
first step, re-planning every turn (each outcome can change the model). Above
``max_exact_n`` bulbs (12, v3 Challenge's largest N; beyond it the truth tables are too large)
it plays the v2 decision-list learner. No world, no rules text.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import combinations, product

import numpy as np

from arena_gen.core.agent import TaskView
from arena_gen.core.probes import Probe
from arena_gen.envs.lights.agents.heuristic import read_state
from arena_gen.envs.lights.agents.learner import LightsLearnerAgent

_AND, _OR = 0, 1


def _bits(n: int) -> np.ndarray:
    """Per bulb, its value in every state 0 .. 2^n - 1 (shape (n, 2^n), bool)."""
    states = np.arange(1 << n, dtype=np.uint32)
    return np.stack([(states >> v) & 1 for v in range(n)]).astype(bool)


@lru_cache(maxsize=4)
def _chains(n: int, max_literals: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every chain over n bulbs: truth tables (H, 2^n), lengths (H,), bulbs read (H, n)."""
    bits = _bits(n)
    lits = np.concatenate([bits, ~bits])  # literal v (on) at row v, (off) at row n + v
    tables, lengths, reads = [], [], []
    for k in range(1, min(max_literals, n) + 1):
        rows = [[v + n * s for v, s in zip(chosen, signs, strict=True)]
                for chosen in combinations(range(n), k) for signs in product((0, 1), repeat=k)]
        idx = np.asarray(rows, dtype=np.intp)
        used = np.zeros((len(rows), n), dtype=bool)
        used[np.arange(len(rows))[:, None], idx % n] = True
        orders = [list(range(k))] if k <= 2 else [
            [i for i in range(k) if i != last] + [last] for last in range(k)]
        for order in orders:  # the last literal may be any; the first two commute
            for ops in product((_AND, _OR), repeat=k - 1):
                node = lits[idx[:, order[0]]]
                for op, pos in zip(ops, order[1:], strict=True):
                    node = node & lits[idx[:, pos]] if op == _AND else node | lits[idx[:, pos]]
                tables.append(node)
                lengths.append(np.full(len(rows), k))
                reads.append(used)
    return np.concatenate(tables), np.concatenate(lengths), np.concatenate(reads)


@lru_cache(maxsize=32)
def hypotheses(n: int, bulb: int, max_literals: int, uniform: bool = False
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every chain condition ``bulb`` may have (and ``True``), as truth tables with prior
    weights: ``True`` 1/n (the first bulb of the order), else the length uniform, then uniform
    over the chains of that length (``uniform``: every chain alike); and their weighted sum per
    state (cached: read only)."""
    tables, lengths, reads = _chains(n, max_literals)
    mine = ~reads[:, bulb]
    t, k = tables[mine], lengths[mine]
    counts = np.bincount(k)
    w = ((1 - 1 / n) / (len(np.unique(k)) * counts[k]) if not uniform
         else np.full(len(k), (1 - 1 / n) / len(k)))
    t = np.concatenate([t, np.ones((1, t.shape[1]), dtype=bool)])
    w = np.concatenate([w, [1 / n]])
    return t, w, weighted_sum(t, w, np.ones(len(w), dtype=bool))


def weighted_sum(table: np.ndarray, w: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``w[rows] @ table[rows]`` by weight class (few distinct weights; integer row sums are
    much faster than a float product over a boolean table)."""
    out = np.zeros(table.shape[1])
    for value in np.unique(w[rows]):
        out += value * table[rows & (w == value)].sum(axis=0, dtype=np.int32)
    return out


class LightsVersionSpaceAgent:
    """Inductive baseline: exact version spaces of chain conditions, risk-priced planning."""

    name = "heuristic"
    privileged = False
    max_literals = 3
    max_exact_n = 12  # v3 Challenge's largest N: 12 bulbs' tables of 2^12 states, ~1 GB
    risk = 1.0
    uniform_prior = False

    def __init__(self) -> None:
        self.n = 0
        self.state = 0
        self._last: tuple[int, int] | None = None
        self.fallback: LightsLearnerAgent | None = None
        self.tables: list[np.ndarray] = []
        self.weights: list[np.ndarray] = []
        self.alive: list[np.ndarray] = []
        self.mass: list[np.ndarray] = []  # per bulb: weighted count of live hypotheses per state
        self.p: np.ndarray = np.zeros((0, 0))

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        self.n = int(view.public["n"])
        self.state = 0
        self._last = None
        self.fallback = None
        if self.n > self.max_exact_n:
            self.fallback = LightsLearnerAgent()
            self.fallback.reset(view, mode, rng)
            return
        self.tables, self.weights, self.alive, self.mass = [], [], [], []
        for b in range(self.n):
            t, w, mass = hypotheses(self.n, b, self.max_literals, self.uniform_prior)
            self.tables.append(t)
            self.weights.append(w)
            self.alive.append(np.ones(len(w), dtype=bool))
            self.mass.append(mass.copy())
        self.p = np.stack([self._prob(b) for b in range(self.n)])

    def _prob(self, b: int) -> np.ndarray:
        total = float(self.weights[b][self.alive[b]].sum())
        if total <= 1e-12:  # every hypothesis refuted (a world outside the class): optimistic
            return np.ones(1 << self.n)
        return np.clip(self.mass[b] / total, 0.0, 1.0)

    def observe(self, state: int, bulb: int, toggled: bool) -> None:
        """Remove every hypothesis of ``bulb`` that the outcome refutes."""
        table, alive = self.tables[bulb], self.alive[bulb]
        refuted = alive & (table[:, state] != toggled)
        if not refuted.any():
            return
        alive &= ~refuted
        self.mass[bulb] -= weighted_sum(table, self.weights[bulb], refuted)
        self.p[bulb] = self._prob(bulb)
        self.p[bulb][self.p[bulb] < 1e-9] = 0.0  # refuted everywhere: exactly impossible

    def act(self, observation: str) -> str:
        if self.fallback is not None:
            return self.fallback.act(observation)
        seen = read_state(observation, self.n)
        if seen is not None:
            if self._last is not None:
                before, bulb = self._last
                self.observe(before, bulb, seen != before)
            self.state = seen
        bulb = self._choose()
        self._last = (self.state, bulb)
        return str(bulb)

    def _costs(self) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return np.where(self.p > 0, 1.0 - self.risk * np.log2(np.maximum(self.p, 1e-300)),
                            np.inf)

    def _choose(self) -> int:
        n, size = self.n, 1 << self.n
        cost = self._costs()  # (n, 2^n)
        states = np.arange(size)
        flips = [states ^ (1 << b) for b in range(n)]
        dist = np.full(size, np.inf)
        dist[size - 1] = 0.0
        for _ in range(4 * size):
            best = np.min(np.stack([cost[b] + dist[flips[b]] for b in range(n)]), axis=0)
            best[size - 1] = 0.0
            new = np.minimum(dist, best)
            if np.array_equal(new, dist):
                break
            dist = new
        s = self.state
        options = [cost[b, s] + dist[s ^ (1 << b)] for b in range(n)]
        if not np.isfinite(min(options)):
            return int(np.argmax(self.p[:, s]))
        return int(np.argmin(options))

    def answer_probes(self, probes: Sequence[Probe]) -> list[str]:
        """From the version spaces: ``yes`` where at least half the live hypotheses' weight
        lets the bulb flip in the probe's state (the fallback's decision lists above 12)."""
        if self.fallback is not None:
            return self.fallback.answer_probes(probes)
        out = []
        for probe in probes:
            s, b = int(probe.subject["state"]), int(probe.subject["bulb"])
            out.append("yes" if self.p[b, s] >= 0.5 else "no")
        return out
