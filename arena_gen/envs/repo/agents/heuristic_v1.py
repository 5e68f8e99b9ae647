"""Error-driven repair heuristic for the repo env: read the last error, fix what it names, re-run.

It plays like a hurried engineer: select the newest Python, run ``python run.py``, and for each
error install the missing package, move the named package to a version that satisfies the
quoted requirement, try another version of a package whose API or hidden rule failed, or switch
Python when a Requires-Python bound says so. When the same error comes back, it changes the
next package the message names instead (e.g. the requirer rather than the requirement). It
never sees the hidden world.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import numpy as np

from arena_gen.core.agent import TaskView
from arena_gen.envs.repo.semver import SpecError, parse_spec, parse_version, satisfies

RUN = "python run.py"
_SPEC = r"((?:==|>=|<=|!=|>|<)[\d.]+(?:,(?:==|>=|<=|!=|>|<)[\d.]+)*)"


class RepoHeuristicAgent:
    """Reads error messages and repairs the named packages (see module docstring)."""

    name = "heuristic"
    privileged = False

    def __init__(self) -> None:
        self.packages: dict[str, list[str]] = {}
        self.pythons: list[str] = []
        self.queue: list[str] = []
        self.tried: dict[str, set[str]] = {}
        self.installed: dict[str, str] = {}
        self.seen: Counter[str] = Counter()
        self.last = ""
        self.python: str | None = None
        self.pkg = r"(pkg\d+)"

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        self.packages = {k: list(v) for k, v in view.public["packages"].items()}
        self.pythons = list(view.public["pythons"])
        self.queue = [f"pip install python=={self.pythons[-1]}", RUN]
        self.tried, self.installed, self.seen = {}, {}, Counter()
        self.last, self.python = "", None
        names = sorted(self.packages, key=len, reverse=True)
        self.pkg = r"\b(" + "|".join(re.escape(n) for n in names) + r")\b"

    # -- choosing versions ----------------------------------------------------------------------
    def _pick(self, name: str, spec: str | None = None, major: int | None = None) -> str:
        """The highest untried version of ``name`` matching ``spec`` / ``major``."""
        tried = self.tried.setdefault(name, set())
        try:
            clauses = parse_spec(spec) if spec else []
        except SpecError:
            clauses = []
        versions = self.packages.get(name, [])
        fits = [v for v in versions if satisfies(parse_version(v), clauses)
                and (major is None or parse_version(v)[0] == major)] or list(versions)
        fresh = [v for v in fits if v not in tried and v != self.installed.get(name)]
        if not fresh:  # everything tried: start over, avoiding the current version
            tried.clear()
            fresh = [v for v in fits if v != self.installed.get(name)] or fits
        choice = fresh[-1]
        tried.add(choice)
        return f"pip install {name}=={choice}"

    def _python_for(self, spec: str) -> str | None:
        try:
            clauses = parse_spec(spec)
        except SpecError:
            return None
        fits = [p for p in self.pythons if satisfies(parse_version(p), clauses)]
        return fits[-1] if fits else None

    # -- reading output -------------------------------------------------------------------------
    def _track(self, text: str) -> None:
        """Keep the believed installed versions up to date from install output."""
        if self.last.startswith("pip install python==") and (
                "Selected Python" in text or "already satisfied" in text):
            self.python = self.last.split("==")[1]
        for name, version in re.findall(r"Successfully installed " + self.pkg + r"-(\d+\.\d+)",
                                        text):
            self.installed[name] = version
            self.tried.setdefault(name, set()).add(version)
        for name, version in re.findall(self.pkg + r" (?:absent|\d+\.\d+) -> (\d+\.\d+)", text):
            self.installed[name] = version
        for name in re.findall(r"Successfully uninstalled " + self.pkg, text):
            self.installed.pop(name, None)

    def _plan(self, text: str) -> list[str]:
        """Commands that address the error in ``text`` (the re-run is appended by the caller)."""
        pkg = self.pkg
        error = next((line for line in text.splitlines() if "Error" in line or "ERROR" in line),
                     text)
        self.seen[error] += 1
        repeat = self.seen[error] - 1
        m = re.search(r"requires Python " + _SPEC, error)
        if m:
            py = self._python_for(m.group(1))
            if py and py != self.python and repeat % 2 == 0:
                return [f"pip install python=={py}"]
        if "no Python" in error:
            return [f"pip install python=={self.pythons[-1]}"]
        m = re.search(r"requires ((?:" + pkg + r"(?:, )?)+) to be installed first", error)
        if m:
            return [f"pip install {n}" for n in re.findall(pkg, m.group(1))] + [self.last]
        m = re.search(r"No module named '" + pkg + "'", error)
        if m:
            return [f"pip install {m.group(1)}"]
        m = re.search(pkg + r" [\d.]+ (?:has requirement|requires) " + pkg + _SPEC, error)
        if m:  # fix the requirement first; if it comes back, move the requirer instead
            return [self._pick(m.group(2), m.group(3)) if repeat % 2 == 0
                    else self._pick(m.group(1))]
        m = re.search(pkg + r" [\d.]+ must share the .* of " + pkg + r" (\d+)\.", error)
        if m and repeat % 2 == 0:
            return [self._pick(m.group(1), major=int(m.group(3)))]
        names = list(dict.fromkeys(re.findall(pkg, error)))
        if names:  # ImportError / TypeError / conflicts / hidden rules: another version
            return [self._pick(names[repeat % len(names)])]
        return []

    def act(self, observation: str) -> str:
        self._track(observation)
        if "ERROR" in observation or "Error" in observation:
            fixes = [c for c in self._plan(observation) if c]
            if fixes:
                self.queue = fixes + [RUN]
        if not self.queue:
            self.queue = [RUN]
        self.last = self.queue.pop(0)
        return self.last

    def state(self) -> dict[str, Any]:
        """What the agent believes (for debugging)."""
        return {"python": self.python, "installed": dict(self.installed),
                "tried": {k: sorted(v) for k, v in self.tried.items()}}
