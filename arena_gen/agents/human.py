"""A person at the terminal: sees exactly the observation an agent sees and types the action."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .base import TaskView


class HumanAgent:
    """Prints each observation and reads one line of input as the action."""

    name = "human"
    privileged = False

    def __init__(self, read: Callable[[str], str] | None = None,
                 write: Callable[[str], None] | None = None) -> None:
        self._read = read or input
        self._write = write or print

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        self._write(f"== {view.task_id} ({view.env}), {view.budget} turns ==")
        if view.rules_text:
            self._write("Rules:\n" + view.rules_text)

    def act(self, observation: str) -> str:
        self._write("\n" + observation)
        try:
            return self._read("action> ")
        except EOFError:
            return ""
