"""Witness replay: play a certificate's plan through the task's game and report what happened."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arena_gen.core import registry
from arena_gen.core.errors import VerificationError
from arena_gen.core.game import play
from arena_gen.core.task import Task


@dataclass
class ReplayResult:
    """What a replayed plan did: success, turns used, total reward and the final facts."""

    success: bool
    steps: int
    total_reward: float
    final_info: dict[str, Any]


def replay(task: Task, actions: Sequence[str] | None = None) -> ReplayResult:
    """Play ``actions`` (default: the witness) from the start within the task's budget."""
    game = registry.make_game(task)
    plan = task.certificate.witness if actions is None else actions
    result = play(game, plan, budget=int(task.budget))
    return ReplayResult(success=result.success, steps=result.steps,
                        total_reward=result.total_reward,
                        final_info=game.facts(result.final).to_dict())


def check_witness(task: Task) -> ReplayResult:
    """Replay the witness and raise VerificationError unless it proves the certificate."""
    cert = task.certificate
    result = replay(task)
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
    spec = registry.for_task(task)
    if spec.replay_check is not None:  # env-specific facts, e.g. the oracle's recorded value
        spec.load("replay_check")(task, result)
    return result
