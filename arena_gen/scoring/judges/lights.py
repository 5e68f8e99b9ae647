"""Lights judge: ``all_on`` from the final state the env reported."""

from __future__ import annotations

from typing import Any

from ...core.task import Task
from . import Finding, finding


def judge(task: Task, trajectory: dict[str, Any]) -> list[Finding]:
    """One finding for ``all_on``, with the bulb count as evidence."""
    info = trajectory.get("final_info") or {}
    n = int(task.world["n"])
    if "bulbs_on" not in info:
        return [finding("all_on", None, "no final state recorded")]
    on = int(info["bulbs_on"])
    return [finding("all_on", on == n, f"final state: {on}/{n} bulbs on")]
