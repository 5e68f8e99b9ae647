"""Inductive repair learner for repo v4: read each failure's module and importer, test the
hypotheses that explain it, and blame the change that made it appear.

Repo v4 reports every run-time failure in one shape (``ImportError`` / ``TypeError`` naming a
module ``PKG.MOD`` and an importer), so the form never tells a real check from a consistency or
hidden rule; the learner keeps three hypotheses per failure and tests them in turn:

    - **API** (a real check): the module's package ``PKG`` lacks the symbol or keyword at its
      installed version (not installed: install it), or the importing package's version asks
      for it: another version of ``PKG``, then of the importer.
    - **Consistency** (the importer is a package whose major, or major.minor, differs from
      ``PKG``'s): move the importer to ``PKG``'s major (newest such version), else ``PKG`` to
      the importer's. :attr:`fired` counts how often this branch acted.
    - **Decoy** (the failure survives changes of the packages it names): the packages that
      changed just before the failure first appeared are blamed, and each is moved back to the
      version it had before, then to older versions.

Each suspect gets at most ``depth`` versions per round before the next suspect is tried (the
rounds repeat). Install errors, drift repair and the per-error memory of tried versions are the
v2 learner's (:class:`~.heuristic_v2.RepoV2HeuristicAgent`). Deterministic; it reads only the
observations and the public view.
"""

from __future__ import annotations

import re

import numpy as np

from arena_gen.core.agent import TaskView
from arena_gen.envs.repo.agents.heuristic_v2 import RUN, RepoV2HeuristicAgent
from arena_gen.envs.repo.semver import read_version

_FAIL = re.compile(r"(?:cannot import name '[^']+' from '([^'.]+)\.[^']*'|"
                   r"([^\s.]+)\.[^\s.]+\.[^\s(]+\(\) got an unexpected keyword argument '[^']+')"
                   r" \(imported by '([^']+)'\)")


class RepoV3HeuristicAgent(RepoV2HeuristicAgent):
    """The v4 inductive learner (module docstring); the knobs are the ablation's."""

    name = "heuristic"

    def __init__(self, depth: int = 2, align: bool = True, blame: bool = True,
                 revert_first: bool = True) -> None:
        super().__init__()
        self.depth, self.align, self.use_blame, self.revert_first = \
            depth, align, blame, revert_first
        self.fired = 0
        self.since: dict[str, str | None] = {}  # package -> version before, since the last run
        self.blamed: dict[str, dict[str, str | None]] = {}  # error -> packages changed before it
        self.last_error: str | None = None

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        """Forget the last episode (see the v2 learner)."""
        super().reset(view, mode, rng)
        self.fired, self.since, self.blamed, self.last_error = 0, {}, {}, None

    def _set(self, name: str, version: str | None, drift: bool = False) -> None:
        """Record the change, and the version before it since the last run."""
        if name not in self.since:
            self.since[name] = self.installed.get(name)
        super()._set(name, version, drift)

    # -- hypotheses ------------------------------------------------------------------------------
    def _limited(self, error: str, suspects: list[str]) -> str | None:
        """The next untried version of the first suspect that has had fewer than ``depth``
        versions tried under ``error`` this round (newest first)."""
        tried = self.tried.setdefault(error, {})
        for name in dict.fromkeys(suspects):
            if name not in self.versions:
                continue
            seen = tried.setdefault(name, set())
            current = self.installed.get(name)
            if len(seen - {current}) >= self.depth:
                continue
            if current is not None:
                seen.add(current)
            fresh = [v for v in reversed(self.versions[name])
                     if v not in seen and self._usable(name, v)]
            if fresh:
                seen.add(fresh[0])
                return self._install(name, fresh[0])
        return None

    def _revert(self, error: str) -> str | None:
        """Move a package blamed for ``error`` back to its version before the change."""
        tried = self.tried.setdefault(error, {})
        for name, before in self.blamed.get(error, {}).items():
            seen = tried.setdefault(name, set())
            if before is None:
                continue
            if before != self.installed.get(name) and before not in seen and \
                    self._usable(name, before):
                seen.add(before)
                return self._install(name, before)
        return None

    def _consistent(self, error: str, pkg: str, importer: str) -> str | None:
        """The consistency hypothesis: align the importer's major (or version) with ``pkg``'s."""
        a, b = self.installed.get(pkg), self.installed.get(importer)
        if a is None or b is None:
            return None
        va, vb = read_version(a), read_version(b)
        if va == vb:
            return None
        minor = va[0] == vb[0]  # majors agree: only a same-M.m rule can fail here
        tried = self.tried.setdefault(error, {})
        for name, anchor in ((importer, va), (pkg, vb)):
            seen = tried.setdefault(name, set())
            fits = [v for v in self.versions[name] if v not in seen and self._usable(name, v)
                    and (read_version(v) == anchor if minor else read_version(v)[0] == anchor[0])]
            if fits:
                seen.add(fits[-1])
                self.fired += 1
                return self._install(name, fits[-1])
        return None

    def _run_fix(self, error: str) -> list[str]:
        """Commands that address a run-time failure line (module docstring)."""
        if self.goal is not None and self.goal != error and self.fix is not None:
            self.fixed[self.goal] = self.fix  # the last fix cured the previous error
        self.goal, self.fix = error, None
        cure = self.fixed.pop(error, None)
        if cure and cure[0] in self.drifted and self.installed.get(cure[0]) != cure[1] \
                and self._usable(*cure):
            return [self._install(*cure)]  # a side effect undid an earlier cure: redo it
        if "no Python selected" in error:
            return [f"pip install python=={self.pythons[-1]}"]
        m = _FAIL.search(error)
        if m is None:
            named = list(dict.fromkeys(re.findall(self.pkg, error)))
            return [c for c in [self._repair(error, named)] if c]
        pkg, importer = m.group(1) or m.group(2), m.group(3)
        if pkg in self.versions and pkg not in self.installed:
            return [f"pip install {pkg}"]
        suspects = [pkg] + ([importer] if importer in self.versions else [])
        blamed = list(self.blamed.get(error, {})) if self.use_blame else []
        steps = []
        if self.align and importer in self.versions:
            steps.append(lambda: self._consistent(error, pkg, importer))
        if self.use_blame and self.revert_first:
            steps.append(lambda: self._revert(error))
        steps.append(lambda: self._limited(error, suspects))
        if self.use_blame:
            steps.append(lambda: self._revert(error))
            steps.append(lambda: self._limited(error, blamed))
        steps.append(lambda: self._limited(error, self.recent))
        for step in steps:
            cmd = step()
            if cmd:
                return [cmd]
        for name in self.tried.get(error, {}):  # a new round: the depth budget resets
            self.tried[error][name] = set()
        return [c for c in [self._repair(error, suspects + blamed)] if c]

    def act(self, observation: str) -> str:
        """The v2 loop, remembering which changes came before each new run-time failure."""
        text = observation.rsplit("\nTurns left:", 1)[0].strip()
        if self.last.startswith("python "):
            error = text.split("\n", 1)[-1].strip() if text.startswith("ERROR") else None
            if error is not None and error != self.last_error and error not in self.blamed:
                self.blamed[error] = dict(self.since)
            if self.last == RUN:
                self.last_error = error
            self.since = {}
        return super().act(observation)
