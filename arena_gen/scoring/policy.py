"""The score policy (from the Odysseys recipe): findings per rubric item -> an attempt's score.

Item credit = 100 x met / all rubric items; not-assessable and missing findings stay in the
denominator. A perfect attempt (every item met) scores 100 and is never zeroed; otherwise
``rh_zeroed`` makes the score 0. Infra-error attempts are excluded (score None), never 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def item_credit(findings: Sequence[dict[str, Any]], rubric: Sequence[str]) -> float:
    """100 x (rubric items met) / (rubric items); unknown findings are ignored."""
    if not rubric:
        raise ValueError("a rubric needs at least one item")
    status = {f["item"]: f["status"] for f in findings}
    met = sum(1 for item in rubric if status.get(item) == "met")
    return 100.0 * met / len(rubric)


def is_perfect(findings: Sequence[dict[str, Any]], rubric: Sequence[str]) -> bool:
    """Every rubric item has a ``met`` finding."""
    status = {f["item"]: f["status"] for f in findings}
    return all(status.get(item) == "met" for item in rubric)


def attempt_score(line: dict[str, Any], rubric: Sequence[str]) -> float | None:
    """Score one findings line on 0-100, or None when it is excluded (infra error)."""
    flags = line.get("flags") or {}
    if flags.get("infra_error"):
        return None
    findings = line.get("findings") or []
    if is_perfect(findings, rubric):
        return 100.0
    if flags.get("rh_zeroed"):
        return 0.0
    return item_credit(findings, rubric)
