"""The Gymnasium-shaped base for every arena-gen env: text in, text out, budget as truncation.

Subclasses write the rules (one transition function per env); this class owns what is common:
turn counting, the turn budget, malformed actions that cost a turn and never raise, and the
``info`` keys every judge and log relies on (``valid``, ``turn``, ``turns_left``, ``success``).
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ..core.task import Task

MAX_TEXT = 100_000


@dataclass
class Outcome:
    """What one transition did: the feedback line, whether the action was well-formed, reward."""

    feedback: str
    valid: bool = True
    reward: float = 0.0
    terminated: bool = False


class TextEnv(gym.Env[str, str]):
    """Base class: subclasses implement ``_start``, ``_transition``, ``_observe`` and ``_state``."""

    metadata: dict[str, Any] = {"render_modes": ["ansi"]}
    #: The env name in the registry; subclasses set it.
    name: str = ""

    def __init__(self, task: Task | dict[str, Any], render_mode: str | None = None) -> None:
        self.task = task if isinstance(task, Task) else Task.from_dict(task)
        self.budget = int(self.task.budget)
        self.render_mode = render_mode
        charset = string.printable + "…→←·–—×"
        self.action_space = spaces.Text(max_length=MAX_TEXT, charset=charset)
        self.observation_space = spaces.Text(max_length=MAX_TEXT, charset=charset)
        self.turn = 0
        self._over = False
        self._last_obs = ""

    # -- subclass hooks -------------------------------------------------------------------------
    def _start(self) -> None:
        """Set the initial state from ``self.task.world``."""
        raise NotImplementedError

    def _transition(self, action: str) -> Outcome:
        """Apply one action (the env's rules); malformed input returns ``valid=False``."""
        raise NotImplementedError

    def _observe(self) -> str:
        """The state as the agent sees it."""
        raise NotImplementedError

    def _state(self) -> dict[str, Any]:
        """Structured state for judges and logs (JSON-serialisable)."""
        raise NotImplementedError

    def intro(self) -> str:
        """The opening text: what the agent is told at the start (``public``)."""
        return str(self.task.public.get("intro", ""))

    @property
    def success(self) -> bool:
        """Whether the goal holds now."""
        raise NotImplementedError

    @staticmethod
    def random_action(public: dict[str, Any], rng: np.random.Generator) -> str:
        """A random, sensible action drawn from what the agent is told (the random agent's move)."""
        raise NotImplementedError

    def sample_action(self, rng: np.random.Generator) -> str:
        """A random, sensible action for this episode."""
        return self.random_action(self.task.public, rng)

    # -- Gymnasium API --------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        self.turn = 0
        self._over = False
        self._start()
        obs = f"{self.intro()}\n{self._observe()}".strip()
        self._last_obs = obs
        return obs, self._info(valid=True)

    def step(self, action: Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        if self._over:
            info = self._info(valid=False)
            info["feedback"] = "The episode is over; call reset() to start again."
            return self._last_obs, 0.0, False, True, info
        text = action if isinstance(action, str) else str(action)
        self.turn += 1
        try:
            outcome = self._transition(text)
        except (ValueError, TypeError, KeyError, IndexError, OverflowError) as exc:
            outcome = Outcome(feedback=f"Invalid action: {exc}", valid=False)
        terminated = bool(outcome.terminated)
        truncated = not terminated and self.turn >= self.budget
        self._over = terminated or truncated
        obs = f"{outcome.feedback}\n{self._observe()}"
        self._last_obs = obs
        info = self._info(valid=outcome.valid)
        info["feedback"] = outcome.feedback
        return obs, float(outcome.reward), terminated, truncated, info

    def render(self) -> str:
        return self._last_obs

    def _info(self, *, valid: bool) -> dict[str, Any]:
        info = {"valid": valid, "turn": self.turn, "turns_left": self.budget - self.turn,
                "success": bool(self.success)}
        info.update(self._state())
        return info
