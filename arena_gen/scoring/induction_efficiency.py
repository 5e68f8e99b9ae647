"""Induction efficiency and the price of discovery: scores against the optimum of discovery.

The one owner of the formula (``docs/metrics.md``): an episode's induction efficiency is
``min(1, (reference / steps) ** 2)`` when it succeeded and 0 when it failed (the ARC-AGI-3
form), ``steps`` being the agent calls the judge's replay counted. The reference is the task's
certified induction cost when its certificate carries one (``certificate["induction"]``:
:func:`induction_reference`), else its with-rules exact minimum (``min_steps``), each labelled
with its kind (:data:`KINDS`), so a figure scored against a lower bound says so. A rung's price
of discovery is the mean over its successful ladder episodes of ``steps - reference``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from arena_gen.core.errors import SchemaError
from arena_gen.core.task import Task

#: The reference is the expected induction cost (the Bayes-optimal learner's expected steps).
EXPECTED = "expected induction cost"
#: The reference is a certified lower bound of the induction cost (no expected value yet).
INDUCTION_LOWER = "lower bound: induction cost"
#: No induction certificate: the with-rules exact minimum, a lower bound of every induction cost.
WITH_RULES = "lower bound: with-rules minimum"
#: Every reference kind, most to least informative.
KINDS = (EXPECTED, INDUCTION_LOWER, WITH_RULES)


@dataclass(frozen=True)
class Reference:
    """The steps an episode of a task is scored against, and what they are."""

    steps: float
    kind: str


def _steps(value: Any, task_id: str, key: str, nullable: str = "") -> float:
    """A positive finite step count from the certificate's ``induction``, else an error."""
    if (isinstance(value, bool) or not isinstance(value, (int, float))
            or not math.isfinite(value) or value <= 0):
        raise SchemaError(f"certificate induction {key} must be a positive finite number"
                          f"{nullable}, not {value!r}", task_id=task_id,
                          json_path=f"$.certificate.induction.{key}")
    return float(value)


def _optional(value: Any, task_id: str, key: str) -> float | None:
    """:func:`_steps`, or None for a null (an unknown expected value or upper bound)."""
    return None if value is None else _steps(value, task_id, key, " or null")


def induction_reference(task: Task) -> Reference | None:
    """The certificate's induction reference: ``expected`` when present, else ``lower``; None
    when the certificate carries no ``induction`` (a malformed one is a :class:`SchemaError`
    naming the task and JSON path). Shape: ``{"expected": x | None, "lower": l,
    "upper": u | None, "method": str}`` with ``min_steps <= lower <= expected <= upper``."""
    data = task.certificate.facts.get("induction")
    if data is None:
        return None
    where = "$.certificate.induction"
    if not isinstance(data, Mapping):
        raise SchemaError("certificate induction must be an object", task_id=task.id,
                          json_path=where)
    method = data.get("method")
    if not isinstance(method, str) or not method:
        raise SchemaError("certificate induction method must be a non-empty string",
                          task_id=task.id, json_path=f"{where}.method")
    lower = _steps(data.get("lower"), task.id, "lower")
    expected = _optional(data.get("expected"), task.id, "expected")
    upper = _optional(data.get("upper"), task.id, "upper")
    floor = task.certificate.min_steps
    if floor is not None and lower < floor:
        raise SchemaError(f"certificate induction lower {lower:g} is below the with-rules "
                          f"minimum {floor}", task_id=task.id, json_path=f"{where}.lower")
    for key, value in (("expected", expected), ("upper", upper)):
        if value is not None and value < lower:
            raise SchemaError(f"certificate induction {key} {value:g} is below its lower "
                              f"{lower:g}", task_id=task.id, json_path=f"{where}.{key}")
    if expected is not None and upper is not None and expected > upper:
        raise SchemaError(f"certificate induction expected {expected:g} is above its upper "
                          f"{upper:g}", task_id=task.id, json_path=f"{where}.expected")
    return Reference(expected, EXPECTED) if expected is not None else Reference(
        lower, INDUCTION_LOWER)


def reference_of(task: Task) -> Reference | None:
    """What a task's episodes are scored against: its induction reference, else its with-rules
    minimum; None when it has neither (fixed-horizon envs: trading, energy)."""
    found = induction_reference(task)
    if found is not None:
        return found
    floor = task.certificate.min_steps
    return Reference(float(floor), WITH_RULES) if floor else None


def efficiency(reference: float, steps: int, success: bool) -> float:
    """One episode's induction efficiency: ``min(1, (reference / steps) ** 2)``, 0 if failed."""
    if not success:
        return 0.0
    if steps <= 0:  # a success with no agent call: nothing could be cheaper
        return 1.0
    return min(1.0, (reference / steps) ** 2)


def episode_efficiency(ref: Reference | None, success: bool, steps: int | None
                       ) -> float | None:
    """A judged episode's efficiency against its task's reference (``steps``: the replay's):
    None without a reference, or for a success with no replayed step count."""
    if ref is None:
        return None
    if not success:
        return 0.0
    return None if steps is None else efficiency(ref.steps, steps, True)


def reference_text(kinds: Iterable[str]) -> str | None:
    """The kind of a group's references in words: one kind, or each kind with its task count
    when tasks differ; None when no task had one."""
    counts: dict[str, int] = {}
    for kind in kinds:
        counts[kind] = counts.get(kind, 0) + 1
    if not counts:
        return None
    if len(counts) == 1:
        return next(iter(counts))
    order = sorted(counts, key=lambda k: KINDS.index(k) if k in KINDS else len(KINDS))
    return "mixed: " + "; ".join(f"{k} ({counts[k]} task{'s' * (counts[k] > 1)})"
                                 for k in order)


@dataclass(frozen=True)
class Price:
    """A rung's price of discovery over some tasks: the mean excess steps of its successes."""

    mean: float | None  # None: the rung never succeeded on a task with a reference
    episodes: int


def rung_prices(ladders: Iterable[tuple[dict[str, Any], Reference | None]]
                ) -> dict[str, Price]:
    """Per rung of the certificates' ladders (each with its task's reference), the mean over
    its successful episodes of ``steps - reference``."""
    sums: dict[str, list[float]] = {}
    for ladder, ref in ladders:
        for rung, row in ladder.items():
            excess = sums.setdefault(rung, [])
            if ref is None or not isinstance(row, dict):
                continue
            for result in row.get("results") or []:
                steps = result.get("steps") if isinstance(result, dict) else None
                if result.get("success") is True and isinstance(steps, int):
                    excess.append(steps - ref.steps)
    return {rung: Price(sum(v) / len(v) if v else None, len(v)) for rung, v in sums.items()}


def price_text(price: Price | None) -> str:
    """A price of discovery as a cell: ``+17.5`` steps, or ``n/a`` when undefined."""
    if price is None or price.mean is None:
        return "n/a"
    return f"{price.mean:+.4g}"
