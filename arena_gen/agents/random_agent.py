"""The random agent: uniform over the env's sensible action space (the paper's random baseline)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from arena_gen.core import registry
from arena_gen.core.agent import TaskView
from arena_gen.core.probes import Probe, guess, guess_stream


class RandomAgent:
    """Draws each action from the env's ``random_action`` with a seeded per-attempt RNG."""

    name = "random"
    privileged = False

    def __init__(self) -> None:
        self._public: dict[str, Any] = {}
        self._draw: Any = None
        self._rng: np.random.Generator | None = None
        self._guess: np.random.Generator | None = None

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        self._public = view.public
        self._draw = registry.get(view.env, view.env_version).load("game").random_action
        self._rng = rng
        self._guess = guess_stream(rng)  # apart: probes never change the actions drawn

    def act(self, observation: str) -> str:
        assert self._rng is not None, "reset() first"
        return str(self._draw(self._public, self._rng))

    def answer_probes(self, probes: Sequence[Probe]) -> list[str]:
        """A uniform guess among each probe's choices (its own stream beside the actions')."""
        assert self._guess is not None, "reset() first"
        return guess(probes, self._guess)
