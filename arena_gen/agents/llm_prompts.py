"""Prompts for the LLM agent: one generic builder fed by the env's public view, plus examples.

A prompt is a dialogue that only grows, so each turn's messages extend the previous turn's
exactly and a server's prefix cache reuses every earlier turn: the system message, then a first
user message with the goal (the task's public ``intro``), the action grammar (``action_format``
and a few per-env examples wrapped in ``<action>`` tags), the task's ``rules_text`` in
with-rules mode and the first observation shown; then per past turn the action played (an
assistant message, ``<action>...</action>``) and the next observation (a user message headed
``## Current observation (turn N of B)``). Nothing in it counts turns shown or changes with the
turn, so only a cut history window (the context policy, ``--history``) rewrites it: the first
user message then names the turns left out. The reply's action is the text inside its last
``<action>...</action>``; ``<think>`` blocks are reasoning, never actions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arena_gen.agents.llm_parse import extract_action, split_reasoning
from arena_gen.core import registry
from arena_gen.core.errors import RegistryError
from arena_gen.core.registry import Grammar

__all__ = ["CLOSE", "NO_ACTION", "SYSTEM", "Turn", "build_messages", "extract_action",
           "grammar_text", "observation_text", "played_text", "split_reasoning",
           "strip_intro", "task_grammar"]

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
    #: the tool call the reply made (tools format: ``name``, ``arguments`` as JSON object
    #: text, ``error`` when malformed), shown as the API's own tool-call message; None: no call
    call: dict[str, Any] | None = None


def task_grammar(env: str, version: int | None) -> Grammar | None:
    """The grammar a task of ``env`` v``version`` is prompted in: its own version's, else the
    newest released one's (None: an env without one is described by ``action_format`` alone)."""
    try:
        grammar: Grammar = registry.part_for(env, version, "grammar").load("grammar")
    except RegistryError:
        return None
    return grammar


def grammar_text(env: str, public: dict[str, Any], *, version: int | None) -> str:
    """The action grammar section: format, per-env note, examples in tags (``version``: the
    task's env version, whose game reads the actions)."""
    lines = []
    if public.get("action_format"):
        lines.append(f"Action format: {public['action_format']}.")
    grammar = task_grammar(env, version)
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


#: How a with-rules prompt words the intro's phrases that call the rules hidden: the intro is
#: the task's stored ``public`` (the env version owns it, and the first observation repeats it),
#: so it is reworded here, where the rules are shown, never in the task.
DISCLOSED_WORDING = (
    ("under hidden rules you must discover", "under the rules disclosed below"),
    ("compatibility rules you must discover from error messages",
     "compatibility rules disclosed below"),
    ("driven by hidden market factors", "driven by market factors (disclosed below)"),
    ("a hidden daily efficiency", "a daily efficiency"),
    ("following hidden patterns", "following the patterns disclosed below"),
)


def disclosed_intro(intro: str) -> str:
    """The intro as a with-rules prompt shows it: no "hidden rules you must discover" when the
    rules are given."""
    for hidden, disclosed in DISCLOSED_WORDING:
        intro = intro.replace(hidden, disclosed)
    return intro


CLOSE = "Think briefly, then reply with exactly one <action>...</action>."


def observation_text(observation: str, intro: str, turn: int, budget: int) -> str:
    """One observation as a user message shows it, headed by its turn number."""
    return f"## Current observation (turn {turn} of {budget})\n{strip_intro(observation, intro)}"


def played_text(action: str | None) -> str:
    """A past turn's action as the assistant message that replays it."""
    return NO_ACTION if action is None else f"<action>{action}</action>"


def build_messages(*, env: str, public: dict[str, Any], rules_text: str | None,
                   history: Sequence[Turn], observation: str, window: int | None,
                   budget: int, version: int | None,
                   cache: dict[int, Any] | None = None) -> list[dict[str, str]]:
    """The chat messages for one turn (history cut to the last ``window`` turns; ``version``:
    the task's env version, whose grammar the actions section states). ``cache``
    (one per episode's agent) keeps each past turn's two messages, so a turn costs what it
    appends, not the whole history again (the texts are the same; a turn is found by its
    number and reused only for the same turn and observation objects)."""
    intro = str(public.get("intro", ""))
    done = len(history)
    shown = list(history) if window is None else (list(history[-window:]) if window > 0 else [])
    first = done - len(shown) + 1
    told = disclosed_intro(intro) if rules_text else intro
    parts = [f"## Task\n{told}" if told else "## Task\n(no description)",
             f"## Actions\n{grammar_text(env, public, version=version)}"]
    if rules_text:
        parts.append(f"## Rules (disclosed)\n{rules_text}")
    if first > 1:
        left = "Turn 1 is" if first == 2 else f"Turns 1-{first - 1} are"
        parts.append(f"## Earlier turns\n{left} not shown (the history window).")
    seen = [t.observation for t in shown] + [observation]
    parts.append(observation_text(seen[0], intro, first, budget))
    parts.append(CLOSE)  # once: the system message says it too, and later turns only append
    messages = [{"role": "system", "content": SYSTEM},
                {"role": "user", "content": "\n\n".join(parts)}]
    for i, turn in enumerate(shown, start=1):
        hit = cache.get(first + i) if cache is not None else None
        if hit is not None and hit[0] is turn and hit[1] is seen[i] and hit[2] == budget:
            played, shown_obs = hit[3], hit[4]
        else:
            played = played_text(turn.action)
            shown_obs = observation_text(seen[i], intro, first + i, budget)
            if cache is not None:
                cache[first + i] = (turn, seen[i], budget, played, shown_obs)
        messages.append({"role": "assistant", "content": played})
        messages.append({"role": "user", "content": shown_obs})
    return messages
