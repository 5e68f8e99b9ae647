"""``check_env``: the invariants every registered env must keep, run for each by the test suite.

Same seed gives identical bytes; the certificate witness replays to success in exactly
``min_steps`` turns; the task's JSON round-trips; random and malformed actions never raise;
the task's rubric is its game's own and the game's checks emit exactly its items, in order, in
every state the witness passes through (:func:`check_rubric`).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from arena_gen.core.canon import canonical_json
from arena_gen.core.game import checks_problem, play, rubric_problem
from arena_gen.core.registry import EnvSpec
from arena_gen.core.replay import check_witness
from arena_gen.core.schema import validate_task
from arena_gen.core.task import Task

#: Malformed actions every env must survive (with ``info["valid"] = False``).
GARBAGE = ["", " ", "\n", "-1", "1.5", "999999999999999999999", "B", "None", "{", "}", "[]",
           '{"buy": {"S0": -3}}', "not a move", "<action>1</action>", "\x00", "é", "🙂",
           "0" * 5000, "pip install", "python run.py", "' or 1=1 --", "__import__('os')"]


class EnvCheckError(AssertionError):
    """An env broke one of the invariants."""


def _roll(spec: EnvSpec, task: Task, actions: list[str]) -> str:
    env = spec.make(task)
    obs, info = env.reset(seed=0)
    out: list[Any] = [obs, info]
    for action in actions:
        obs, reward, terminated, truncated, info = env.step(action)
        out.append([obs, reward, terminated, truncated, info])
        if terminated or truncated:
            obs, info = env.reset(seed=0)
            out.append([obs, info])
    return canonical_json(out)


def check_rubric(spec: EnvSpec, task: Task) -> None:
    """Raise EnvCheckError naming the item unless ``task.rubric`` is ``spec``'s game rubric and
    the game's checks emit exactly its ids, in order, at the start and after every witness turn
    (a check id the rubric lacks is never scored, so a perfect episode would score 0)."""
    problem = rubric_problem(spec.load("game"), task.params, task.world, task.rubric)
    if problem is not None:
        raise EnvCheckError(f"{task.id}: {problem}")
    game = spec.make_game(task)
    run = play(game, task.certificate.witness, budget=int(task.budget))
    for turn, state in enumerate(run.states):
        problem = checks_problem(game, state, task.rubric)
        if problem is not None:
            when = "at the start" if turn == 0 else f"after witness turn {turn}"
            raise EnvCheckError(f"{task.id}: {when}: {problem}")


def check_env(spec: EnvSpec, task: Task, *, n_random: int = 200, seed: int = 0) -> None:
    """Raise EnvCheckError unless the env keeps every invariant on ``task``."""
    check_rubric(spec, task)
    # Task JSON round-trip and schema.
    data = json.loads(canonical_json(task.to_dict()))
    validate_task(data)
    if Task.from_dict(data).to_dict() != task.to_dict():
        raise EnvCheckError(f"{task.id}: task JSON does not round-trip")
    # Witness replays to success in exactly min_steps turns.
    result = check_witness(task)
    if task.certificate.min_steps is not None and result.steps != task.certificate.min_steps:
        raise EnvCheckError(f"{task.id}: witness took {result.steps} turns, "
                            f"min_steps {task.certificate.min_steps}")
    # Random and malformed actions never raise, and malformed ones are flagged.
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, 1])))
    env = spec.make(task)
    env.reset(seed=seed)
    actions: list[str] = []
    for i in range(n_random):
        action = env.sample_action(rng) if i % 2 == 0 else GARBAGE[int(rng.integers(len(GARBAGE)))]
        actions.append(action)
        obs, reward, terminated, truncated, info = env.step(action)
        if not isinstance(obs, str) or not isinstance(info, dict) or "valid" not in info:
            raise EnvCheckError(f"{task.id}: step({action!r}) broke the return contract")
        if action in ("", " ", "None", "not a move") and info["valid"]:
            raise EnvCheckError(f"{task.id}: malformed action {action!r} was accepted")
        json.dumps(info)  # info must be JSON-serialisable for logs
        if terminated or truncated:
            env.reset(seed=seed)
    # Same seed and actions give the same bytes.
    plan = list(task.certificate.witness) + actions
    if _roll(spec, task, plan) != _roll(spec, task, plan):
        raise EnvCheckError(f"{task.id}: two runs of the same actions differ")
