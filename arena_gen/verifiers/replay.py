"""Witness replay: run a certificate's plan through the real env and report what happened."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..core import registry
from ..core.errors import VerificationError
from ..core.task import Task


@dataclass
class ReplayResult:
    """What a replayed plan did: success, turns used, total reward and the last info."""

    success: bool
    steps: int
    total_reward: float
    final_info: dict[str, Any]


def make_env(task: Task) -> Any:
    """Instantiate the registered env class for a task."""
    return registry.get(task.env).load("env")(task)


def replay(task: Task, actions: Sequence[str] | None = None) -> ReplayResult:
    """Play ``actions`` (default: the witness) from reset; stop when the episode ends."""
    env = make_env(task)
    env.reset()
    plan = task.certificate.witness if actions is None else actions
    steps, total, info = 0, 0.0, {}
    for action in plan:
        _, reward, terminated, truncated, info = env.step(action)
        steps += 1
        total += reward
        if terminated or truncated:
            break
    return ReplayResult(success=bool(env.success), steps=steps, total_reward=total,
                        final_info=info)


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
    spec = registry.get(task.env)
    if "replay_check" in spec.extras:  # env-specific facts, e.g. the oracle's recorded value
        spec.load("replay_check")(task, result)
    return result
