"""The random agent: uniform over the env's sensible action space (the paper's random baseline)."""

from __future__ import annotations

from typing import Any

import numpy as np

from arena_gen.core import registry
from arena_gen.core.agent import TaskView


class RandomAgent:
    """Draws each action from the env's ``random_action`` with a seeded per-attempt RNG."""

    name = "random"
    privileged = False

    def __init__(self) -> None:
        self._public: dict[str, Any] = {}
        self._draw: Any = None
        self._rng: np.random.Generator | None = None

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        self._public = view.public
        self._draw = registry.get(view.env, view.env_version).load("game").random_action
        self._rng = rng

    def act(self, observation: str) -> str:
        assert self._rng is not None, "reset() first"
        return str(self._draw(self._public, self._rng))
