"""Harnesses of the LLM agent: how a prompt is built, which tag counts, what a reply plays.

``arena-gen`` is arena-gen's own protocol (:mod:`.llm_prompts`: one system prompt for every env,
the last ``<action>`` tag counts, the whole history unless ``--history`` says otherwise).

``odyssey`` reproduces the OdysseyArena reference harness (``*/infer_multi_turn_*.py``) in
arena-gen's own words: one user message per step (no system prompt) holding the env's goal and
action help, the history in the reference's per-env shape and window, and the current state;
generation stops at ``</action>`` (sent as ``stop``), so the first ``<action>`` tag counts and a
missing closing tag is tolerated. Per env, what the reference's loop does with a reply:

- lights: history of every valid step (action, feedback, the state after), all of it; a reply
  whose action is not a bulb index is a lost step that leaves no trace in the history.
- trading: history of the last 50 steps (the state after the step, then the action text); a
  reply without valid JSON holds for the day (the game's reject rule is that hold).
- energy: history of the last 40 steps (the state before the step, then the action text); a
  reply whose action is not JSON is a lost step (the day does not advance, no history entry:
  the game's reject rule), and a reply with no action at all replays the last JSON action.
- repo: history of every step (the output before it, the step number, the command); an empty
  command is the game's no-op.

The env side of the protocol (step budget, no turns-left line, no feedback line for trading and
energy) is :class:`~arena_gen.core.protocol.Protocol`, which the episode applies.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from arena_gen.agents.llm_parse import ACTION_CLOSE, ACTION_OPEN, extract_action, fold
from arena_gen.agents.llm_prompts import Turn, build_messages
from arena_gen.agents.odyssey_prompts import odyssey_messages
from arena_gen.core import registry
from arena_gen.core.agent import TaskView
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


@dataclass(frozen=True)
class Play:
    """What a reply does: the action text played, whether history keeps the turn, notes."""

    action: str
    kept: bool = True
    replayed: bool = False


class ArenaGenHarness:
    """arena-gen's own protocol (see :mod:`.llm_prompts`)."""

    name = DEFAULT_HARNESS
    stop: list[str] | None = None

    def window(self, env: str, history: int | None) -> int | None:
        """History entries shown: ``--history`` (all by default)."""
        return history

    def entries(self, turns: Sequence[Turn]) -> int:
        """How many history entries ``turns`` make (every turn is one)."""
        return len(turns)

    def messages(self, view: TaskView, rules_text: str | None, turns: Sequence[Turn],
                 observation: str, window: int | None) -> list[dict[str, str]]:
        """This turn's chat messages."""
        return build_messages(env=view.env, public=view.public, rules_text=rules_text,
                              history=turns, observation=observation, window=window,
                              budget=view.budget)

    def extract(self, answer: str) -> str | None:
        """The action text of a reply: its last tag."""
        return extract_action(answer)

    def play(self, view: TaskView, action: str | None, turns: Sequence[Turn]) -> Play:
        """No tag plays the empty action (the env's malformed-action feedback)."""
        return Play("" if action is None else action)


class OdysseyHarness(ArenaGenHarness):
    """The OdysseyArena reference protocol (see the module docstring)."""

    name = "odyssey"
    stop: list[str] | None = ODYSSEY_STOP

    def window(self, env: str, history: int | None) -> int | None:
        """History entries shown: the env's reference window (its spec's odyssey profile)."""
        spec = registry.get(env)
        return None if spec.odyssey is None else registry.resolve(spec.odyssey).window

    def entries(self, turns: Sequence[Turn]) -> int:
        return sum(1 for t in turns if t.kept)

    def messages(self, view: TaskView, rules_text: str | None, turns: Sequence[Turn],
                 observation: str, window: int | None) -> list[dict[str, str]]:
        return odyssey_messages(env=view.env, public=view.public, rules_text=rules_text,
                                turns=turns, observation=observation, window=window)

    def extract(self, answer: str) -> str | None:
        return first_action(answer)

    def play(self, view: TaskView, action: str | None, turns: Sequence[Turn]) -> Play:
        text = "" if action is None else action
        if view.env == "lights":
            return Play(text, kept=_bulb(text, int(view.public.get("n", 0))))
        if view.env == "energy":
            if text:
                return Play(text, kept=_json(text))
            last = next((t.action for t in reversed(turns) if t.kept and t.action), None)
            if last is None:  # nothing to replay yet: a lost step
                return Play("", kept=False)
            return Play(last, replayed=True)
        return Play(text)


def _bulb(text: str, n: int) -> bool:
    """The reference's validity test of a lights action: an integer bulb index."""
    try:
        return 0 <= int(text) < n
    except ValueError:
        return False


def _json(text: str) -> bool:
    """The reference's validity test of an energy action: it parses as JSON."""
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


HARNESS_CLASSES: dict[str, type[ArenaGenHarness]] = {"arena-gen": ArenaGenHarness,
                                                      "odyssey": OdysseyHarness}


def get_harness(name: str) -> ArenaGenHarness:
    """The harness called ``name`` (ValueError for an unknown one)."""
    return HARNESS_CLASSES[check_harness(name)]()


__all__ = ["HARNESS_CLASSES", "ODYSSEY_STOP", "ArenaGenHarness",
           "OdysseyHarness", "Play", "first_action", "get_harness"]

