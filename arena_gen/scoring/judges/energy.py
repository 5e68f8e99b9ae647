"""Energy judge: ``survived``, ``stable`` and ``low_carbon`` from the env's final info.

Stability and thermal share are defined over the whole horizon: an episode that collapsed or ran
out of turns before the horizon has ``stable`` and ``low_carbon`` violated (its partial averages
would otherwise earn credit for dispatching only a few days).
"""

from __future__ import annotations

from typing import Any

from ...core.task import Task
from . import Finding, finding


def judge(task: Task, trajectory: dict[str, Any]) -> list[Finding]:
    """Three findings, each with the figures behind it as evidence."""
    info = trajectory.get("final_info") or {}
    needed = ("day", "horizon", "collapsed", "stability", "thermal_share")
    if any(k not in info for k in needed):
        return [finding(item, None, "no final state recorded")
                for item in ("survived", "stable", "low_carbon")]
    day, horizon = int(info["day"]), int(info["horizon"])
    collapsed = bool(info["collapsed"])
    survived = day >= horizon and not collapsed
    t_stab = float(task.world["target_stability"])
    t_carb = float(task.world["target_carbon"])
    stab, share = float(info["stability"]), float(info["thermal_share"])
    if collapsed:
        end = f"grid collapsed after day {day - 1} (3 consecutive violation days)"
    elif not survived:
        end = f"stopped at day {day} of {horizon}"
    else:
        end = f"reached day {horizon}"
    partial = "" if survived else f"; horizon not reached ({end})"
    return [
        finding("survived", survived, end),
        finding("stable", survived and stab > t_stab,
                f"average stability {stab:.4f} vs target > {t_stab:.4f}{partial}"),
        finding("low_carbon", survived and share < t_carb,
                f"thermal share {share:.4f} vs target < {t_carb:.4f}{partial}"),
    ]
