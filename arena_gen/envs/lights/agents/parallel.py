"""Parallel chain learner for lights Challenge worlds of parts: every hidden order at once.

Issue 42's attack on the v5 Challenge (benchmarks/bench_paper_attack.py) showed that the chain
learner (:mod:`.chains`), which grows one hidden order at a time, understates what a learner
that knows the generator's law can do. This learner uses the law further:

- at all-off it finds the first bulbs as the chain learner does (only they toggle there);
- it then holds every unfinished order at its *frontier* at once (its last known bulb on, the
  three before it off: any condition the law allows the next bulb holds there), so one pass
  over the unknown bulbs finds the next bulb of every order; each bulb found is undone at once
  (so the pass finds next bulbs only) and turned on again after the pass;
- it tells which order a found bulb extends by walking the orders one at a time to a state
  the order passes through anyway and in which its next bulb refuses, then toggling the found
  bulbs: the one that refuses is that order's. An order shorter than the smallest part walks
  towards its next frontier (its last bulb off); one that may be complete keeps its last bulb
  on and turns the two before it on, a state that both its next frontier and its all-on state
  are reached through, so no walk is wasted on a complete order;
- an order as long as the largest part is complete without a pass; finally it plays each
  order to all-on by exact BFS over what it knows (the chain learner's walking).

Its exploration costs about one pass over the unknown bulbs per position rather than one per
order and position, so it is limited mainly by walking: the ring-puzzle walks grow with the
length of the orders (about 1.65x per bulb), much less with their number. It knows the part
sizes the generator draws (``sizes``); the ladder's rung (:class:`LightsParallelLearnerAgent`)
takes them from the lights v6 Challenge preset. Up to 24 bulbs it plays the v4 heuristic.
"""

from __future__ import annotations

from collections.abc import Generator

from arena_gen.envs.lights.agents.chains import _LOOKBACK, LightsChainLearnerAgent, options_at
from arena_gen.envs.lights.sampler_v6 import CHALLENGE


class ParallelChainLearner(LightsChainLearnerAgent):
    """Grows every hidden order at once and tells the found bulbs apart by their refusals."""

    def __init__(self, sizes: tuple[int, int]) -> None:
        super().__init__()
        #: The part sizes the generator draws: shorter orders go on, the longest are complete.
        self.smallest, self.largest = int(sizes[0]), int(sizes[1])
        self.chains: list[list[int]] = []

    @staticmethod
    def _frontier(chain: list[int]) -> dict[int, bool]:
        """The state in which every condition the law allows the next bulb holds."""
        return {b: b == chain[-1] for b in chain[-_LOOKBACK:]}

    def _apart(self, chain: list[int]) -> dict[int, bool]:
        """A state on the order's way in which its next bulb (found, on) refuses."""
        if len(chain) < max(self.smallest, _LOOKBACK):
            return {b: False for b in chain[-_LOOKBACK + 1:]}
        return {b: True for b in chain[-3:]}

    def _at(self, target: dict[int, bool]) -> bool:
        """Whether the bulbs ``target`` names are as it says (a walk may fall short)."""
        return all(bool(self.state >> b & 1) == on for b, on in target.items())

    def _firsts(self) -> Generator[int, int, list[int]]:
        """The first bulbs of the orders: those that toggle at all-off (each undone)."""
        assert self.rng is not None
        firsts = []
        for b in (int(x) for x in self.rng.permutation(self.n)):
            if (yield from self._toggle(b)):
                firsts.append(b)
                yield from self._toggle(b)
        return firsts

    def _pass(self, unknown: list[int], want: int) -> Generator[int, int, list[int]]:
        """Up to ``want`` unknown bulbs that toggle now, each undone, then all on again."""
        found: list[int] = []
        for u in list(unknown):
            if len(found) == want:
                break
            if (yield from self._toggle(u)):
                found.append(u)
                unknown.remove(u)
                yield from self._toggle(u)  # undone: the pass finds next bulbs only
        for u in found:
            yield from self._toggle(u)  # on again: each order's frontier moves past it
        return found

    def _owner(self, chain: list[int], left: list[int],
               last: bool) -> Generator[int, int, int | None]:
        """Which of the found bulbs ``left`` extends ``chain`` (None: none, it is complete)."""
        if len(left) == 1 and last:
            return left[0]  # the one order left owns the one bulb left
        yield from self._move(chain, self._apart(chain))
        for u in list(left):
            if (yield from self._toggle(u)):
                yield from self._toggle(u)  # not this order's: back on
            else:
                return u
        return None

    def _policy(self) -> Generator[int, int, None]:
        """First bulbs, then every order grown at once, then every order played to all-on."""
        assert self.rng is not None
        yield -1  # primed by reset
        firsts = yield from self._firsts()
        chains = [[f] for f in firsts]
        self.chains = chains
        for f in firsts:
            self.options[f] = [()]
        unknown = [b for b in (int(x) for x in self.rng.permutation(self.n)) if b not in firsts]
        done: set[int] = set()
        while unknown:
            active = [i for i, c in enumerate(chains)
                      if i not in done and len(c) < self.largest]
            if not active:
                break
            for i in active:
                yield from self._move(chains[i], self._frontier(chains[i]))
            active = [i for i in active if self._at(self._frontier(chains[i]))]
            found = yield from self._pass(unknown, len(active))
            left = list(found)
            order = sorted(active, key=lambda j: len(chains[j]))  # surely unfinished first
            for k, i in enumerate(order):
                if not left:
                    done.update(order[k:])  # every found bulb placed: these are complete
                    break
                owner = yield from self._owner(chains[i], left, k == len(order) - 1)
                if owner is None:
                    done.add(i)
                    continue
                left.remove(owner)
                chains[i].append(owner)
                self.options[owner] = options_at(chains[i], len(chains[i]) - 1)
            done.update(i for i in active if len(chains[i]) >= self.largest)
            if not found:
                break
        for chain in chains:
            yield from self._move(chain, {b: True for b in chain})
        while True:  # every order played: nothing left to learn or do
            yield int(self.rng.integers(self.n))


class LightsParallelLearnerAgent(ParallelChainLearner):
    """The ladder's parallel rung: the part sizes are the lights v6 Challenge preset's."""

    def __init__(self) -> None:
        super().__init__(CHALLENGE.part_size)
