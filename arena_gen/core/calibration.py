"""Calibration targets: what a suite's baseline ladder must show for the suite to measure induction.

A task is certified solvable by its verifier; a *calibrated* task is also certified neither
trivial (the seeded random agent solves it in fewer than ``trivial_share`` of its attempts) nor
unknowable (the with-rules planner, which reads only the rules text, solves it). Those two are
per-task rules, enforced at build by resampling from the task's own stream. The suite-level
bands (best scripted inductive baseline, planner floor, random ceiling) are checked once every
task is built and recorded in the manifest. A calibration may also make resistance to
model-free play a per-task rule (``random_epsilon``, ``reject_model_free``; issue 38): then
each task is unsolved by every model-free rung and the draw-level bands are reported, not
enforced (:func:`binding_problems`).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

#: The rungs of every ladder, in order: seeded random, the env's inductive heuristic (and any
#: extra scripted inductive baselines), the with-rules planner.
RANDOM, HEURISTIC, PLANNER = "random", "heuristic", "planner"

#: What a rung is (recorded in ladders of format 2): seeded random; model-free (memory of what
#: was tried, no model of the rules); inductive (learns the hidden rules); the with-rules planner.
KINDS = ("random", "model_free", "inductive", "planner")

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
    #: Suite: the best inductive rung beats the best model-free rung by at least this (None: no
    #: such target; only ladders of format 2 have model-free rungs).
    induction_margin: float | None = None
    #: Suite: the best inductive rung succeeds on at most this share (Challenge: "harder than
    #: Lite" checked by the suite's own build, from a ceiling measured out of sample).
    inductive_ceiling: float | None = None
    #: Per task: a task whose random-policy success probability bound (the certificate's
    #: ``resistance.random.bound``) exceeds this is rejected (None: no bound computed).
    random_epsilon: float | None = None
    #: Per task: a task any model-free rung solves is rejected.
    reject_model_free: bool = False

    @property
    def resistant(self) -> bool:
        """Whether each task must prove it resists model-free play (and its certificate says
        how: the random bound, each model-free rung's outcome)."""
        return self.random_epsilon is not None or self.reject_model_free

    def to_dict(self) -> dict[str, Any]:
        """The plain dict the manifest records (targets a preset does not set are left out, so
        manifests built before they existed keep their bytes)."""
        out = dataclasses.asdict(self)
        out["inductive"] = list(self.inductive) if self.inductive is not None else None
        for key in ("induction_margin", "inductive_ceiling", "random_epsilon"):
            if out[key] is None:
                del out[key]
        if not out["reject_model_free"]:
            del out["reject_model_free"]
        return out

    def task_problem(self, ladder: dict[str, Any],
                     random_bound: float | None = None) -> str | None:
        """Why a task's ladder (and random bound, when known) makes it unacceptable
        (``trivial``, ``unknowable``, ``model_free``, ``random``), or None."""
        rnd = ladder.get(RANDOM)
        if rnd and rnd["attempts"] and rnd["successes"] >= self.trivial_share * rnd["attempts"]:
            return (f"trivial (random solved {rnd['successes']} of {rnd['attempts']} "
                    f"attempts)")
        plan = ladder.get(PLANNER)
        if self.require_planner and plan is not None and plan["successes"] < plan["attempts"]:
            return "unknowable (the with-rules planner did not solve it)"
        return self.resistance_problem(ladder, random_bound)

    def resistance_problem(self, ladder: dict[str, Any],
                           random_bound: float | None) -> str | None:
        """Why a task does not resist model-free play (``model_free``: a model-free rung of
        ``ladder`` solved it; ``random``: its random-policy bound exceeds the epsilon), or
        None; a check this calibration does not switch on is skipped."""
        if self.reject_model_free:
            solved = sorted(r for r, row in ladder.items()
                            if row.get("kind") == "model_free" and row["successes"] > 0)
            if solved:
                return f"model_free (solved by the model-free rung {', '.join(solved)})"
        if (self.random_epsilon is not None and random_bound is not None
                and random_bound > self.random_epsilon):
            return (f"random (the random policy's success probability bound {random_bound:.3g} "
                    f"exceeds {self.random_epsilon:g})")
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
            if "kind" in result:
                row["kind"] = result["kind"]
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
    """Ladder order: random, heuristic, the other baselines by name, the planner."""
    return ({RANDOM: 0, HEURISTIC: 1, PLANNER: 9}.get(rung, 2), rung)


def rung_kind(rung: str, row: dict[str, Any]) -> str:
    """A rung's kind: recorded in format-2 ladders; before that every rung other than random
    and the planner was an inductive baseline."""
    if "kind" in row:
        return str(row["kind"])
    return {RANDOM: "random", PLANNER: "planner"}.get(rung, "inductive")


def inductive_rungs(rates: dict[str, Any]) -> list[str]:
    """The scripted inductive baselines among a suite's rungs."""
    return [r for r, row in rates.items() if rung_kind(r, row) == "inductive"]


def model_free_rungs(rates: dict[str, Any]) -> list[str]:
    """The model-free rungs among a suite's rungs (memory of what was tried, no rule model)."""
    return [r for r, row in rates.items() if rung_kind(r, row) == "model_free"]


#: The suite-level targets a per-task resistant calibration still enforces (each follows from
#: a per-task rule, so a miss is a bug); the others describe a draw and are only reported.
BINDING_WHEN_RESISTANT = ("random_ceiling", "planner_floor")


def suite_problems(cal: Calibration, rates: dict[str, dict[str, Any]]) -> list[str]:
    """Each suite-level target the ladder rates miss, as a sentence (empty: calibrated)."""
    return [text for _, text in suite_misses(cal, rates)]


def binding_problems(cal: Calibration, rates: dict[str, dict[str, Any]]) -> list[str]:
    """The misses that refuse a build: all of them, except that once every task is
    individually resistant (``cal.resistant``) only :data:`BINDING_WHEN_RESISTANT` remain."""
    return [text for target, text in suite_misses(cal, rates)
            if not cal.resistant or target in BINDING_WHEN_RESISTANT]


def reported_problems(cal: Calibration, rates: dict[str, dict[str, Any]]) -> list[str]:
    """The misses a resistant calibration reports without refusing the build."""
    return [text for target, text in suite_misses(cal, rates)
            if cal.resistant and target not in BINDING_WHEN_RESISTANT]


def suite_misses(cal: Calibration, rates: dict[str, dict[str, Any]]) -> list[tuple[str, str]]:
    """Each suite-level target the ladder rates miss: (target field, sentence)."""
    problems: list[tuple[str, str]] = []
    rnd = rates.get(RANDOM)
    if rnd is not None and rnd["rate"] > cal.random_ceiling:
        problems.append(("random_ceiling", f"random succeeds in {rnd['rate']:.0%} of attempts "
                        f"(ceiling {cal.random_ceiling:.0%})"))
    plan = rates.get(PLANNER)
    if plan is not None and plan["rate"] < cal.planner_floor:
        problems.append(("planner_floor", f"the with-rules planner succeeds on "
                                          f"{plan['rate']:.0%} (floor {cal.planner_floor:.0%})"))
    inductive = inductive_rungs(rates)
    if cal.inductive is not None and inductive:
        best = max(inductive, key=lambda r: rates[r]["rate"])
        lo, hi = cal.inductive
        if not lo <= rates[best]["rate"] <= hi:
            problems.append(("inductive", f"the best inductive baseline ({best}) succeeds on "
                                          f"{rates[best]['rate']:.0%} (target {lo:.0%}-{hi:.0%})"))
    if cal.inductive_ceiling is not None and inductive:
        best = max(inductive, key=lambda r: rates[r]["rate"])
        if rates[best]["rate"] > cal.inductive_ceiling:
            problems.append(("inductive_ceiling",
                             f"the best inductive baseline ({best}) succeeds on "
                             f"{rates[best]['rate']:.0%} (ceiling {cal.inductive_ceiling:.0%}: "
                             f"not harder than the suite it must be harder than)"))
    free = model_free_rungs(rates)
    if cal.induction_margin is not None and inductive and free:
        best = max(inductive, key=lambda r: rates[r]["rate"])
        best_free = max(free, key=lambda r: rates[r]["rate"])
        gap = rates[best]["rate"] - rates[best_free]["rate"]
        if gap < cal.induction_margin - 1e-9:
            problems.append(("induction_margin",
                             f"the best inductive baseline ({best}, {rates[best]['rate']:.0%}) "
                             f"beats the best model-free one ({best_free}, "
                             f"{rates[best_free]['rate']:.0%}) by {gap:.0%} "
                             f"(margin {cal.induction_margin:.0%})"))
    return problems
