"""The agent protocol: ``reset(view, mode, rng)`` then ``act(observation) -> action text``.

An agent may return a :class:`Reply` instead of plain text, and raises :class:`InfraError`
when its infrastructure fails; the runner records both (they live here, below the runner).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from arena_gen.core.task import Task

if TYPE_CHECKING:  # numpy is not needed to import the protocol (``arena-gen show`` stays cheap)
    import numpy as np

MODES = ("inductive", "with-rules")


class InfraError(Exception):
    """The agent's infrastructure failed (e.g. HTTP errors after every retry)."""


class QuitEpisode(Exception):
    """The player chose to stop (``:quit``, Ctrl-C, end of input): the episode ends as ``quit``,
    not as an agent error."""


@dataclass
class Reply:
    """An agent turn with more than the action: raw output, tokens, reasoning."""

    action: str
    raw: str | None = None
    #: the usage as reported; the episode records only its real counts (core/usage.py)
    tokens: dict[str, Any] | None = None
    reasoning: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class TaskView:
    """What an agent may see of a task: ``public``, ``rules_text`` in with-rules mode, and, for
    the oracle only, the hidden ``world`` and the certificate witness."""

    task_id: str
    env: str
    budget: int
    public: dict[str, Any]
    rules_text: str | None = None
    world: dict[str, Any] | None = None
    witness: tuple[str, ...] | None = None
    env_version: int = 1

    @classmethod
    def of(cls, task: Task, mode: str, *, privileged: bool = False) -> TaskView:
        """Build the view an agent is entitled to in ``mode``."""
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        return cls(task_id=task.id, env=task.env, budget=task.budget, public=task.public,
                   rules_text=task.rules_text if mode == "with-rules" else None,
                   world=task.world if privileged else None,
                   witness=tuple(task.certificate.witness) if privileged else None,
                   env_version=task.env_version)


class Agent(Protocol):
    """Anything that plays an episode turn by turn."""

    name: str
    #: True for agents that must see the hidden world (the oracle).
    privileged: bool

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None: ...

    def act(self, observation: str) -> str: ...
