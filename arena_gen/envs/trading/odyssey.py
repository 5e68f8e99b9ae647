"""Trading under the odyssey harness: the reference's prompt wording, our words.

History: the last 50 steps (the window is the profile's), each the state after the step, then
the order sent. A reply without valid JSON holds for the day (the game's reject rule is that
hold), so every reply plays as sent: the generic reply rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena_gen.core.odyssey import OdysseyPrompt, Step


def _brief(public: Mapping[str, Any]) -> tuple[str, str]:
    """Goal and action help: the factors are named, how they move prices is left to learn."""
    stocks = list(public.get("stocks") or ["S0", "S1", "S2"])
    a, b = stocks[0], stocks[-1]
    c = stocks[1] if len(stocks) > 2 else a
    fee = float(public.get("cost_rate") or 0.0)
    goal = ("You are a trader whose aim is the largest possible portfolio value (cash plus the "
            "market value of your shares). Prices move with a set of hidden market variables "
            "(the F names); each day's news tells you how those variables will change "
            "tomorrow. How each variable feeds into each price is for you to learn, and it need "
            "not resemble any real-world market.")
    acts = ("Each day, one action that may both buy and sell several stocks. Sells are "
            "carried out before buys. You can neither spend more cash than you hold nor sell "
            "shares you do not own: an order you cannot cover is dropped. Write the action as "
            "JSON inside the tags, with plain integer share counts, for example:\n"
            f'<action>{{"buy": {{"{a}": 12, "{c}": 4}}, "sell": {{"{b}": 7}}}}</action> '
            "(buy and sell together)\n"
            f'<action>{{"buy": {{"{a}": 3}}, "sell": {{}}}}</action> (buy only)\n'
            '<action>{"buy": {}, "sell": {}}</action> (do nothing today)')
    if fee > 0:
        acts += f"\nEvery executed trade pays a fee of {fee:g} x its value."
    return goal, acts


def _entry(step: Step) -> str:
    """The reference's entry: the day the step led to, then the order."""
    return f"{step.after.text}\nOrder sent: {step.action}"


PROMPT = OdysseyPrompt(
    role="You are an agent trading on a simulated stock market.",
    brief=_brief, entry=_entry)
