"""Harness protocols: what an episode shows and allows, apart from the rules of the game.

A harness (``--harness``) is a way of playing an agent against a task: arena-gen's own, or the
OdysseyArena paper's (``odyssey``). The prompt side lives with the agents
(:mod:`arena_gen.agents.harness`); this is the env side, a :class:`Protocol` the text env and the
episode read. It never changes a rule: every game keeps its one transition function and its one
reject rule. It only sets

- ``budget``: the agent steps of an episode (the reference runs a fixed number of steps per env);
- ``show_turns_left``: whether observations end with the ``Turns left: N`` line;
- ``show_feedback``: whether observations start with the game's feedback line (the reference's
  trading and energy envs print only the state; the feedback stays in ``info`` and the log).

Each env's ``odyssey`` facts (the reference's step count, whether its observation shows the
feedback line, its history window) are an :class:`OdysseyProfile` on the env's spec. For daily
envs (one step per day) the budget is never below the world's horizon (the reference's 120 is
its Lite horizon), so a longer suite keeps the same no-slack rule: every lost step is a lost day.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: Harness names accepted by ``--harness`` and ``-T harness=``.
HARNESSES = ("arena-gen", "odyssey")
DEFAULT_HARNESS = "arena-gen"

@dataclass(frozen=True)
class Protocol:
    """The env-side options of a harness (the defaults are arena-gen's own protocol)."""

    harness: str = DEFAULT_HARNESS
    budget: int | None = None
    show_turns_left: bool = True
    show_feedback: bool = True


def check_harness(name: str) -> str:
    """``name`` if it is a known harness, else a ValueError naming the choices."""
    if name not in HARNESSES:
        raise ValueError(f"unknown harness {name!r}; choose one of {', '.join(HARNESSES)}")
    return name


def protocol_budget(protocol: Protocol, task: Any) -> int:
    """The steps ``protocol`` gives ``task``: its own budget, or the task's when it sets none."""
    return int(task.budget if protocol.budget is None else protocol.budget)
