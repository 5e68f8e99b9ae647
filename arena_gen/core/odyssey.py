"""The env side of the odyssey harness's prompt and reply rules: the types an env package fills in.

The OdysseyArena reference harness words each env's prompt its own way and treats some replies
specially (a lost step, a replayed action). Those facts belong to the env, so each env package
declares an :class:`OdysseyPrompt` and a :data:`ReplyRule` (named by its
:class:`~arena_gen.core.registry.OdysseyProfile`); the generic harness
(:mod:`arena_gen.agents.harness`, :mod:`arena_gen.agents.odyssey_prompts`) only assembles them.
They live in core because env packages may not import the agents.

The generic default, used for an env without an odyssey profile (or a profile that names no
prompt or reply rule): a neutral role line; the task's ``intro`` as the goal and its
``action_format`` as the action help; one history entry per kept step, the observation it was
taken on then ``Action sent: <action>``, entries joined by a blank line; the current observation
in full (intro dropped); and every reply plays its action as sent (no tag: the empty action),
every turn kept in the history.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

#: The role line of an env that names none.
GENERIC_ROLE = "You are an agent in a text environment."


@dataclass(frozen=True)
class Play:
    """What a reply does: the action text played, whether history keeps the turn, whether it
    replays an earlier action (so an env's reply rule can say so without importing agents)."""

    action: str
    kept: bool = True
    replayed: bool = False


class PastTurn(Protocol):
    """One past turn as a reply rule reads it (the agents' ``Turn`` has this shape)."""

    @property
    def observation(self) -> str:
        """What the agent saw before acting."""

    @property
    def action(self) -> str | None:
        """The action text it sent (None: its reply had no tag)."""

    @property
    def kept(self) -> bool:
        """Whether the harness's history keeps this turn."""


@dataclass(frozen=True)
class Seen:
    """An observation as the prompt may show it, split once by the harness so envs need no
    parsing: the whole text, and its first line (the game's feedback) apart from the rest."""

    #: The observation with the task's intro (already in the prompt) dropped.
    text: str
    #: Its first line, the game's feedback (None for the first observation, which has none).
    feedback: str | None
    #: Everything after that line (the whole text for the first observation).
    state: str


@dataclass(frozen=True)
class Step:
    """One kept past step, as a history entry is written from it."""

    #: The step's position among all steps taken so far, from 0 (lost steps count too).
    index: int
    #: The action text the agent sent ("" for none).
    action: str
    #: The observation the step was taken on, and the one it led to.
    before: Seen
    after: Seen


#: Goal and action help of an env's prompt, from the task's ``public`` view.
Brief = Callable[[Mapping[str, Any]], tuple[str, str]]
#: One history entry of a kept step.
Entry = Callable[[Step], str]
#: The current observation as the prompt's "Current state" section shows it.
StateText = Callable[[Seen], str]
#: What a reply plays: ``rule(action or None, public, past turns) -> Play``.
ReplyRule = Callable[[str | None, Mapping[str, Any], Sequence[PastTurn]], Play]


def generic_brief(public: Mapping[str, Any]) -> tuple[str, str]:
    """The task's own intro as the goal and its action format as the help (no env wording)."""
    return (str(public.get("intro", "")),
            f"Action format: {public.get('action_format', 'free text')}.")


def generic_entry(step: Step) -> str:
    """The observation a step was taken on, then the action: true of any env."""
    return f"{step.before.text}\nAction sent: {step.action}"


def whole_state(seen: Seen) -> str:
    """The current observation in full (the feedback line included, if the env shows one)."""
    return seen.text


def play_as_sent(action: str | None, public: Mapping[str, Any],
                 turns: Sequence[PastTurn]) -> Play:
    """Every reply plays its action (no tag: the empty action, the game's malformed feedback)."""
    return Play("" if action is None else action)


@dataclass(frozen=True)
class OdysseyPrompt:
    """How an env words its odyssey prompt; every field defaults to the generic one."""

    #: The message's first line.
    role: str = GENERIC_ROLE
    #: The "Goal" and "Actions" sections.
    brief: Brief = generic_brief
    #: One "Steps so far" entry per kept step.
    entry: Entry = generic_entry
    #: What separates two history entries.
    joiner: str = "\n\n"
    #: The "Current state" section.
    state: StateText = whole_state


#: The prompt of an env that declares none.
GENERIC_PROMPT = OdysseyPrompt()

__all__ = ["GENERIC_PROMPT", "GENERIC_ROLE", "Brief", "Entry", "OdysseyPrompt", "PastTurn",
           "Play", "ReplyRule", "Seen", "StateText", "Step", "generic_brief", "generic_entry",
           "play_as_sent", "whole_state"]
