"""Trading allocation agents: one forecast placed several ways (the v5 ablation's rows).

Each agent wraps a :mod:`~arena_gen.envs.trading.policies_v5` policy: the ladder's ridge
forecaster, or (``KnowsW...``) the factor matrix read from the rules text, with one allocation
rule. They are the attackers the v5 success rule is tested against (a forecast that learns must
pass at about the same rate whatever its allocation; one told W must pass whatever its
allocation), not ladder rungs. Deterministic (``rng`` unused); the ridge agents read only the
public view and the observation text, the knowing ones also the rules text (with-rules
mode, like the planner).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from arena_gen.core.agent import TaskView
from arena_gen.core.probes import Probe
from arena_gen.envs.trading.agents.probe_replies import forecast_replies
from arena_gen.envs.trading.policies_v5 import ALLOCATIONS, AllocationPolicy, allocation_policy

__all__ = ["ALLOCATION_AGENTS", "AllocationAgent", "HeuristicV5Agent", "RidgeGatedV5Agent",
           "RidgeTop2V5Agent", "RidgeTop3V5Agent"]


class AllocationAgent:
    """The ridge forecaster (or, ``knows_w``, the rules' factor matrix) with one allocation."""

    privileged = False

    def __init__(self, allocation: str = "gated", knows_w: bool = False) -> None:
        allocation_policy({"stocks": [], "factors": []}, allocation)  # rejects unknown rules
        self.allocation = allocation
        self.knows_w = knows_w
        self.name = f"trading-{'knows-w' if knows_w else 'ridge'}-{allocation}"
        self.policy: AllocationPolicy | None = None

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        """A fresh policy for the episode (a knowing agent needs the rules text)."""
        if view.env != "trading":
            raise ValueError(f"{self.name} plays only trading tasks, not {view.env!r}")
        rules = getattr(view, "rules_text", None) if self.knows_w else None
        if self.knows_w and not isinstance(rules, str):
            raise ValueError(f"{self.name} needs the rules text (with-rules mode)")
        self.policy = allocation_policy(view.public, self.allocation, rules)

    def act(self, observation: str) -> str:
        """The policy's order for the day shown."""
        assert self.policy is not None, "reset() first"
        return self.policy.act(observation)

    def answer_probes(self, probes: Sequence[Probe]) -> list[str]:
        """From the forecast it trades on (the fitted ridge, or W read from the rules)."""
        assert self.policy is not None, "reset() first"
        return forecast_replies(probes, self.policy.stocks, self.policy.forecaster.predict)


def _maker(allocation: str, knows_w: bool) -> Any:
    """A zero-argument factory of one allocation agent."""
    return lambda: AllocationAgent(allocation, knows_w)


#: Every allocation agent by name: ``ridge-<rule>`` and ``knows-w-<rule>``.
ALLOCATION_AGENTS: dict[str, Any] = {
    f"{'knows-w' if knows else 'ridge'}-{rule}": _maker(rule, knows)
    for knows in (False, True) for rule in ALLOCATIONS
}


class HeuristicV5Agent(AllocationAgent):
    """v5 heuristic rung: v4's (online ridge, all-in from day 3), naming its best place."""

    def __init__(self) -> None:
        super().__init__("allin")
        self.name = "trading-heuristic-v5"


class RidgeTop2V5Agent(AllocationAgent):
    """v5 ladder rung: the ridge forecaster split across its best two, naming its best."""

    def __init__(self) -> None:
        super().__init__("top2")


class RidgeTop3V5Agent(AllocationAgent):
    """v5 ladder rung: the ridge forecaster split across its best three, naming its best."""

    def __init__(self) -> None:
        super().__init__("top3")


class RidgeGatedV5Agent(AllocationAgent):
    """v5 ladder rung: the ridge forecaster all-in when confident, spread otherwise, naming its
    best every day (the v4 attack, played the v5 way)."""

    def __init__(self) -> None:
        super().__init__("gated")
