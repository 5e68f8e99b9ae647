"""Trading judge: ``profitable``, ``beats_hold`` and ``half_oracle`` from the final env state."""

from __future__ import annotations

from typing import Any

from ...core.task import Task
from . import Finding, finding

ITEMS = ("profitable", "beats_hold", "half_oracle")


def judge(task: Task, trajectory: dict[str, Any]) -> list[Finding]:
    """One finding per rubric item; an episode that stopped before the horizon is not assessed."""
    info = trajectory.get("final_info") or {}
    horizon = int(task.world["horizon"])
    if "total_value" not in info or "day" not in info:
        return [finding(item, None, "no final state recorded") for item in ITEMS]
    if int(info["day"]) < horizon:
        why = f"episode stopped at day {info['day']} of {horizon}"
        return [finding(item, None, why) for item in ITEMS]
    cash = float(task.world["initial_cash"])
    value = float(info["total_value"])
    rate = value / cash - 1.0
    facts = task.certificate.facts
    hold, oracle = float(facts["hold_profit"]), float(facts["oracle_profit"])
    return [
        finding("profitable", value > cash,
                f"final value {value:.2f} vs initial cash {cash:.2f} (profit {rate:+.2%})"),
        finding("beats_hold", rate > hold,
                f"profit {rate:+.2%} vs equal-weight buy-and-hold {hold:+.2%}"),
        finding("half_oracle", oracle > 0 and rate >= 0.5 * oracle,
                f"profit {rate:+.2%} is {rate / oracle:.1%} of the oracle's {oracle:+.2%}"
                if oracle > 0 else f"oracle profit {oracle:+.2%} is not positive"),
    ]
