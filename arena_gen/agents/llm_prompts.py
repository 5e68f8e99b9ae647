"""Prompts for the LLM agent: one generic builder fed by the env's public view, plus examples.

A prompt is rebuilt every turn from: the goal (the task's public ``intro``), the action grammar
(``action_format`` and a few per-env examples wrapped in ``<action>`` tags), the task's
``rules_text`` in with-rules mode, the last K turns (what was observed and what was done), and
the current observation. The reply's action is the text inside its last ``<action>...</action>``;
``<think>`` blocks are reasoning, never actions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arena_gen.agents.llm_parse import extract_action, split_reasoning
from arena_gen.core import registry
from arena_gen.core.errors import RegistryError

__all__ = ["NO_ACTION", "SYSTEM", "Turn", "build_messages", "extract_action",
           "grammar_text", "split_reasoning", "strip_intro"]

SYSTEM = (
    "You are an agent acting in a text environment whose rules are partly hidden. Learn them "
    "from the feedback you get and reach the goal within the turn budget. Each turn, think as "
    "briefly as you can, then give exactly one action wrapped in <action>...</action>; only "
    "the last <action> tag of your reply is executed. A reply without an <action> tag wastes "
    "the turn."
)

NO_ACTION = "(none: your reply had no <action>...</action> tag)"


@dataclass(frozen=True)
class Turn:
    """One past turn as the prompt shows it: what was observed, then what was done (``kept``:
    whether a harness that drops some turns from its history keeps this one)."""

    observation: str
    action: str | None
    kept: bool = True


def grammar_text(env: str, public: dict[str, Any]) -> str:
    """The action grammar section: format, per-env note, examples in tags."""
    lines = []
    if public.get("action_format"):
        lines.append(f"Action format: {public['action_format']}.")
    try:  # the env's own grammar (an env without one is described by action_format alone)
        grammar = registry.newest_with(env, "grammar").load("grammar")
    except RegistryError:
        grammar = None
    if grammar is not None and grammar.note:
        lines.append(grammar.note)
    shown = grammar.examples(public) if grammar is not None else []
    if shown:
        lines.append("Examples of the action part of a reply:")
        lines.extend(f"<action>{e}</action>" for e in shown)
    return "\n".join(lines)


def strip_intro(observation: str, intro: str) -> str:
    """The first observation repeats the intro (already in the prompt): drop it."""
    if intro and observation.startswith(intro):
        return observation[len(intro):].lstrip("\n")
    return observation


def build_messages(*, env: str, public: dict[str, Any], rules_text: str | None,
                   history: Sequence[Turn], observation: str, window: int | None,
                   budget: int) -> list[dict[str, str]]:
    """The chat messages for one turn (history cut to the last ``window`` turns)."""
    intro = str(public.get("intro", ""))
    done = len(history)
    shown = list(history) if window is None else (list(history[-window:]) if window > 0 else [])
    first = done - len(shown) + 1
    parts = [f"## Task\n{intro}" if intro else "## Task\n(no description)",
             f"## Actions\n{grammar_text(env, public)}"]
    if rules_text:
        parts.append(f"## Rules (disclosed)\n{rules_text}")
    if shown:
        head = (f"## History (last {len(shown)} of {done} turns)" if len(shown) < done
                else f"## History ({done} turns)")
        body = []
        for i, turn in enumerate(shown, start=first):
            body.append(f"### Turn {i}\nObservation:\n{strip_intro(turn.observation, intro)}\n"
                        f"Your action: {NO_ACTION if turn.action is None else turn.action}")
        parts.append(head + "\n" + "\n\n".join(body))
    parts.append(f"## Current observation (turn {done + 1} of {budget})\n"
                 f"{strip_intro(observation, intro)}")
    parts.append("Think briefly, then reply with exactly one <action>...</action>.")
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": "\n\n".join(parts)}]
