"""Trading v6 ladder agents: the planner told every regime, and the ridge that detects changes.

:class:`RegimePlannerAgent` plays :class:`~..policies_v6.RegimePlanner` (the v6 witness) in
with-rules mode and answers probes from the map in force on the last day it saw;
:class:`RidgeDetectAgent` is the v5 heuristic rung (online ridge, all-in from day 3, naming
its best place) with :class:`~..policies_v6.DetectingRidge` as its forecaster, so the suite
measures whether a learner notices a change. Deterministic (``rng`` unused).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from arena_gen.core.agent import TaskView
from arena_gen.core.probes import Probe
from arena_gen.envs.trading.agents.allocation import AllocationAgent
from arena_gen.envs.trading.agents.planner import TradingPlannerAgent
from arena_gen.envs.trading.agents.probe_replies import forecast_replies
from arena_gen.envs.trading.policies_v3 import KnownMap
from arena_gen.envs.trading.policies_v5 import AllocationPolicy
from arena_gen.envs.trading.policies_v6 import DetectingRidge, RegimePlanner

__all__ = ["RegimePlannerAgent", "RidgeDetectAgent"]


class RegimePlannerAgent(TradingPlannerAgent):
    """The v6 planner rung: v5's orders and named place under each day's regime map."""

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        if view.rules_text is None:
            raise ValueError("the trading planner plays in with-rules mode only (it reads W "
                             "from the rules text)")
        self.policy = RegimePlanner(view.public, view.rules_text)

    def answer_probes(self, probes: Sequence[Probe]) -> list[str]:
        """From the map in force on the last day seen (the probed state's day)."""
        assert isinstance(self.policy, RegimePlanner), "reset() first"
        return forecast_replies(probes, self.policy.stocks, KnownMap(self.policy.matrix).predict)


class RidgeDetectAgent(AllocationAgent):
    """v6 ladder rung: the online ridge over the current regime (CUSUM change detection),
    all-in from day 3, naming its best place."""

    def __init__(self) -> None:
        super().__init__("allin")
        self.name = "trading-ridge-detect"

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        """A fresh detecting forecaster for the episode."""
        if view.env != "trading":
            raise ValueError(f"{self.name} plays only trading tasks, not {view.env!r}")
        public: dict[str, Any] = view.public
        self.policy = AllocationPolicy(public, DetectingRidge(len(public["stocks"]),
                                                              len(public["factors"])),
                                       "allin", start_day=3)
