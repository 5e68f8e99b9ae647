"""Repo under the odyssey harness: the reference's prompt wording, our words.

History: every step (the output before it, the step number, the command), blank-line
separated. An empty command is the game's no-op, so every reply plays as sent: the generic
reply rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena_gen.core.odyssey import OdysseyPrompt, Step


def _brief(public: Mapping[str, Any]) -> tuple[str, str]:
    """Goal and action help: how failures show, never which rules cause them."""
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


def _entry(step: Step) -> str:
    """The reference's entry: the output the command answered (none before the first), the
    step number, the command."""
    head = f"Output:\n{step.before.text}\n\n" if step.index > 0 else ""
    return f"{head}--- Step {step.index + 1} ---\n$ {step.action}"


PROMPT = OdysseyPrompt(
    role="You are an agent working in a terminal.",
    brief=_brief, entry=_entry)
