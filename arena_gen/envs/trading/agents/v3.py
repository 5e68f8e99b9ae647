"""Trading v3 ladder agents: inductive learners with several allocation rules, model-free rungs.

Each agent wraps one policy of :mod:`~arena_gen.envs.trading.policies_v3` (which the v3
verifier and the ablation benchmark play too) in the agent protocol. They read only the public
view and the observation text (never ``view.world``), and are deterministic (``rng`` unused);
in with-rules mode they play exactly as in inductive mode.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from arena_gen.core.agent import TaskView
from arena_gen.core.probes import Probe
from arena_gen.envs.trading.agents.probe_replies import forecast_replies
from arena_gen.envs.trading.policies_v3 import HoldPolicy, MomentumPolicy, learner_policy

#: The v3 inductive rungs: name -> (estimator, window, allocation rule). ``heuristic`` is the
#: best variant of the ablation (benchmarks/bench_ablation_trading.py).
LEARNERS: dict[str, tuple[str, int | None, str]] = {
    "heuristic": ("ridge", None, "allin"),
    "ridge-top2": ("ridge", None, "top2"),
    "ridge-top3": ("ridge", None, "top3"),
    "ridge-margin": ("ridge", None, "margin0.002"),
    "window60-allin": ("ridge", 60, "allin"),
}


class _PolicyAgent:
    """A v3 policy as a runner agent (one fresh policy per episode)."""

    name = "trading-v3"
    privileged = False

    def __init__(self) -> None:
        self.policy: Any = None

    def make(self, public: dict[str, Any]) -> Any:
        """The episode's policy."""
        raise NotImplementedError

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        """A fresh policy for the episode."""
        if view.env != "trading":
            raise ValueError(f"{self.name} plays only trading tasks, not {view.env!r}")
        self.policy = self.make(view.public)

    def act(self, observation: str) -> str:
        """The policy's order for the day shown."""
        assert self.policy is not None, "reset() first"
        return str(self.policy.act(observation))


class LearnerAgent(_PolicyAgent):
    """An inductive v3 rung: online ridge (all days or a forgetting window) and one allocation
    rule, trading from day 3."""

    rung = "heuristic"

    def __init__(self) -> None:
        super().__init__()
        self.name = f"trading-{self.rung}"

    def make(self, public: dict[str, Any]) -> Any:
        estimator, window, rule = LEARNERS[self.rung]
        return learner_policy(public, estimator, window, rule)

    def answer_probes(self, probes: Sequence[Probe]) -> list[str]:
        """From the fitted map (the forecast it trades on)."""
        assert self.policy is not None, "reset() first"
        return forecast_replies(probes, self.policy.stocks, self.policy.forecaster.predict)


class HeuristicV3Agent(LearnerAgent):
    """The v3 heuristic rung (the ablation's best variant)."""

    rung = "heuristic"


class RidgeTop2Agent(LearnerAgent):
    """Ridge, equal split across the best two forecasts."""

    rung = "ridge-top2"


class RidgeTop3Agent(LearnerAgent):
    """Ridge, equal split across the best three forecasts."""

    rung = "ridge-top3"


class RidgeMarginAgent(LearnerAgent):
    """Ridge, all-in but switching only for a forecast gain above 0.2 % of the book."""

    rung = "ridge-margin"


class Window60Agent(LearnerAgent):
    """Ridge over a 60-day forgetting window, all-in."""

    rung = "window60-allin"


class HoldAgent(_PolicyAgent):
    """Model-free: equal-weight buy-and-hold."""

    name = "trading-hold"

    def make(self, public: dict[str, Any]) -> Any:
        return HoldPolicy(public)


class MomentumAgent(_PolicyAgent):
    """Model-free: all-in on yesterday's best mover (never reads the news)."""

    name = "trading-momentum"

    def make(self, public: dict[str, Any]) -> Any:
        return MomentumPolicy(public, 1)
