"""Deterministic judges, one module per env: ``judge(task, trajectory) -> list[finding]``.

A finding is ``{"item": rubric id, "status": "met" | "violated" | "not_assessable",
"evidence": one line}``; the trajectory is one line of ``trajectories.jsonl`` (its
``final_info`` is the env's last ``info``).
"""

from __future__ import annotations

from typing import Any

Finding = dict[str, Any]


def finding(item: str, met: bool | None, evidence: str) -> Finding:
    """Build one finding; ``met=None`` means not assessable."""
    status = "not_assessable" if met is None else ("met" if met else "violated")
    return {"item": item, "status": status, "evidence": evidence}
