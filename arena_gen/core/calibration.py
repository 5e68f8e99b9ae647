"""Calibration targets: what a suite's baseline ladder must show for the suite to measure induction.

A task is certified solvable by its verifier; a *calibrated* task is also certified neither
trivial (the seeded random agent solves it in fewer than ``trivial_share`` of its attempts) nor
unknowable (the with-rules planner, which reads only the rules text, solves it). Those two are
per-task rules, enforced at build by resampling from the task's own stream. The suite-level
bands (best scripted inductive baseline, planner floor, random ceiling) are checked once every
task is built and recorded in the manifest.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

#: The rungs of every ladder, in order: seeded random, the env's inductive heuristic (and any
#: extra scripted inductive baselines), the with-rules planner.
RANDOM, HEURISTIC, PLANNER = "random", "heuristic", "planner"

@dataclass(frozen=True)
class Calibration:
    """The ladder targets of one preset (one env version in one suite)."""

    #: Attempts of the seeded random agent per task (attempt seeds as ``arena-gen run`` uses).
    random_attempts: int = 4
    #: Per task: a task random solves in at least this share of its attempts is rejected.
    trivial_share: float = 0.5
    #: Per task: a task the with-rules planner does not solve is rejected.
    require_planner: bool = True
    #: Suite: the best scripted inductive baseline's success rate lies in [lo, hi]
    #: (None: no band, e.g. Challenge, whose bar is "below Lite", checked across suites).
    inductive: tuple[float, float] | None = (0.10, 0.60)
    #: Suite: the with-rules planner's success rate is at least this.
    planner_floor: float = 0.90
    #: Suite: the random agent's success rate (over all attempts) is at most this.
    random_ceiling: float = 0.10

    def to_dict(self) -> dict[str, Any]:
        """The plain dict the manifest records."""
        out = dataclasses.asdict(self)
        out["inductive"] = list(self.inductive) if self.inductive is not None else None
        return out

    def task_problem(self, ladder: dict[str, Any]) -> str | None:
        """Why a task's ladder makes it unacceptable (``trivial``, ``unknowable``), or None."""
        rnd = ladder.get(RANDOM)
        if rnd and rnd["attempts"] and rnd["successes"] >= self.trivial_share * rnd["attempts"]:
            return (f"trivial (random solved {rnd['successes']} of {rnd['attempts']} "
                    f"attempts)")
        plan = ladder.get(PLANNER)
        if self.require_planner and plan is not None and plan["successes"] < plan["attempts"]:
            return "unknowable (the with-rules planner did not solve it)"
        return None


def calibration_for(spec: Any, suite: str) -> Calibration | None:
    """The calibration of ``spec`` (an env version) in ``suite``, or None when it has none."""
    if spec.calibration is None:
        return None
    table: dict[str, Calibration] = spec.load("calibration")
    return table.get(suite)


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson 95 % interval of a success rate (sensible at 0 % and 100 % and small n)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def rung_rates(ladders: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per rung over a suite's tasks: attempts, successes, rate and its Wilson interval."""
    out: dict[str, dict[str, Any]] = {}
    for ladder in ladders:
        for rung, result in ladder.items():
            row = out.setdefault(rung, {"attempts": 0, "successes": 0, "tasks_solved": 0,
                                        "tasks": 0})
            row["attempts"] += result["attempts"]
            row["successes"] += result["successes"]
            row["tasks"] += 1
            row["tasks_solved"] += int(result["successes"] > 0)
    for row in out.values():
        lo, hi = wilson(row["successes"], row["attempts"])
        row["rate"] = round(row["successes"] / row["attempts"], 6) if row["attempts"] else 0.0
        row["ci95"] = [round(lo, 6), round(hi, 6)]
    return dict(sorted(out.items(), key=lambda kv: rung_order(kv[0])))


def rung_order(rung: str) -> tuple[int, str]:
    """Ladder order: random, heuristic, the other inductive baselines by name, the planner."""
    return ({RANDOM: 0, HEURISTIC: 1, PLANNER: 9}.get(rung, 2), rung)


def inductive_rungs(rates: dict[str, Any]) -> list[str]:
    """The scripted inductive baselines among a suite's rungs (all but random and the planner)."""
    return [r for r in rates if r not in (RANDOM, PLANNER)]


def suite_problems(cal: Calibration, rates: dict[str, dict[str, Any]]) -> list[str]:
    """Each suite-level target the ladder rates miss, as a sentence (empty: calibrated)."""
    problems = []
    rnd = rates.get(RANDOM)
    if rnd is not None and rnd["rate"] > cal.random_ceiling:
        problems.append(f"random succeeds in {rnd['rate']:.0%} of attempts "
                        f"(ceiling {cal.random_ceiling:.0%})")
    plan = rates.get(PLANNER)
    if plan is not None and plan["rate"] < cal.planner_floor:
        problems.append(f"the with-rules planner succeeds on {plan['rate']:.0%} "
                        f"(floor {cal.planner_floor:.0%})")
    inductive = inductive_rungs(rates)
    if cal.inductive is not None and inductive:
        best = max(inductive, key=lambda r: rates[r]["rate"])
        lo, hi = cal.inductive
        if not lo <= rates[best]["rate"] <= hi:
            problems.append(f"the best inductive baseline ({best}) succeeds on "
                            f"{rates[best]['rate']:.0%} (target {lo:.0%}-{hi:.0%})")
    return problems
