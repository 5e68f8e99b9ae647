"""Energy under the odyssey harness: the reference's prompt wording and reply rule, our words.

The goal tells cost, ramp and stability qualitatively (the reference never states a formula).
History: the last 40 steps (the window is the profile's), each the state before the step, then
the dispatch sent, one per line. A reply whose action is not JSON is a lost step (the day does
not advance, no history entry: the game's reject rule), and a reply with no action at all
replays the last JSON action.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from arena_gen.core.odyssey import OdysseyPrompt, PastTurn, Play, Step


def _brief(public: Mapping[str, Any]) -> tuple[str, str]:
    """Goal and action help: limits and prices stated, the dynamics told in words."""
    cap = public.get("capacity") or {}
    prices = public.get("prices") or {}
    horizon = int(public.get("horizon", 0))
    stab, carb = float(public.get("target_stability", 0)), float(public.get("target_carbon", 0))
    bat = float(cap.get("battery", 0))
    goal = (
        "You operate a power grid and decide, day by day, how much each source should "
        "produce. Aim for a supply that is safe, steady and clean over a long run.\n"
        "Sources: thermal (dependable, the cheapest, but it emits carbon); wind and solar "
        "(clean, and their output swings with seasonal cycles of their own); a battery (stores "
        "energy and gives it back later; it is as clean as whatever charged it).\n"
        "Every day has a demand that supply must reach and a budget that the day's cost must "
        "not exceed. Cost is charged per unit of rated output, for example about "
        f"{float(prices.get('thermal', 0)):g} for thermal, {float(prices.get('wind', 0)):g} "
        f"for wind and {float(prices.get('solar', 0)):g} for solar, while moving energy in or "
        f"out of the battery costs very little (about {float(prices.get('battery', 0)):g} per "
        "unit).\n"
        "Stability suffers when the rated outputs jump from one day to the next, so change "
        "them gradually and plan ahead; missing the demand or overrunning the budget hurts "
        "stability badly. Carbon is the share of thermal energy in everything supplied: keep "
        "it low without breaking the demand and budget limits.\n"
        "What a source actually delivers is its rated output times an efficiency that varies "
        "with time (actual = rated x efficiency). Wind and solar efficiencies follow periodic "
        "patterns with different periods, hidden from you: infer them from the history, and "
        "keep a safety margin above demand.\n"
        f"The run lasts {horizon} days. It succeeds only if, at the end, average stability is "
        f"above {stab:.3f} and the carbon share is below {carb:.3f}. Three days in a row that "
        "miss the demand or overrun the budget collapse the grid and end the run.")
    acts = (
        "Each day, one JSON object with the rated output of each source for that day:\n"
        f"thermal: 0 to {float(cap.get('thermal', 0)):g}; wind: 0 to "
        f"{float(cap.get('wind', 0)):g}; solar: 0 to {float(cap.get('solar', 0)):g} (never "
        f"negative); battery: a net flow, storage capacity {bat:g}; positive discharges into "
        "the grid, negative charges from it (charging draws on the other sources' supply).\n"
        'Example: <action>{"thermal": 380.0, "wind": 40.0, "solar": 20.0, "battery": -10.0}'
        "</action> sets the three generators and charges the battery by 10.\n"
        'Example: <action>{"thermal": 320.0, "wind": 60.0, "solar": 30.0, "battery": 12.0}'
        "</action> discharges 12 into the grid on top of the generators.")
    return goal, acts


def _entry(step: Step) -> str:
    """The reference's entry: the day the dispatch was decided on, then the dispatch."""
    return f"{step.before.text}\nDispatch sent: {step.action}"


def reply(action: str | None, public: Mapping[str, Any], turns: Sequence[PastTurn]) -> Play:
    """The reference's loop: non-JSON is a lost step; no action replays the last kept one."""
    text = "" if action is None else action
    if text:
        return Play(text, kept=_json(text))
    last = next((t.action for t in reversed(turns) if t.kept and t.action), None)
    if last is None:  # nothing to replay yet: a lost step
        return Play("", kept=False)
    return Play(last, replayed=True)


def _json(text: str) -> bool:
    """Whether ``text`` parses as JSON (the reference's only test of an action)."""
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


PROMPT = OdysseyPrompt(
    role="You are an agent running the daily dispatch of a simulated power grid.",
    brief=_brief, entry=_entry, joiner="\n")
