"""Repo agents' replies to probes: from a model game (the planner's parsed rules) or from the
outputs a repair learner has seen (what each command printed, and in which environment).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from difflib import SequenceMatcher
from typing import Any

from arena_gen.core.probes import Probe
from arena_gen.envs.repo.game_v4 import COMMAND_ERROR, COMMAND_OK, RUN_PY

#: An environment as a learner believes it: the Python and the installed versions.
EnvKey = tuple[str | None, frozenset[tuple[str, str]]]


def env_key(python: str | None, installed: Mapping[str, str]) -> EnvKey:
    """The key a learner files an output under."""
    return python, frozenset(installed.items())


def _worked(text: str) -> bool:
    """Whether an output is no error (the game prints every failure as ``ERROR: ...``, and
    success, an install already in place included, otherwise)."""
    return not text.startswith("ERROR")


def _closest(options: Sequence[str], text: str) -> int:
    """The option most like ``text`` (difflib's ratio; the first on a tie; an option equal to
    ``text`` is the only one of ratio 1, so it is taken without comparing)."""
    if text in options:
        return list(options).index(text)
    matcher = SequenceMatcher(None, "", text, autojunk=False)  # ``text`` indexed once
    bounds = []
    for i, option in enumerate(options):
        matcher.set_seq1(option)
        bounds.append((matcher.quick_ratio(), i, option))
    # ratio <= quick_ratio: the options of highest bound first, and one
    # whose bound cannot beat the best so far (or only tie it from a later place) is skipped
    bounds.sort(key=lambda b: (-b[0], b[1]))
    best, at = -1.0, 0
    for bound, i, option in bounds:
        if bound < best or (bound == best and i > at):
            continue
        matcher.set_seq1(option)
        score = matcher.ratio()
        if score > best or (score == best and i < at):
            best, at = score, i
    return at


def memory_replies(probes: Sequence[Probe], seen: Mapping[EnvKey, Mapping[str, str]],
                   last: Mapping[str, str]) -> list[str]:
    """From memory: what the command printed in the very environment asked about, else the
    last time it ran anywhere, else the prior (installs work, ``python run.py`` fails)."""
    out = []
    for probe in probes:
        sub = probe.subject
        command = str(sub["command"])
        here = seen.get(env_key(sub["python"], dict(sub["installed"])), {})
        text = here.get(command, last.get(command))
        if probe.kind == COMMAND_OK:
            worked = _worked(text) if text is not None else command != RUN_PY
            out.append("yes" if worked else "no")
        elif probe.kind == COMMAND_ERROR and probe.choices is not None:
            options = list(sub["options"])
            at = 0 if text is None else _closest(options, " ".join(text.split()))
            out.append(probe.choices[at])
        else:
            out.append("")
    return out


def model_replies(probes: Sequence[Probe], game: Any) -> list[str]:
    """From a model game (rules the agent read): whether the command works there, and the
    offered output most like the one the model prints (a parsed rules text keeps the rules,
    not every message's wording)."""
    out = []
    for probe in probes:
        try:
            ok, text = game.outcome(game.state_of(probe.subject), str(probe.subject["command"]))
        except (ValueError, KeyError, IndexError):  # the model cannot place the question
            out.append("")
            continue
        if probe.kind == COMMAND_OK:
            out.append("yes" if ok else "no")
        elif probe.kind == COMMAND_ERROR and probe.choices is not None:
            out.append(probe.choices[_closest(list(probe.subject["options"]), text)])
        else:
            out.append("")
    return out


def subject_key(subject: Mapping[str, Any]) -> EnvKey:
    """The key of the environment a probe states."""
    return env_key(subject["python"], dict(subject["installed"]))
