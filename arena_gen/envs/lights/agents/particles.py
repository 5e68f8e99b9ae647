"""A prior-aware lights learner that plans over a particle set of its posterior (issue 39's
upper end): the same exact posterior as :class:`~.prior.LightsPriorAgent`, acted on by the
expected with-rules distance over worlds drawn from it.

Each turn it keeps the drawn worlds every outcome so far fits (a drawn world that survives
new evidence is still a draw of the new posterior: the outcomes are deterministic), draws fresh
ones up to :attr:`LightsParticleAgent.particles`, and drops those the generator's acceptance
rules out (all-on unreachable, or an exact minimum outside the preset's floor and the budget:
it knows the generator, acceptance included, not the world). It then takes the toggle whose
expected distance to all-on afterwards, over the particles, is least (a toggle that fails in a
particle leaves it where it is): the QMDP rule, which prices progress and the risk of a wasted
turn but not what an outcome teaches. A toggle no particle flips is never chosen while another
is, and a state walked through before costs half a step per visit (without both it circled
where the particles disagree on which detour leads on). Ties go to the bulb most likely to
flip. Above ``max_prior_n`` it plays the version-space rung, as the prior-aware learner does.

On no ladder and offered by no name: on sampled six-bulb worlds of Lite's class it needs fewer
steps than the prior-aware learner, on ten-bulb worlds more (docs/induction.md, certified
bounds); ``benchmarks/bench_induction_bounds.py --agent prior_particles`` measures it.
"""

from __future__ import annotations

import numpy as np

from arena_gen.core import registry
from arena_gen.core.agent import TaskView
from arena_gen.envs.lights.agents.prior import LightsPosteriorSamplingAgent
from arena_gen.envs.lights.agents.version_space import LightsVersionSpaceAgent
from arena_gen.envs.lights.sampler import min_len_for

#: A distance no accepted world has (all-on unreachable).
_FAR = 1 << 20


def distances(enabled: np.ndarray) -> np.ndarray:
    """Each state's exact distance to all-on where bulb b flips in state s iff
    ``enabled[b, s]`` (a bulb's condition never reads the bulb, so every move is reversible
    and a search from all-on gives them); ``_FAR`` where all-on is unreachable."""
    n, size = enabled.shape
    dist = np.full(size, _FAR, dtype=np.int64)
    dist[size - 1] = 0
    frontier = np.array([size - 1])
    depth = 0
    while frontier.size:
        depth += 1
        parts = []
        for b in range(n):
            nxt = frontier[enabled[b, frontier]] ^ (1 << b)
            nxt = nxt[dist[nxt] == _FAR]
            dist[nxt] = depth
            parts.append(nxt)
        frontier = np.unique(np.concatenate(parts))
    return dist


class LightsParticleAgent(LightsPosteriorSamplingAgent):
    """Prior-aware learner: exact posterior, QMDP choice over posterior draws."""

    name = "prior_particles"
    particles = 24
    #: The set is refilled only when fewer than this many particles survive.
    keep = 8
    #: Draws tried per turn before planning with fewer particles.
    max_draws = 200

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        super().reset(view, mode, rng)
        self.pool: list[tuple[np.ndarray, np.ndarray]] = []
        preset = registry.get("lights", view.env_version).load("presets")
        floors = {min_len_for(p, self.n) for p in preset.values()}
        self.floor = min(floors)
        self.budget = int(view.budget)
        self.visits = np.zeros(1 << self.n)

    def observe(self, state: int, bulb: int, toggled: bool) -> None:
        super().observe(state, bulb, toggled)
        self.visits[state ^ (1 << bulb) if toggled else state] += 1
        if self.exact:
            self.pool = [(e, d) for e, d in self.pool if e[bulb, state] == toggled]

    def _refill(self) -> None:
        if len(self.pool) >= self.keep:
            return  # a steady set: re-drawing every turn made the plan oscillate
        for _ in range(self.max_draws):
            if len(self.pool) >= self.particles:
                return
            drawn = self.draw()
            if drawn is None:
                return
            dist = distances(drawn)
            if self.floor <= dist[0] <= self.budget:
                self.pool.append((drawn, dist))

    def _choose(self) -> int:
        if not self.exact:
            return LightsVersionSpaceAgent._choose(self)
        self._refill()
        if not self.pool:
            return LightsVersionSpaceAgent._choose(self)
        s, n = self.state, self.n
        after = np.zeros(n)
        moves = np.zeros(n, dtype=bool)
        for enabled, dist in self.pool:
            flips = enabled[:, s]
            moves |= flips
            after += np.where(flips, dist[s ^ (1 << np.arange(n))], dist[s])
        # a toggle no particle flips would change nothing and teach nothing: never chosen
        # while another can (staying put must not look cheaper than a detour)
        after = np.where(moves, after, np.inf) if moves.any() else after
        # a state walked through before costs half a step per visit and particle (QMDP alone
        # circles where the particles disagree on which detour leads on)
        after += 0.5 * len(self.pool) * self.visits[s ^ (1 << np.arange(n))]
        best = np.flatnonzero(after == after.min())
        return int(best[np.argmax(self.p[best, s])])
