"""The oracle agent: plays the certificate's witness plan; it must score 100 on every task."""

from __future__ import annotations

import numpy as np

from arena_gen.core.agent import TaskView


class OracleAgent:
    """Replays the verified witness, one action per turn (a hold/no-op text once it runs out)."""

    name = "oracle"
    privileged = True

    def __init__(self) -> None:
        self._plan: list[str] = []
        self._turn = 0

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        if view.witness is None:
            raise ValueError("the oracle needs a privileged task view")
        self._plan = list(view.witness)
        self._turn = 0

    def act(self, observation: str) -> str:
        action = self._plan[self._turn] if self._turn < len(self._plan) else ""
        self._turn += 1
        return action
