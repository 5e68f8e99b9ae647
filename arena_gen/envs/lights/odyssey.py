"""Lights under the odyssey harness: the reference's prompt wording and reply rule, our words.

History: every valid step (the action, the game's feedback, the state after), all of it, one per
line; the current state is the state line alone. A reply whose action is not a bulb index is a
lost step that leaves no trace in the history (the reference's loop skips it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arena_gen.core.odyssey import OdysseyPrompt, PastTurn, Play, Seen, Step


def _brief(public: Mapping[str, Any]) -> tuple[str, str]:
    """Goal and action help: the dependency is said to exist, never what it is."""
    n = int(public.get("n", 0))
    goal = (f"You control a row of {n} bulbs (indices 0 to {n - 1}) and must get every one of "
            "them on. Whether a bulb reacts to a toggle depends on the current on/off pattern "
            "of some other bulbs; that dependency is hidden, so work it out from what happens.")
    acts = ("One action per step: the index of the bulb to toggle, nothing else. Toggling bulb "
            "2, for example, is written <action>2</action>.")
    return goal, acts


def _entry(step: Step) -> str:
    """The reference's entry: the action, what the game said, the state it left."""
    return f"Action {step.action}: {step.after.feedback} Afterwards {step.after.state}"


def _state(seen: Seen) -> str:
    """The state line alone (its feedback is already in the last history entry)."""
    return seen.state


def reply(action: str | None, public: Mapping[str, Any], turns: Sequence[PastTurn]) -> Play:
    """The reference's validity test: only an integer bulb index is a step the history keeps."""
    text = "" if action is None else action
    return Play(text, kept=_bulb(text, int(public.get("n", 0))))


def _bulb(text: str, n: int) -> bool:
    """Whether ``text`` is an integer bulb index of a row of ``n``."""
    try:
        return 0 <= int(text) < n
    except ValueError:
        return False


PROMPT = OdysseyPrompt(
    role="You are an agent solving a puzzle with hidden rules.",
    brief=_brief, entry=_entry, joiner="\n", state=_state)
