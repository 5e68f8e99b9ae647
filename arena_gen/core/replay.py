"""Witness replay: play a certificate's plan through the task's game and report what happened."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from arena_gen.core import registry
from arena_gen.core.errors import VerificationError
from arena_gen.core.game import items_problem, play, rubric_problem
from arena_gen.core.task import Task


@dataclass
class ReplayResult:
    """What a replayed plan did: success, turns used, total reward, the final facts, and the
    ids of the game's checks at the start and at the end (what a judge would emit)."""

    success: bool
    steps: int
    total_reward: float
    final_info: dict[str, Any]
    start_items: list[str] = field(default_factory=list)
    final_items: list[str] = field(default_factory=list)


def replay(task: Task, actions: Sequence[str] | None = None) -> ReplayResult:
    """Play ``actions`` (default: the witness) from the start within the task's budget."""
    game = registry.make_game(task)
    plan = task.certificate.witness if actions is None else actions
    result = play(game, plan, budget=int(task.budget))
    final = game.facts(result.final)
    return ReplayResult(success=result.success, steps=result.steps,
                        total_reward=result.total_reward, final_info=final.to_dict(),
                        start_items=[c.item for c in game.checks(game.facts(result.states[0]))],
                        final_items=[c.item for c in game.checks(final)])


def check_witness(task: Task) -> ReplayResult:
    """Replay the witness and raise VerificationError unless it proves the certificate, and
    unless the task's rubric is its game's and the game's checks emit exactly its items (at the
    start and after the witness): otherwise a success would score as a failure."""
    cert = task.certificate
    spec = registry.for_task(task)
    game = spec.load("game")
    problem = rubric_problem(game, task.params, task.world, task.rubric)
    result = replay(task)
    for items, when in ((result.start_items, "at the start"),
                        (result.final_items, "after the witness")):
        problem = problem or items_problem(items, task.rubric, f"{game.__name__}.checks {when}")
    if problem is not None:
        raise VerificationError(f"task {task.id}: {problem}")
    if not cert.solvable:
        return result
    expected = len(cert.witness)
    if cert.min_steps is not None and expected != cert.min_steps:
        raise VerificationError(f"task {task.id}: witness has {expected} actions but "
                                f"min_steps is {cert.min_steps}")
    if not result.success:
        raise VerificationError(f"task {task.id}: witness does not reach success")
    if result.steps != expected:
        raise VerificationError(f"task {task.id}: witness ended after {result.steps} of "
                                f"{expected} actions")
    if spec.replay_check is not None:  # env-specific facts, e.g. the oracle's recorded value
        spec.load("replay_check")(task, result)
    return result
