"""Error-driven repair heuristic for repo v2: run ``python run.py``, read the error, fix it, re-run.

It plays like a hurried engineer who reads only the terminal: select the newest Python (v2's
Requires-Python bounds are all lower bounds), run ``python run.py``, and repair what each error
names. v2's messages differ from v1's, and this agent reads them as they are:

    - ``No module named 'pkgX'``: install ``pkgX`` (bare: its newest version).
    - ``No module named 'pkgX.mod'``, ``cannot import name .. from 'pkgX.mod'``, ``pkgX.f() got
      an unexpected keyword``, ``module 'pkgX.mod' has no attribute``: another version of
      ``pkgX`` (then of the importer it names, then of the packages changed most recently).
      Hidden-rule errors mimic these and cannot be told apart; they are treated the same way.
    - Consistency errors name only the anchor: move an installed package whose major (or major
      and minor) differs from the anchor's to the anchor's, one at a time, else the anchor.
    - Errors that name no package: another version of the most recently changed packages.
    - Install errors roll back: missing dependencies are installed first and the install
      retried; a conflict moves the named package or drops the version; an impossible range
      drops the version. A bare install of an installed package only reports it installed,
      so every version change names its version.

Loops are avoided by remembering, per error, which versions of which packages were already tried
under it. It reads only observations and the public view, and is deterministic (no randomness).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from arena_gen.core.agent import TaskView
from arena_gen.core.probes import Probe
from arena_gen.envs.repo.agents.probe_replies import EnvKey, env_key, memory_replies
from arena_gen.envs.repo.common import ANY_PYTHON
from arena_gen.envs.repo.semver import holds, read_version

RUN = "python run.py"
_VER = r"(\d+(?:\.\d+)*)"


class RepoV2HeuristicAgent:
    """Reads repo v2 error messages and repairs the named packages (see module docstring)."""

    name = "heuristic"
    privileged = False

    def __init__(self) -> None:
        self.versions: dict[str, list[str]] = {}
        self.pythons: list[str] = []
        self.python: str | None = None
        self.installed: dict[str, str] = {}
        self.recent: list[str] = []  # packages, most recently changed first
        self.drifted: set[str] = set()  # packages a side effect moved since we last set them
        self.queue: list[str] = []
        self.last = ""
        self.bad: set[tuple[str, str]] = set()  # (package, version) whose install cannot work
        # (package, version) -> (blocker, op, bound): refused while the blocker is in that range
        self.blocked: dict[tuple[str, str], tuple[str, str, str]] = {}
        self.goal: str | None = None  # the run-time error the queued commands address
        self.fix: tuple[str, str] | None = None  # the last version installed against it
        self.fixed: dict[str, tuple[str, str]] = {}  # run error -> the version that cured it
        self.tried: dict[str, dict[str, set[str]]] = {}  # error -> package -> versions tried
        self.pkg = r"(pkg\d+)"

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        """Forget the last episode; read the package index and Pythons from the public view."""
        self.versions = {k: sorted(v, key=read_version) for k, v in view.public["packages"].items()}
        self.pythons = sorted(view.public["pythons"] or [ANY_PYTHON], key=read_version)
        self.python, self.installed, self.recent, self.drifted = None, {}, [], set()
        self.queue = [f"pip install python=={self.pythons[-1]}", RUN]
        self.last, self.bad, self.tried, self.blocked = "", set(), {}, {}
        self.seen: dict[EnvKey, dict[str, str]] = {}
        self.printed: dict[str, str] = {}
        self._asked_in: EnvKey = env_key(None, {})
        self.goal, self.fix, self.fixed = None, None, {}
        names = sorted(self.versions, key=len, reverse=True)
        self.pkg = r"\b(" + "|".join(re.escape(n) for n in names) + r")\b"

    # -- belief ----------------------------------------------------------------------------------
    def _set(self, name: str, version: str | None, drift: bool = False) -> None:
        """Record a package's new version (None: removed), that it changed last, and whether a
        side effect rather than our own command moved it."""
        if drift:
            self.drifted.add(name)
        else:
            self.drifted.discard(name)
        if version is None:
            self.installed.pop(name, None)
        else:
            self.installed[name] = version
        self.recent = [name] + [n for n in self.recent if n != name]

    def _track(self, text: str) -> None:
        """Keep the believed Python and installed versions in step with the command output."""
        pkg = self.pkg
        m = re.search(r"Python " + _VER + r" is now the interpreter", text)
        if m:
            self.python = m.group(1)
        m = re.search(r"Installed " + pkg + " " + _VER + r"\.", text)
        if m:
            self._set(m.group(1), m.group(2))
        m = re.search(r"Changed along with it: (.*)\.", text)
        if m:
            for name, version in re.findall(pkg + " " + _VER, m.group(1)):
                self._set(name, version, drift=True)
        m = re.match(pkg + " " + _VER + r" is installed already", text)
        if m:
            self.installed[m.group(1)] = m.group(2)
        m = re.match(r"Removed " + pkg + " " + _VER, text)
        if m:
            self._set(m.group(1), None)
        if text.startswith("Python: "):  # pip list
            self.installed = dict(re.findall(r"^\s+" + pkg + "==" + _VER, text, re.M))

    # -- choosing versions -----------------------------------------------------------------------
    def _usable(self, name: str, version: str) -> bool:
        """Whether installing ``name==version`` may work as far as the errors so far tell."""
        if (name, version) in self.bad:
            return False
        block = self.blocked.get((name, version))
        if block is None:
            return True
        other, op, bound = block  # a blocker not installed came with this install itself
        have = self.installed.get(other)
        return have is not None and not holds(read_version(have), op, read_version(bound))

    def _install(self, name: str, version: str) -> str:
        """The command installing ``name==version``, remembered as the current fix."""
        self.fix = (name, version)
        return f"pip install {name}=={version}"

    def _another(self, error: str, suspects: list[str]) -> str | None:
        """Install the next version, not yet tried under ``error``, of the first suspect that
        has one (newest first); None when every suspect is exhausted."""
        tried = self.tried.setdefault(error, {})
        for name in dict.fromkeys(suspects):
            if name not in self.versions:
                continue
            seen = tried.setdefault(name, set())
            current = self.installed.get(name)
            if current is not None:
                seen.add(current)
            fresh = [v for v in reversed(self.versions[name])
                     if v not in seen and self._usable(name, v)]
            if fresh:
                seen.add(fresh[0])
                return self._install(name, fresh[0])
        return None

    def _repair(self, error: str, suspects: list[str]) -> str | None:
        """Another version of a suspect; once all are exhausted, start the error over."""
        pool = suspects + self.recent + sorted(self.installed)
        cmd = self._another(error, pool)
        if cmd is None:
            self.tried.pop(error, None)
            cmd = self._another(error, pool)
        return cmd

    def _align(self, error: str, anchor: str, minor: bool) -> str | None:
        """A consistency fix: move one installed package to the anchor's major (or version)."""
        have = self.installed.get(anchor)
        if have is None:
            return self._repair(error, [anchor])
        key = read_version(have) if minor else read_version(have)[0]
        tried = self.tried.setdefault(error, {})
        for name in self.recent + sorted(self.installed):
            if name == anchor or name not in self.installed:
                continue
            own = read_version(self.installed[name])
            if (own if minor else own[0]) == key:
                continue
            fits = [v for v in self.versions[name]
                    if (read_version(v) if minor else read_version(v)[0]) == key
                    and self._usable(name, v) and v not in tried.get(name, set())]
            if fits:
                tried.setdefault(name, set()).add(fits[-1])
                return self._install(name, fits[-1])
        # no member to move: the anchor to the version most installed packages agree with
        seen = tried.setdefault(anchor, {have})
        others = [read_version(v) for n, v in self.installed.items() if n != anchor]
        fits = [v for v in self.versions[anchor] if v not in seen and self._usable(anchor, v)]
        if fits:
            best = max(fits, key=lambda v: (sum((o if minor else o[0]) == (
                read_version(v) if minor else read_version(v)[0]) for o in others),
                read_version(v)))
            seen.add(best)
            return self._install(anchor, best)
        return self._repair(error, [anchor])

    # -- reading errors --------------------------------------------------------------------------
    def _run_fix(self, error: str) -> list[str]:
        """Commands that address a run-time error line."""
        pkg = self.pkg
        if self.goal is not None and self.goal != error and self.fix is not None:
            self.fixed[self.goal] = self.fix  # the last fix cured the previous error
        self.goal, self.fix = error, None
        cure = self.fixed.pop(error, None)
        if cure and cure[0] in self.drifted and self.installed.get(cure[0]) != cure[1] \
                and self._usable(*cure):
            return [self._install(*cure)]  # a side effect undid an earlier cure: redo it
        if "no Python selected" in error:
            return [f"pip install python=={self.pythons[-1]}"]
        m = re.search(r"No module named '" + pkg + "'", error)
        if m and m.group(1) not in self.installed:
            return [f"pip install {m.group(1)}"]
        m = re.search(r"ABI mismatch detected between '" + pkg + "'", error)
        if m:
            return [c for c in [self._align(error, m.group(1), minor=False)] if c]
        m = re.search(r"out of sync with '" + pkg + "'", error)
        if m:
            return [c for c in [self._align(error, m.group(1), minor=True)] if c]
        named = list(dict.fromkeys(re.findall(pkg, error)))
        return [c for c in [self._repair(error, named)] if c]

    def _install_fix(self, error: str) -> list[str]:
        """Commands that address a rolled-back install of ``self.last``."""
        pkg = self.pkg
        m = re.match(r"pip install " + pkg + r"(?:==" + _VER + ")?$", self.last)
        if not m:
            return []
        name = m.group(1)
        said = re.match(r"ERROR: " + re.escape(name) + " " + _VER + " ", error)
        version = m.group(2) or (said.group(1) if said else self.versions[name][-1])
        goal = self.goal or error
        m = re.search(r"needs Python (>=|>|<=|<|==) " + _VER, error)
        if m:
            need = read_version(m.group(2))
            fits = [p for p in self.pythons if holds(read_version(p), m.group(1), need)]
            if fits and fits[-1] != self.python:
                return [f"pip install python=={fits[-1]}", self.last]
            self.bad.add((name, version))
            return [c for c in [self._repair(goal, [name])] if c]
        m = re.search(r"needs these installed first: (.*)\.", error)
        if m:
            missing = re.findall(pkg + r" \(not installed\)", m.group(1))
            if "no version of it fits" in m.group(1) or not missing:
                self.bad.add((name, version))
                return [c for c in [self._repair(goal, [name])] if c]
            return [f"pip install {n}" for n in missing] + [self.last]
        m = re.search(r"cannot sit beside " + pkg + " " + _VER + r" \((.*)\)", error)
        if m:  # another version of this package; failing that, move the blocker out of range
            other, theirs, why = m.groups()
            r = re.search(re.escape(other) + r"\s*(==|>=|<=|>|<)\s*" + _VER, why)
            op, bound = (r.group(1), r.group(2)) if r else ("==", theirs)
            self.blocked[(name, version)] = (other, op, bound)
            cmd = self._another(goal, [name])
            if cmd:
                return [cmd]
            out = [v for v in reversed(self.versions[other])
                   if not holds(read_version(v), op, read_version(bound))
                   and self._usable(other, v)]
            if out:
                return [f"pip install {other}=={out[0]}", self.last]
            return [c for c in [self._repair(goal, [name])] if c]
        # a range no version meets, or anything else: this version cannot be installed
        self.bad.add((name, version))
        return [c for c in [self._repair(goal, [name])] if c]

    def act(self, observation: str) -> str:
        """The next command: the queue's head, re-planned whenever the last command failed."""
        text = observation.rsplit("\nTurns left:", 1)[0].strip()
        if self.last:  # what the last command printed, where it ran (probe replies read it)
            self.seen.setdefault(self._asked_in, {})[self.last] = text
            self.printed[self.last] = text
        self._track(text)
        if text.startswith("ERROR"):
            if self.last.startswith("python "):
                self.queue = self._run_fix(text.split("\n", 1)[-1].strip()) + [RUN]
            elif self.last.startswith("pip install "):
                self.queue = self._install_fix(text) + [RUN]
            else:
                self.queue = [RUN]
        if not self.queue:
            self.queue = [RUN]
        self.last = self.queue.pop(0)
        self._asked_in = env_key(self.python, self.installed)
        return self.last

    def answer_probes(self, probes: Sequence[Probe]) -> list[str]:
        """From the outputs seen: in the environment asked about, else anywhere."""
        return memory_replies(probes, self.seen, self.printed)

    def state(self) -> dict[str, Any]:
        """What the agent believes (for debugging)."""
        return {"python": self.python, "installed": dict(self.installed),
                "bad": sorted(self.bad), "recent": list(self.recent)}
