"""Prompts of the ``odyssey`` harness: the reference's structure and disclosure, our own words.

One user message per step: a role line, the env's goal and dynamics told qualitatively (the
reference never states a cost or stability formula), the action help with examples, the rules in
with-rules mode, the history in the env's reference shape, the current state, and a closing
request for one tagged action. Nothing here says how many turns are left. Observations come from
the text env with the protocol applied (no turns-left line; no feedback line where the env's
profile says so), so they are split here only into feedback and state.

The wording is the env's: its spec's :class:`~arena_gen.core.registry.OdysseyProfile` names an
:class:`~arena_gen.core.odyssey.OdysseyPrompt` in the env package. An env without one gets
:data:`~arena_gen.core.odyssey.GENERIC_PROMPT` (its intro and action format, the observation
seen then the action sent per entry, blank-line separated, the current observation in full).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena_gen.agents.llm_prompts import Turn, strip_intro
from arena_gen.core import registry
from arena_gen.core.odyssey import GENERIC_PROMPT, OdysseyPrompt, Seen, Step

CLOSING = ("Work through the problem step by step, then give your next action as "
           "<action>...</action>. Trying things is how you learn how this environment behaves.")


def profile_of(env: str, version: int | None = None) -> registry.OdysseyProfile | None:
    """The odyssey profile of an env version's spec (None: the env has none)."""
    spec = registry.get(env, version)
    return None if spec.odyssey is None else registry.resolve(spec.odyssey)


def prompt_of(env: str, version: int | None = None) -> OdysseyPrompt:
    """The env version's prompt wording, or the generic one when it declares none."""
    profile = profile_of(env, version)
    if profile is None or profile.prompt is None:
        return GENERIC_PROMPT
    return registry.resolve(profile.prompt)


def seen(observation: str, intro: str) -> Seen:
    """An observation split for the prompt (the first one, which starts with the intro, has no
    feedback line)."""
    if intro and observation.startswith(intro):
        text = strip_intro(observation, intro)
        return Seen(text=text, feedback=None, state=text)
    head, _, rest = observation.partition("\n")
    return Seen(text=observation, feedback=head, state=rest)


def history_entries(prompt: OdysseyPrompt, turns: Sequence[Turn], observation: str,
                    intro: str) -> list[str]:
    """The kept turns as the env's reference history entries, oldest first."""
    after = [t.observation for t in turns[1:]] + [observation]
    return [prompt.entry(Step(index=i, action=turn.action or "",
                              before=seen(turn.observation, intro), after=seen(after[i], intro)))
            for i, turn in enumerate(turns) if turn.kept]


def current_state(prompt: OdysseyPrompt, observation: str, intro: str) -> str:
    """The current observation as the env's prompt shows it."""
    return prompt.state(seen(observation, intro))


def odyssey_messages(*, prompt: OdysseyPrompt, public: dict[str, Any], rules_text: str | None,
                     turns: Sequence[Turn], observation: str,
                     window: int | None) -> list[dict[str, str]]:
    """The one user message of an odyssey step (history cut to its last ``window`` entries)."""
    intro = str(public.get("intro", ""))
    goal, acts = prompt.brief(public)
    entries = history_entries(prompt, turns, observation, intro)
    if window is not None:
        entries = entries[-window:] if window > 0 else []
    parts = [prompt.role, f"## Goal\n{goal}", f"## Actions\n{acts}"]
    if rules_text:
        parts.append(f"## Rules\n{rules_text}")
    parts.append("## Steps so far\n" + (prompt.joiner.join(entries) if entries else "(none yet)"))
    parts.append(f"## Current state\n{current_state(prompt, observation, intro)}")
    parts.append(CLOSING)
    return [{"role": "user", "content": "\n\n".join(parts)}]


__all__ = ["CLOSING", "current_state", "history_entries", "odyssey_messages", "profile_of",
           "prompt_of", "seen"]
