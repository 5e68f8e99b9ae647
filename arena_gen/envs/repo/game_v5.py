"""Repo System v5: v4's game whose messages carry nothing the state does not already show.

Two tells of v4 are closed (issue 38):

- **Conflict messages.** v4 printed the world's conflict text, e.g. ``pkgP==V is not compatible
  with pkgA>BOUND``, and the bound of a "newest version against an anchor above its solution"
  rule *is* the anchor's solution version (seed 7: 71 of 81 such messages on Lite named the
  certified solution's version). v5 states the violated constraint from the installed side only:
  ``pkgP==V is not compatible with pkgA==X``, where ``X`` is the version of ``pkgA`` the install
  would sit beside (already shown as ``cannot sit beside pkgA X``). The world's text and its
  bound are never printed; the message is a function of the state and the rule's two package
  names.
- **Hidden-rule messages.** A v4 hidden-rule text is a fixed decoy naming a module of a package
  the rule does not involve; when that package was not installed and the decoy was a
  ``TypeError``, no real check could have printed it (a real keyword error needs its provider
  installed; a missing provider is an ``ImportError``), so such a message was a hidden rule 14
  times of 14. v5 renders the decoy as a real check would in the current state: a ``TypeError``
  whose package is not installed is printed as the ``ImportError`` of the same module and
  symbol, exactly the line a missing provider gives.

Which checks pass, in which order, and every install rule are v4's (so v2's), so the v3 verifier
and planner apply unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from arena_gen.core.probes import Probe
from arena_gen.envs.repo import probes_v5
from arena_gen.envs.repo.common import ABSENT
from arena_gen.envs.repo.game_v2 import InstallFailure, RepoV2, RunFailure
from arena_gen.envs.repo.game_v4 import RepoGameV4, import_error

#: A keyword-failure line (the v4 shape): module's package, module, symbol, importer.
_KEYWORD = re.compile(r"TypeError: ([^.\s]+)\.([^.\s]+)\.([^.\s(]+)\(\) got an unexpected "
                      r"keyword argument '[^']*' \(imported by '([^']*)'\)")


def conflict_text(package: str, version: str, other: str, installed: str) -> str:
    """THE v5 conflict line: the violated pair, stated from the installed side only."""
    return f"{package}=={version} is not compatible with {other}=={installed}"


class RepoGameV5(RepoGameV4):
    """Repo System, version 5: :class:`~.game_v4.RepoGameV4` with messages that give nothing away.

    Description:
        As v4: packages, a Python, hidden dependency rules; ``python run.py`` must succeed.
    Action Space:
        As v4: one terminal command per turn (``pip install NAME[SPEC]``, ``pip install
        python==3.X``, ``pip uninstall NAME``, ``pip list``, ``repo tree``, ``python run.py``,
        ``python <script>``); text that is no command is invalid and costs a turn.
    Observation:
        As v4, except two messages. A conflict reads ``ERROR: pkgP V cannot sit beside pkgA X
        (pkgP==V is not compatible with pkgA==X). Nothing was changed.``: the installed side
        only, never the rule's bound. A hidden rule's decoy is printed as a real check would
        print it in the current state (a keyword error naming a package that is not installed
        becomes that module's import error).
    Starting State:
        No Python selected, nothing installed.
    Rewards:
        1.0 on the turn ``python run.py`` succeeds, 0.0 otherwise.
    Episode End:
        Terminated when ``python run.py`` succeeds; truncated when the turn budget is spent.
    Information:
        As v4: ``python``, ``installed``, ``scripts``, ``run_ok``; each event's ``kind``,
        ``script`` and failing ``check`` (kept out of the agent's view).
    Rubric:
        ``run_ok`` (success) and one ``script_<name>_ok`` per entrypoint.
    Probes:
        v4's kinds, questions and answers (:class:`~.game_v4.RepoGameV4`), drawn so that no
        surface feature tells the answer (:mod:`.probes_v5`). ``command_ok``: ``yes``/``no``,
        half each within each kind of command (``python run.py``, an install of a package the
        stated environment holds, of one it lacks), asked in pairs, a ``yes`` and a ``no`` of
        one kind; the environment is the current one or, where that lacks the wanted answer,
        one a step away or one the agent visited. ``command_error``: the four options are
        what a failing command prints from four environments among the current one and those
        a step away (a package added, moved or removed), of distinct lengths; the question
        states one of them, picked by a balanced length rank and put at a balanced letter
        (chance 25 %, and 25 % for any guess by an option's length, kind or packages); where
        none is found, a ``command_ok`` question is asked instead.
    Arguments:
        ``task``: a repo v5 task, Draft, or :class:`~arena_gen.core.game.WorldView` (a v4
        world plays with v5's messages too; its rules are unchanged).
    Version History:
        v5: conflict messages state the installed side only (no bound from the world, which
        named the solution's version); a hidden rule's decoy keyword error naming a package
        that is not installed is printed as that module's import error, the line a real
        missing provider gives (issue 38). Probe drawing: ``command_error`` states one of
        four environments whose errors differ in length, picked by a balanced length rank
        (v4's stated the current one, so its error was the odd one out and a guess by length
        or by the first ``ImportError`` beat chance); ``command_ok`` asks a ``yes`` and a
        ``no`` per kind of command (v4's ``no`` for ``python run.py`` scored 63 %).
    """

    def outcome(self, state: RepoV2, command: str) -> tuple[bool, str]:
        """v4's outcome, kept per game (a draw and its judge ask the same pairs often)."""
        return probes_v5.stepped(self, state, command)[1:]

    def probes(self, state: RepoV2, visited: Sequence[RepoV2], rng: np.random.Generator,
               count: int) -> list[Probe]:
        """v5's drawing (:func:`.probes_v5.draw`; class docstring)."""
        return probes_v5.draw(self, state, visited, rng, count)

    def conflict_failure(self, p: int, v: int, q: int, x: int, text: str) -> InstallFailure:
        """v4's conflict, reported from the installed side (class docstring): the world's
        ``text`` and its bound are never printed."""
        r = self.rules
        installed = r.vname(q, x)
        why = conflict_text(r.names[p], r.vname(p, v), r.names[q], installed)
        return InstallFailure("conflict", f"{r.names[p]} {r.vname(p, v)} cannot sit beside "
                                          f"{r.names[q]} {installed} ({why}).")

    def script_failure(self, installed: tuple[int, ...], path: str) -> RunFailure | None:
        """v4's run-time rule; a hidden rule's decoy is printed as a real check would print it."""
        fail = super().script_failure(installed, path)
        if fail is None or fail.kind != "hidden_rule":
            return fail
        m = _KEYWORD.fullmatch(fail.message)
        if m is None:
            return fail
        package, module, symbol, importer = m.groups()
        p = self.rules.index.get(package)
        if p is not None and installed[p] != ABSENT:
            return fail
        return RunFailure("hidden_rule", import_error(f"{package}.{module}", symbol, importer))
