"""Trading with-rules planner: W read from the rules text, greedy on the expected next prices.

The policy lives beside the verifier (:class:`~..verifiers.trading_policies.PlannerPolicy`),
which plays the very same policy for the v2 certificate's ``planner_growth``; this agent only
wraps it in the agent protocol. It reads ``view.public`` and ``view.rules_text`` (never
``view.world``) and is deterministic (``rng`` is unused).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from arena_gen.core.agent import TaskView
from arena_gen.core.probes import Probe
from arena_gen.envs.trading.agents.probe_replies import forecast_replies
from arena_gen.envs.trading.policies import PlannerPolicy
from arena_gen.envs.trading.policies_v3 import KnownMap


class TradingPlannerAgent:
    """Knows the factor matrix from the rules text, not the noise; trades greedily on it."""

    name = "trading-planner"
    privileged = False

    def __init__(self) -> None:
        self.policy: PlannerPolicy | None = None

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        if view.rules_text is None:
            raise ValueError("the trading planner plays in with-rules mode only (it reads W "
                             "from the rules text)")
        self.policy = PlannerPolicy(view.public, view.rules_text)

    def act(self, observation: str) -> str:
        assert self.policy is not None, "reset() first"
        return self.policy.act(observation)

    def answer_probes(self, probes: Sequence[Probe]) -> list[str]:
        """From the W read in the rules text (noise ignored, as the questions say)."""
        assert self.policy is not None, "reset() first"
        return forecast_replies(probes, self.policy.stocks, KnownMap(self.policy.matrix).predict)
