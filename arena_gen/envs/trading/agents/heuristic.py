"""Trading heuristic agent: the ridge policy of ``verifiers.trading_policies`` as an agent.

The online ridge learner and the greedy all-in rule live beside the verifier (which plays the
very same policy for the certificate's ridge baseline, and the greedy rule with true prices for
the oracle witness); this agent only wraps the policy in the agent protocol.
"""

from __future__ import annotations

import numpy as np

from arena_gen.core.agent import TaskView
from arena_gen.envs.trading.policies import (
    RIDGE_LAMBDA,
    RidgeLearner,
    RidgePolicy,
    greedy_order,
    parse_observation,
)

__all__ = ["RIDGE_LAMBDA", "RidgeLearner", "RidgePolicy", "TradingHeuristicAgent",
           "greedy_order", "parse_observation"]


class TradingHeuristicAgent:
    """Learns W online from observed prices and 2-decimal news; trades greedily on the forecast."""

    name = "heuristic"
    privileged = False

    def __init__(self) -> None:
        self.policy: RidgePolicy | None = None

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        self.policy = RidgePolicy(view.public)

    def act(self, observation: str) -> str:
        assert self.policy is not None, "reset() first"
        return self.policy.act(observation)
