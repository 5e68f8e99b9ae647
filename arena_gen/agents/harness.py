"""Harnesses of the LLM agent: how a prompt is built, which tag counts, what a reply plays.

``arena-gen`` is arena-gen's own protocol (:mod:`.llm_prompts`: one system prompt for every env,
the last ``<action>`` tag counts, the whole history unless ``--history`` says otherwise).

``odyssey`` reproduces the OdysseyArena reference harness (``*/infer_multi_turn_*.py``) in
arena-gen's own words: one user message per step (no system prompt) holding the env's goal and
action help, the history in the reference's per-env shape and window, and the current state;
generation stops at ``</action>`` (sent as ``stop``), so the first ``<action>`` tag counts and a
missing closing tag is tolerated. What the reference's loop does with a reply (a lost step that
leaves no history, a replayed action) is the env's reply rule, and the wording and window are
the env's too: all of it is read from the task's env spec
(:class:`~arena_gen.core.registry.OdysseyProfile`, declared in the env package), so this module
knows no env. An env without a profile shows its whole history, and every reply plays its
action as sent (no tag: the empty action); its prompt is the generic one
(:mod:`.odyssey_prompts`).

The env side of the protocol (step budget, no turns-left line, no feedback line where the env's
profile says so) is :class:`~arena_gen.core.protocol.Protocol`, which the episode applies.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena_gen.agents.llm_parse import ACTION_CLOSE, ACTION_OPEN, extract_action, fold
from arena_gen.agents.llm_prompts import Turn, build_messages
from arena_gen.agents.odyssey_prompts import odyssey_messages, profile_of, prompt_of
from arena_gen.core import registry
from arena_gen.core.agent import TaskView
from arena_gen.core.odyssey import Play, play_as_sent
from arena_gen.core.protocol import DEFAULT_HARNESS, check_harness

#: Stop sequences of the odyssey harness: generation ends where the first action closes.
ODYSSEY_STOP = [ACTION_CLOSE]


def first_action(answer: str) -> str | None:
    """The text of the first ``<action>`` tag, closed or not (the server stops on the close)."""
    folded = fold(answer)
    start = folded.find(ACTION_OPEN)
    if start < 0:
        return None
    inner = start + len(ACTION_OPEN)
    close = folded.find(ACTION_CLOSE, inner)
    return answer[inner:len(answer) if close < 0 else close].strip()


class ArenaGenHarness:
    """arena-gen's own protocol (see :mod:`.llm_prompts`)."""

    name = DEFAULT_HARNESS
    stop: list[str] | None = None
    #: each turn's prompt extends the last one (the context policy keeps it so)
    prefix_stable = True

    def window(self, view: TaskView | None, history: int | None) -> int | None:
        """History entries shown: ``--history`` (all by default)."""
        return history

    def entries(self, turns: Sequence[Turn]) -> int:
        """How many history entries ``turns`` make (every turn is one)."""
        return len(turns)

    def __init__(self) -> None:
        #: past turns' messages, by turn number (see :func:`build_messages`)
        self._cache: dict[int, Any] = {}

    def messages(self, view: TaskView, rules_text: str | None, turns: Sequence[Turn],
                 observation: str, window: int | None) -> list[dict[str, str]]:
        """This turn's chat messages."""
        return build_messages(env=view.env, public=view.public, rules_text=rules_text,
                              history=turns, observation=observation, window=window,
                              budget=view.budget, version=view.env_version,
                              cache=self._cache)

    def extract(self, answer: str) -> str | None:
        """The action text of a reply: its last tag."""
        return extract_action(answer)

    def play(self, view: TaskView, action: str | None, turns: Sequence[Turn]) -> Play:
        """No tag plays the empty action (the env's malformed-action feedback)."""
        return play_as_sent(action, view.public, turns)


class OdysseyHarness(ArenaGenHarness):
    """The OdysseyArena reference protocol (see the module docstring)."""

    name = "odyssey"
    stop: list[str] | None = ODYSSEY_STOP
    prefix_stable = False  # the reference rebuilds its one user message every step

    def window(self, view: TaskView | None, history: int | None) -> int | None:
        """History entries shown: the env's reference window (its spec's odyssey profile)."""
        profile = None if view is None else profile_of(view.env, view.env_version)
        return None if profile is None else profile.window

    def entries(self, turns: Sequence[Turn]) -> int:
        return sum(1 for t in turns if t.kept)

    def messages(self, view: TaskView, rules_text: str | None, turns: Sequence[Turn],
                 observation: str, window: int | None) -> list[dict[str, str]]:
        return odyssey_messages(prompt=prompt_of(view.env, view.env_version),
                                public=view.public, rules_text=rules_text, turns=turns,
                                observation=observation, window=window)

    def extract(self, answer: str) -> str | None:
        return first_action(answer)

    def play(self, view: TaskView, action: str | None, turns: Sequence[Turn]) -> Play:
        """The env's reply rule (lost steps, replays), else the action as sent."""
        profile = profile_of(view.env, view.env_version)
        if profile is None or profile.reply is None:
            return play_as_sent(action, view.public, turns)
        return registry.resolve(profile.reply)(action, view.public, turns)


HARNESS_CLASSES: dict[str, type[ArenaGenHarness]] = {"arena-gen": ArenaGenHarness,
                                                      "odyssey": OdysseyHarness}


def get_harness(name: str) -> ArenaGenHarness:
    """The harness called ``name`` (ValueError for an unknown one)."""
    return HARNESS_CLASSES[check_harness(name)]()


__all__ = ["HARNESS_CLASSES", "ODYSSEY_STOP", "ArenaGenHarness",
           "OdysseyHarness", "Play", "first_action", "get_harness"]

