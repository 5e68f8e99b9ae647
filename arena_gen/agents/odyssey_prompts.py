"""Prompts of the ``odyssey`` harness: the reference's structure and disclosure, our own words.

One user message per step: a role line, the env's goal and dynamics told qualitatively (the
reference never states a cost or stability formula), the action help with examples, the rules in
with-rules mode, the history in the env's reference shape (see :mod:`.harness`), the current
state, and a closing request for one tagged action. Nothing here says how many turns are left.
Observations come from the text env with the protocol applied (no turns-left line; no feedback
line for trading and energy), so they are split here only into feedback and state.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from arena_gen.agents.llm_prompts import Turn, strip_intro

CLOSING = ("Work through the problem step by step, then give your next action as "
           "<action>...</action>. Trying things is how you learn how this environment behaves.")


def _lights(public: dict[str, Any]) -> tuple[str, str]:
    n = int(public.get("n", 0))
    goal = (f"You control a row of {n} bulbs (indices 0 to {n - 1}) and must get every one of "
            "them on. Whether a bulb reacts to a toggle depends on the current on/off pattern "
            "of some other bulbs; that dependency is hidden, so work it out from what happens.")
    acts = ("One action per step: the index of the bulb to toggle, nothing else. Toggling bulb "
            "2, for example, is written <action>2</action>.")
    return goal, acts


def _trading(public: dict[str, Any]) -> tuple[str, str]:
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


def _energy(public: dict[str, Any]) -> tuple[str, str]:
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


def _repo(public: dict[str, Any]) -> tuple[str, str]:
    goal = (
        "You are a developer getting a simulated Python project to run. Like a real setup it "
        "gives you only part of the picture: there is no full dependency graph, failures "
        "appear at run time as missing modules, missing names or unexpected keyword "
        "arguments rather than as version requirements, installing one package can move "
        "others up or down, and some rules only bite in particular sub-scripts or late in the "
        "run.\n"
        "The project holds several runnable scripts in sub-folders. Running a sub-script "
        "narrows down which part is broken, but only a passing `python run.py` (which runs "
        "the entry scripts in order) ends the task with success.\n"
        "Reading errors: `ModuleNotFoundError: No module named 'X'` usually means X is not "
        "installed; `ImportError: cannot import name ...` suggests the installed version of "
        "that package lacks the name; `TypeError: ... unexpected keyword argument ...` "
        "points to an API mismatch, with the package at fault named by whether it happened "
        "during project entry or while importing another package. A fix can break something "
        "that worked before, so confirm with `python run.py`.")
    pythons = list(public.get("pythons") or ["3.10"])
    acts = (
        "Exactly one command per step:\n"
        f"- choose Python: pip install python=={pythons[-1]}\n"
        "- install: pip install NAME, pip install NAME==M.m, pip install NAME>=M.m,<M.m\n"
        "- remove: pip uninstall NAME\n"
        "- look around: pip list, repo tree\n"
        "- run: python run.py, or python <script path> (find paths with repo tree)\n"
        "Nothing else (no flags such as --upgrade). Example: <action>pip install pkg1==1.2"
        "</action>")
    return goal, acts


ROLES = {"lights": "You are an agent solving a puzzle with hidden rules.",
         "trading": "You are an agent trading on a simulated stock market.",
         "energy": "You are an agent running the daily dispatch of a simulated power grid.",
         "repo": "You are an agent working in a terminal."}
INTROS: dict[str, Callable[[dict[str, Any]], tuple[str, str]]] = {
    "lights": _lights, "trading": _trading, "energy": _energy, "repo": _repo}


def _split(observation: str, intro: str) -> tuple[str | None, str]:
    """An observation as (feedback line or None at the start, the rest)."""
    if intro and observation.startswith(intro):
        return None, strip_intro(observation, intro)
    head, _, rest = observation.partition("\n")
    return head, rest


def history_entries(env: str, turns: Sequence[Turn], observation: str,
                    intro: str) -> list[str]:
    """The kept turns as the env's reference history entries, oldest first."""
    after = [t.observation for t in turns[1:]] + [observation]
    out = []
    for i, turn in enumerate(turns):
        if not turn.kept:
            continue
        action = turn.action or ""
        before = strip_intro(turn.observation, intro)
        if env == "lights":
            feedback, state = _split(after[i], intro)
            out.append(f"Action {action}: {feedback} Afterwards {state}")
        elif env == "trading":
            out.append(f"{strip_intro(after[i], intro)}\nOrder sent: {action}")
        elif env == "repo":
            head = f"Output:\n{before}\n\n" if i > 0 else ""
            out.append(f"{head}--- Step {i + 1} ---\n$ {action}")
        else:  # energy and any other env: the state seen, then the action taken
            out.append(f"{before}\nDispatch sent: {action}")
    return out


def current_state(env: str, observation: str, intro: str) -> str:
    """The current observation as the prompt shows it (lights: the state line alone)."""
    if env == "lights":
        return _split(observation, intro)[1]
    return strip_intro(observation, intro)


def odyssey_messages(*, env: str, public: dict[str, Any], rules_text: str | None,
                     turns: Sequence[Turn], observation: str,
                     window: int | None) -> list[dict[str, str]]:
    """The one user message of an odyssey step (history cut to its last ``window`` entries)."""
    intro = str(public.get("intro", ""))
    if env in INTROS:
        goal, acts = INTROS[env](public)
    else:
        goal, acts = intro, f"Action format: {public.get('action_format', 'free text')}."
    entries = history_entries(env, turns, observation, intro)
    if window is not None:
        entries = entries[-window:] if window > 0 else []
    joiner = "\n" if env in ("lights", "energy") else "\n\n"
    parts = [ROLES.get(env, "You are an agent in a text environment."),
             f"## Goal\n{goal}", f"## Actions\n{acts}"]
    if rules_text:
        parts.append(f"## Rules\n{rules_text}")
    parts.append("## Steps so far\n" + (joiner.join(entries) if entries else "(none yet)"))
    parts.append(f"## Current state\n{current_state(env, observation, intro)}")
    parts.append(CLOSING)
    return [{"role": "user", "content": "\n\n".join(parts)}]


__all__ = ["CLOSING", "INTROS", "current_state", "history_entries", "odyssey_messages"]
