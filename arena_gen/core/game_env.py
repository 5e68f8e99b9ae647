"""The one text env: any :class:`~arena_gen.core.game.Game` as a Gymnasium env.

The game owns the rules; this class owns what every env shares: turn counting, the turn budget
(as truncation), malformed actions (the game's reject rule: one turn spent, ``valid`` False,
never an exception) and the ``info`` keys every log relies on (``valid``, ``turn``,
``turns_left``, ``success``, ``feedback`` and the game's typed facts). Only the game's
:class:`~arena_gen.core.game.ActionError` becomes agent feedback: a bug inside the rules raises.
A harness :class:`~arena_gen.core.protocol.Protocol` may override the budget and hide the
turns-left and feedback lines of observations; it never touches the rules.
"""

from __future__ import annotations

import copy
import string
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from arena_gen.core.game import MAX_TEXT, Event, Game, TaskLike
from arena_gen.core.protocol import Protocol, protocol_budget

__all__ = ["MAX_TEXT", "OVER", "GameEnv", "text_space"]
#: The feedback of a step taken after the episode ended.
OVER = "The episode is over; call reset() to start again."


#: Built once: a ``Text`` space's constructor indexes its charset, a fifth of a short episode.
_TEXT_SPACE = spaces.Text(max_length=MAX_TEXT, charset=string.printable + "…→←·–—×")


def text_space() -> spaces.Text:
    """The action and observation space of every text env (one owner: the vector env reuses it):
    a shallow copy of one prototype, so each space has its own random generator (unseeded, as a
    new space) and shares only the read-only charset tables."""
    return copy.copy(_TEXT_SPACE)


class GameEnv(gym.Env[str, str]):
    """A text env playing ``game``; ``task`` gives the budget (see the module docstring)."""

    metadata: dict[str, Any] = {"render_modes": ["ansi"]}

    def __init__(self, game: Game[Any, Any, Any], render_mode: str | None = None,
                 protocol: Protocol | None = None) -> None:
        self.render_mode = render_mode
        self.action_space = text_space()
        self.observation_space = text_space()
        self.load(game, protocol)

    def load(self, game: Game[Any, Any, Any], protocol: Protocol | None = None) -> None:
        """Play ``game`` from now on (call :meth:`reset` next): the env as a new one for it,
        its spaces and random generator kept (a vector env's sub-env plays a new task at every
        reset; building the spaces again was a tenth of a short episode)."""
        self.game = game
        self.task: TaskLike = game.task
        self.protocol = protocol or Protocol()
        self.budget = protocol_budget(self.protocol, self.task)
        self.turn = 0
        self.state: Any = game.initial()
        self._over = False
        self._last_obs = ""

    @property
    def success(self) -> bool:
        """Whether the game's success holds now."""
        return self.game.success(self.state)

    def sample_action(self, rng: np.random.Generator) -> str:
        """A random, sensible action for this episode."""
        return self.game.random_action(self.task.public, rng)

    def observe(self, feedback: str | None = None) -> str:
        """Feedback (or the intro at reset), the rendered state and the turns left."""
        head = self.game.intro() if feedback is None else feedback
        if feedback is not None and not self.protocol.show_feedback:
            head = ""
        parts = [head, self.game.render(self.state)]
        if self.game.shows_turns_left and self.protocol.show_turns_left:
            parts.append(f"Turns left: {self.budget - self.turn}")
        text = "\n".join(filter(None, parts))  # the non-empty parts (a generator costs 2.5x)
        return text.strip() if feedback is None else text

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        self.turn = 0
        self._over = False
        self.state = self.game.initial()
        self._last_obs = self.observe()
        return self._last_obs, self._info(valid=True)

    def step(self, action: Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        if self._over:
            info = self._info(valid=False)
            info["feedback"] = OVER
            return self._last_obs, 0.0, False, True, info
        event = self._act(action)
        terminated, truncated = self._settle(event)
        info = self._info(valid=event.valid)
        info["feedback"] = event.feedback
        return self._last_obs, float(event.reward), terminated, truncated, info

    def step_lean(self, action: Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """:meth:`step` for a caller that reads no facts (a training loop): the same
        observation, reward and flags; ``info`` is ``{"success": ...}`` on a step that ends
        the episode and empty otherwise (building the facts is a third of a lights step)."""
        if self._over:
            return self._last_obs, 0.0, False, True, {"success": self.success}
        event = self._act(action)
        terminated, truncated = self._settle(event)
        info: dict[str, Any] = {"success": self.success} if self._over else {}
        return self._last_obs, float(event.reward), terminated, truncated, info

    def _act(self, action: Any) -> Event:
        """Spend a turn on ``action`` (text, or anything ``str`` turns into text)."""
        text = action if isinstance(action, str) else str(action)
        self.turn += 1
        self.state, event = self.game.act(self.state, text)
        return event

    def _settle(self, event: Event) -> tuple[bool, bool]:
        """After a turn: whether the episode terminated (by the rules) or was truncated (by the
        budget), and the observation; both step methods share it."""
        terminated = self.game.done(self.state)
        truncated = not terminated and self.turn >= self.budget
        self._over = terminated or truncated
        self._last_obs = self.observe(event.feedback)
        return terminated, truncated

    def render(self) -> str:
        return self._last_obs

    def _info(self, *, valid: bool) -> dict[str, Any]:
        facts = self.game.facts(self.state)  # once: success reads the same facts
        info: dict[str, Any] = {"valid": valid, "turn": self.turn,
                                "turns_left": self.budget - self.turn,
                                "success": self.game.met(facts)}
        info.update(facts.to_dict())
        return info
