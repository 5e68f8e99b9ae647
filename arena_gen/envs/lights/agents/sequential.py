"""A prior-aware lights learner that prices a toggle by what trying it costs (issue 39's upper
end): the prior-aware learner's exact posterior, planned by sequential search.

The prior-aware learner (:class:`~.prior.LightsPriorAgent`) plans a path toward all-on whose
toggles cost ``1 - log2 p``: it prices the risk of a path but not what a failed toggle leaves
(the learner still stands where it was, and may try another bulb there). This one plans with
that: in its model each untried toggle ``b`` works in state ``s`` with the posterior's
probability ``p[b, s]``, independently, and a failure leaves the state unchanged, so from
``s`` the learner tries bulbs in some order until one works. The expected steps of an order
``b1, b2, ...`` with continuations ``V(s ^ bi)`` are

    sum_i prod_{j<i} (1 - p_j) * (1 + p_i V(s ^ bi))  /  (1 - prod_j (1 - p_j)),

conditioned on some bulb working (in every world the first bulb of the order always does; the
independence is the model's, not the worlds'). Swapping two neighbours shows that the best order
sorts by ``1 / p + V(next)``; value iteration from 0 gives ``V`` on every state (it rises
monotonically to the model's least fixed point). The learner takes the first bulb of the best
order at its state and re-plans after every outcome, the posterior carrying what the outcome
taught to every other state.

On sampled worlds of Lite's classes, its budget lifted, it needs fewer steps than the
prior-aware learner on six and on ten bulbs; within the released Lite's 50 turns it lights
about as many tasks (``docs/induction.md``, certified bounds). On no ladder (certificates do
not change): offered by name (``run --agent prior_sequential``) on lights v3 and v4.
"""

from __future__ import annotations

import numpy as np

from arena_gen.envs.lights.agents.prior import LightsPriorAgent
from arena_gen.envs.lights.agents.version_space import LightsVersionSpaceAgent


def try_costs(p: np.ndarray) -> np.ndarray:
    """``1 / p`` per (bulb, state): the expected tries of a toggle alone (inf where p = 0)."""
    with np.errstate(divide="ignore"):
        return np.where(p > 0, 1.0 / np.maximum(p, 1e-300), np.inf)


def sequential_values(p: np.ndarray, *, tol: float = 1e-6, rounds: int = 5000) -> np.ndarray:
    """Expected steps to all-on from every state under the sequential-search model of toggle
    probabilities ``p`` (shape (n, 2^n)); value iteration from 0 until no value moves by
    ``tol``, at most ``rounds`` of it."""
    n, size = p.shape
    flips = np.arange(size)[None, :] ^ (1 << np.arange(n))[:, None]  # (n, size)
    inv = try_costs(p)
    value = np.zeros(size)
    for _ in range(rounds):
        after = value[flips]
        order = np.argsort(inv + after, axis=0)
        ps = np.take_along_axis(p, order, 0)
        qs = np.take_along_axis(after, order, 0)
        fail = np.cumprod(1.0 - ps, axis=0)
        before = np.vstack([np.ones((1, size)), fail[:-1]])
        with np.errstate(invalid="ignore"):  # inf * 0 where an option is never reached
            terms = np.where((ps > 0) & (before > 0), before * (1.0 + ps * qs), 0.0)
        works = 1.0 - fail[-1]
        # a state where no toggle can work (no world of the posterior) leads nowhere
        new = np.where(works > 0, terms.sum(axis=0) / np.where(works > 0, works, 1.0), np.inf)
        new[size - 1] = 0.0
        if np.allclose(new, value, rtol=0.0, atol=tol, equal_nan=False):
            return new
        value = new
    return value


class LightsSequentialAgent(LightsPriorAgent):
    """Inductive learner with the generator's prior, planning by sequential search."""

    name = "prior_sequential"

    def _choose(self) -> int:
        if not self.exact:
            return LightsVersionSpaceAgent._choose(self)
        s, n = self.state, self.n
        value = sequential_values(self.p)
        keys = try_costs(self.p[:, s]) + value[s ^ (1 << np.arange(n))]
        if not np.isfinite(keys.min()):  # the outcomes fit no world of the generator
            return int(np.argmax(self.p[:, s]))
        return int(np.argmin(keys))
