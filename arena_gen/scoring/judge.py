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
"""

from __future__ import annotations

import json
from typing import Any

from arena_gen.core import registry
from arena_gen.core.budget import harness_budget
from arena_gen.core.game import play
from arena_gen.core.protocol import DEFAULT_HARNESS
from arena_gen.core.task import Task

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


def judge(task: Task, trajectory: dict[str, Any], budget: int | None = None
          ) -> tuple[list[dict[str, Any]], bool]:
    """Findings for one trajectory replayed within ``budget`` steps (the one the attempt ran
    under, from :func:`owned_budget`; default the task's), and whether its recorded outcome
    disagrees with the replay."""
    game = registry.make_game(task)
    result = play(game, actions_of(trajectory),
                  budget=int(task.budget if budget is None else budget))
    facts = game.facts(result.final)
    findings = [check.finding() for check in game.checks(facts)]
    claimed = trajectory.get("final_info") or {}
    replayed = json.loads(json.dumps(facts.to_dict()))  # as recorded: lists, not tuples
    mismatch = (bool(trajectory.get("success")) != result.success
                or any(k in claimed and claimed[k] != v for k, v in replayed.items())
                or result.steps != len(trajectory.get("turns") or []))
    return findings, mismatch
