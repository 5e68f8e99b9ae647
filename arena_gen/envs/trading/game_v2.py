"""AI Trading v2: the v1 rules, with success measured against the W-known planner.

The transition, price and trade rules are v1's (:mod:`.game_v1`, frozen); only the rubric's
third item changes (see :class:`TradingGameV2`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from arena_gen.core.game import Check
from arena_gen.core.task import RubricItem
from arena_gen.envs.trading.game_v1 import (
    BASE_RUBRIC,
    BEATS_HOLD,
    PROFITABLE,
    TradingFacts,
    TradingGame,
)

#: The v2 rubric item: a share of the W-known planner's log growth.
PLANNER_ITEM = "planner_growth"


class TradingGameV2(TradingGame):
    """AI Trading, v2: the same rules and observations; success is measured against the planner.

    Description:
        As :class:`TradingGame`: ``p(t+1) = max(p(t) + W @ dF(t+1) + noise(t+1), 0.1)``, the
        news of tomorrow's changes shown today (the same transition, price and trade rules).
    Action Space:
        As :class:`TradingGame` (one JSON ``buy``/``sell`` object per day).
    Observation:
        As :class:`TradingGame`.
    Starting State:
        As :class:`TradingGame`: day 0, all cash.
    Rewards:
        As :class:`TradingGame`: the day's change in total value.
    Episode End:
        As :class:`TradingGame`: terminated at day ``horizon``.
    Information:
        As :class:`TradingGame`; the ladder value of a state is its profit rate.
    Rubric:
        ``profitable`` and ``beats_hold`` as in v1; ``planner_growth`` replaces ``half_oracle``:
        the log growth ``log(final value / initial cash)`` is at least ``planner_share`` (a
        task parameter, stated in the rubric text) of the certificate's ``planner_growth``,
        the log growth of the with-rules planner, which knows W from the rules text but not
        the noise and sees the 2-decimal news like any agent. All three at the horizon only.
        Success: all three met.
    Arguments:
        ``task``: a trading v2 task or Draft (its ``params`` hold ``planner_share``).
    Version History:
        v1: initial release; success needed half the perfect-foresight oracle's profit.
        v2: success is defined from the W-known planner (``planner_growth``), reachable without
        foresight of the noise: on Lite v1 the online ridge passed ``half_oracle`` on 30/30
        tasks (noise 0: W exact by day 4-6), on Challenge nothing could (an agent given W got
        0.002-1.2 % of the noise-foreseeing oracle). The rules text also states the news
        rounding. The v2 presets make induction last: Lite prices carry noise (0.3), Challenge
        a weaker factor map (w_max 0.5) under the same noise. Figures in docs/envs/trading.md.
    """

    @classmethod
    def rubric(cls, params: Mapping[str, Any], world: Mapping[str, Any]) -> list[RubricItem]:
        """v1's first two items and the planner item, with the task's ``planner_share``."""
        share = float(params["planner_share"])
        return [*BASE_RUBRIC, RubricItem(
            PLANNER_ITEM, f"The log growth log(final value / initial cash) is at least "
                          f"{share:g} x the certificate's planner_growth, the log growth of the "
                          f"with-rules planner (it knows the factor matrix, not the noise).")]

    def checks(self, facts: TradingFacts) -> list[Check]:
        items = (PROFITABLE, BEATS_HOLD, PLANNER_ITEM)
        if facts.day < facts.horizon:
            why = f"episode stopped at day {facts.day} of {facts.horizon}"
            return [Check(item, None, why) for item in items]
        cash, value, rate = facts.initial_cash, facts.total_value, facts.profit_rate
        profitable = Check(PROFITABLE, value > cash,
                           f"final value {value:.2f} vs initial cash {cash:.2f} "
                           f"(profit {rate:+.2%})")
        certificate = getattr(self.task, "certificate", None)
        cert = certificate.facts if certificate is not None else {}
        if "hold_profit" not in cert or "planner_growth" not in cert:
            why = "the certificate records no baselines"
            return [profitable] + [Check(item, None, why) for item in items[1:]]
        hold = float(cert["hold_profit"])
        target = -math.inf if cert["planner_growth"] is None else float(cert["planner_growth"])
        share = float(getattr(self.task, "params", {})["planner_share"])
        growth = math.log(value / cash) if value > 0 else -math.inf
        return [
            profitable,
            Check(BEATS_HOLD, rate > hold,
                  f"profit {rate:+.2%} vs equal-weight buy-and-hold {hold:+.2%}"),
            Check(PLANNER_ITEM, target > 0 and growth >= share * target,
                  f"log growth {growth:.4f} vs {share:g} x the W-known planner's {target:.4f}"
                  if target > 0 else f"the planner's log growth {target:.4f} is not positive"),
        ]
