"""The one judge: replay a trajectory's actions through the task's game and read its checks.

A trajectory's claims are never trusted: its actions are played again through the game of the
task's own env version, and the findings come from the game's rubric checks on the replayed
final state (``Game.checks``: the same predicates that define success everywhere else). A
trajectory whose recorded final state or success disagrees with the replay is flagged
``replay_mismatch`` and scored by the replay, not by its claim.
"""

from __future__ import annotations

import json
from typing import Any

from arena_gen.core import registry
from arena_gen.core.game import play
from arena_gen.core.task import Task

#: Per-turn bookkeeping keys of a recorded ``info``; the rest are the game's facts.
BOOKKEEPING = ("valid", "feedback", "turn", "turns_left", "success")


def actions_of(trajectory: dict[str, Any]) -> list[str]:
    """The action texts a trajectory sent, in order."""
    return [str(turn.get("action", "")) for turn in trajectory.get("turns") or []]


def judge(task: Task, trajectory: dict[str, Any]) -> tuple[list[dict[str, Any]], bool]:
    """Findings for one trajectory, and whether its recorded outcome disagrees with the replay."""
    game = registry.make_game(task)
    result = play(game, actions_of(trajectory), budget=int(task.budget))
    facts = game.facts(result.final)
    findings = [check.finding() for check in game.checks(facts)]
    claimed = trajectory.get("final_info") or {}
    replayed = json.loads(json.dumps(facts.to_dict()))  # as recorded: lists, not tuples
    mismatch = (bool(trajectory.get("success")) != result.success
                or any(k in claimed and claimed[k] != v for k, v in replayed.items())
                or result.steps != len(trajectory.get("turns") or []))
    return findings, mismatch
