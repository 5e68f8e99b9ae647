"""The one judge: replay a trajectory's actions through the task's game and read its checks.

A trajectory's claims are never trusted: its actions are played again through the game of the
task's own env version, and the findings come from the game's rubric checks on the replayed
final state (``Game.checks``: the same predicates that define success everywhere else). A
trajectory whose recorded final state or success disagrees with the replay is flagged
``replay_mismatch`` and scored by the replay, not by its claim.

The replay runs under the budget the attempt ran under, and that budget is not the
trajectory's to claim: it is what the run's harness gives the task through the one owner
(:func:`~arena_gen.core.budget.harness_budget`), e.g. 200 steps for a lights task played under
``odyssey`` whatever its own ``budget``. A trajectory that records another budget (or harness)
is flagged, gets a ``budget`` finding saying so, and is replayed under the owner's budget, so an
edited budget can never buy an attempt more steps. A trajectory without the field (older run
directories) is replayed under the owner's budget too.

The replay is also the only source of an attempt's figures (:class:`Replay`): its steps, its
success, which turns were valid, its repeated (state, action) pairs and its final facts (a
trading profit rate among them). The scorer reads no recorded ``steps``, ``success``,
``valid``, ``state`` or ``final_info``; a trajectory whose recorded ones disagree with the
replay is flagged, and counted by the replay.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from arena_gen.core import registry
from arena_gen.core.budget import harness_budget
from arena_gen.core.game import play
from arena_gen.core.protocol import DEFAULT_HARNESS
from arena_gen.core.task import Task
from arena_gen.scoring.metrics import repeated_pairs

#: Per-turn bookkeeping keys of a recorded ``info``; the rest are the game's facts.
BOOKKEEPING = ("valid", "feedback", "turn", "turns_left", "success")
#: The item of the finding that reports a recorded budget or harness the run's harness refutes
#: (never a rubric item: it costs no credit itself, the replay under the owner's budget does).
BUDGET_ITEM = "budget"


def actions_of(trajectory: dict[str, Any]) -> list[str]:
    """The action texts a trajectory sent, in order."""
    return [str(turn.get("action", "")) for turn in trajectory.get("turns") or []]


def owned_budget(task: Task, trajectory: dict[str, Any], harness: str
                 ) -> tuple[int, dict[str, Any] | None]:
    """The budget an attempt is judged under (what ``harness``, its run's, gives ``task``) and,
    when the trajectory records another budget or harness, the finding that says so."""
    owner = harness_budget(harness, task)
    claimed = trajectory.get("budget")
    played = trajectory.get("harness", DEFAULT_HARNESS)
    problems = []
    if claimed is not None and (type(claimed) is not int or claimed != owner):
        problems.append(f"records budget {claimed!r}")
    if played != harness:
        problems.append(f"records harness {played!r}")
    if not problems:
        return owner, None
    return owner, {"item": BUDGET_ITEM, "status": "violated",
                   "evidence": f"the trajectory {' and '.join(problems)}, but the run's "
                               f"{harness} harness gives this task {owner} steps: replayed "
                               f"under {owner}"}


@dataclass(frozen=True)
class Replay:
    """What replaying an attempt's actions did: every figure the scorer computes for it."""

    steps: int              # turns the game played (within the owner's budget)
    success: bool           # the game's success on the replayed final state
    invalid: int            # turns whose action the game rejected as malformed
    loops: int              # turns repeating the previous (state, action) pair, no progress
    budget: int             # the steps it was replayed under (the run's harness's)
    facts: dict[str, Any] = field(default_factory=dict)  # the final state's facts, JSON-ready
    error: str | None = None  # the game raised on a recorded action (the replay stopped there)

    def to_json_dict(self) -> dict[str, Any]:
        """The replay's figures as the findings line records them (facts left out)."""
        out: dict[str, Any] = {"steps": self.steps, "success": self.success,
                               "invalid_turns": self.invalid, "loop_turns": self.loops,
                               "budget": self.budget}
        if self.error is not None:
            out["error"] = self.error
        return out


def replay_trajectory(task: Task, trajectory: dict[str, Any], budget: int | None = None
                      ) -> tuple[list[dict[str, Any]], bool, Replay]:
    """Findings for one trajectory replayed within ``budget`` steps (the one the attempt ran
    under, from :func:`owned_budget`; default the task's), whether its recorded outcome
    disagrees with the replay, and the replay's figures. A game raising on a recorded action
    gives no finding met (item credit 0); the replay keeps the turns completed before it."""
    steps_budget = int(task.budget if budget is None else budget)
    actions = actions_of(trajectory)
    # an env_error attempt was recorded as such (its raising turn is not in ``turns``, so it
    # is never replayed): any other attempt whose replay raises claimed otherwise
    raised = trajectory.get("end_reason") != "env_error"
    try:
        game = registry.make_game(task)
        result = play(game, actions, budget=steps_budget, stop_on_error=True)
        facts = game.facts(result.final)
        replayed = json.loads(json.dumps(facts.to_dict()))  # as recorded: lists, not tuples
        states = [game.facts(s).to_dict() for s in result.states]  # facts compare by value
        findings = [] if result.error else [check.finding() for check in game.checks(facts)]
    except Exception as exc:  # the game cannot be built or started: nothing was played
        return [], raised, Replay(steps=0, success=False, invalid=0, loops=0,
                                  budget=steps_budget, error=f"{type(exc).__name__}: {exc}")
    figures = Replay(steps=result.steps, success=result.success,
                     invalid=sum(not e.valid for e in result.events),
                     loops=repeated_pairs(states, actions[:result.steps]),
                     budget=steps_budget, facts=replayed, error=result.error)
    turns = trajectory.get("turns") or []
    if result.error is not None:
        return [], raised, figures
    claimed = trajectory.get("final_info") or {}
    claimed = claimed if isinstance(claimed, dict) else {}
    mismatch = (bool(trajectory.get("success")) != result.success
                or any(k in claimed and claimed[k] != v for k, v in replayed.items())
                or result.steps != len(turns)
                or trajectory.get("steps", result.steps) != result.steps
                or any(isinstance(t, dict) and t.get("valid", e.valid) is not e.valid
                       for t, e in zip(turns, result.events, strict=False)))
    return findings, mismatch, figures


def judge(task: Task, trajectory: dict[str, Any], budget: int | None = None
          ) -> tuple[list[dict[str, Any]], bool]:
    """Findings for one trajectory replayed within ``budget`` steps, and whether its recorded
    outcome disagrees with the replay (:func:`replay_trajectory` without the figures)."""
    findings, mismatch, _ = replay_trajectory(task, trajectory, budget)
    return findings, mismatch
