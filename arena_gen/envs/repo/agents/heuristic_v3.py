"""Inductive repair learner for repo v4: read each failure's module and importer, test the
hypotheses that explain it, and blame the change that made it appear.

Repo v4 reports every run-time failure in one shape (``ImportError`` / ``TypeError`` naming a
module ``PKG.MOD`` and an importer), so the form never tells a real check from a consistency or
hidden rule; the learner keeps three hypotheses per failure and tests them in turn:

    - **API** (a real check): the module's package ``PKG`` lacks the symbol or keyword at its
      installed version (not installed: install it), or the importing package's version asks
      for it: another version of ``PKG``, then of the importer.
    - **Consistency** (the importer is a package): while the versions of ``PKG`` and of the
      importer are walked, those sharing the other's installed major come first
      (``align="rank"``, the default; :attr:`fired` counts how often this changes the choice);
      ``align="step"`` instead moves the importer (or ``PKG``) to the other's major before
      walking, ``"off"`` walks newest first.
    - **Decoy** (the failure survives changes of the packages it names): the packages that
      changed just before the failure first appeared are blamed, and each is moved back to the
      version it had before, then to older versions.

Each suspect gets at most ``depth`` versions per round before the next suspect is tried (the
rounds repeat); the versions tried are remembered per failure and per installed version of the
other package it names (``context``), and a version that cured a failure is re-applied, up to
``redo`` times, when a side effect undid it. The defaults are the best of the ablation
(``benchmarks/bench_ablation_repo.py``). Install errors and drift repair are the
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

    def __init__(self, depth: int = 99, align: str = "rank", blame: bool = True,
                 revert_first: bool = False, couple: bool = False, protect: bool = False,
                 redo: int = 4, context: bool = True, forget_cures: bool = False,
                 redo_any: bool = False, align_after: int = 2,
                 anchor_first: bool = True) -> None:
        super().__init__()
        self.anchor_first = anchor_first
        self.pair: tuple[str, ...] = ()
        self.align_after = align_after
        self.forget_cures, self.redo_any = forget_cures, redo_any
        self.context = context
        self.named: list[str] = []
        self.depth, self.align, self.use_blame, self.revert_first, self.couple = \
            depth, align, blame, revert_first, couple
        self.use_protect, self.redo = protect, redo
        #: package -> the version that cured a failure (moved only when nothing else is left)
        self.protect: dict[str, str] = {}
        self.guard = False
        self.redone: dict[str, int] = {}
        self.fired = 0
        #: learned couplings: member -> [(anchor, same M.m?)], confirmed when aligning cured
        self.couples: dict[str, list[tuple[str, bool]]] = {}
        self.trial: tuple[str, str, str, bool] | None = None  # (error, member, anchor, minor)
        self.since: dict[str, str | None] = {}  # package -> version before, since the last run
        self.blamed: dict[str, dict[str, str | None]] = {}  # error -> packages changed before it
        self.last_error: str | None = None

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        """Forget the last episode (see the v2 learner)."""
        super().reset(view, mode, rng)
        self.fired, self.since, self.blamed, self.last_error = 0, {}, {}, None
        self.couples, self.trial = {}, None
        self.protect, self.guard, self.redone = {}, False, {}

    def _seen(self, error: str, name: str) -> set[str]:
        """The versions of ``name`` tried under ``error`` while the other packages the error
        names sit where they are now (with ``context``; else under the error alone)."""
        key = error
        if self.context:
            key += "|" + ",".join(f"{n}={self.installed.get(n)}" for n in self.named if n != name)
        return self.tried.setdefault(key, {}).setdefault(name, set())

    def _guarded(self, name: str) -> bool:
        """Whether ``name`` sits at a version that cured a failure (skipped while guarding)."""
        return self.guard and self.protect.get(name) == self.installed.get(name) is not None

    def _usable(self, name: str, version: str) -> bool:
        """The v2 rule, and every learned coupling: a member's version keeps its anchor's
        major (or M.m) as installed."""
        if not super()._usable(name, version):
            return False
        for anchor, minor in self.couples.get(name, []):
            have = self.installed.get(anchor)
            if have is not None and (read_version(version) if minor else
                                     read_version(version)[0]) != \
                    (read_version(have) if minor else read_version(have)[0]):
                return False
        return True

    def _set(self, name: str, version: str | None, drift: bool = False) -> None:
        """Record the change, and the version before it since the last run."""
        if name not in self.since:
            self.since[name] = self.installed.get(name)
        super()._set(name, version, drift)

    # -- hypotheses ------------------------------------------------------------------------------
    def _limited(self, error: str, suspects: list[str], depth: int | None = None) -> str | None:
        """The next untried version of the first suspect that has had fewer than ``depth``
        versions tried under ``error`` this round (newest first)."""
        for name in dict.fromkeys(suspects):
            if name not in self.versions or self._guarded(name):
                continue
            seen = self._seen(error, name)
            current = self.installed.get(name)
            if len(seen - {current}) >= (self.depth if depth is None else depth):
                continue
            if current is not None:
                seen.add(current)
            fresh = [v for v in reversed(self.versions[name])
                     if v not in seen and self._usable(name, v)]
            fresh = self._rank(name, fresh)
            if fresh:
                seen.add(fresh[0])
                return self._install(name, fresh[0])
        return None

    def _rank(self, name: str, fresh: list[str]) -> list[str]:
        """The consistency hypothesis as a ranking (``align == "rank"``): while a failure names
        a module's package and an importing package, the versions of either that share the
        other's installed major come first (counted in :attr:`fired` when that changes the
        choice)."""
        if self.align != "rank" or name not in self.pair:
            return fresh
        other = self.pair[1] if name == self.pair[0] else self.pair[0]
        have = self.installed.get(other)
        if have is None:
            return fresh
        major = read_version(have)[0]
        first = [v for v in fresh if read_version(v)[0] == major]
        if first and first[0] != fresh[0]:
            self.fired += 1
        return first + [v for v in fresh if v not in first]

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
        pairs = [(importer, va), (pkg, vb)]
        for name, anchor in (pairs[::-1] if self.anchor_first else pairs):
            if self._guarded(name):
                continue
            seen = self._seen(error, name)
            fits = [v for v in self.versions[name] if v not in seen and self._usable(name, v)
                    and (read_version(v) == anchor if minor else read_version(v)[0] == anchor[0])]
            if fits:
                seen.add(fits[-1])
                self.fired += 1
                member, other = (importer, pkg) if name == importer else (pkg, importer)
                self.trial = (error, member, other, minor)
                return self._install(name, fits[-1])
        return None

    def _run_fix(self, error: str) -> list[str]:
        """Commands that address a run-time failure line (module docstring)."""
        if self.goal is not None and self.goal != error and self.fix is not None:
            self.fixed[self.goal] = self.fix  # the last fix cured the previous error
            if self.use_protect:
                self.protect[self.fix[0]] = self.fix[1]
            if self.forget_cures:  # a cure is no failed trial: it may be tried again
                for key, by_name in self.tried.items():
                    if key == self.goal or key.startswith(self.goal + "|"):
                        by_name.get(self.fix[0], set()).discard(self.fix[1])
        self.goal, self.fix = error, None
        cure = self.fixed.get(error)
        if cure and self.installed.get(cure[0]) != cure[1] and self._usable(*cure) and \
                self.redone.get(error, 0) < self.redo and \
                (self.redo_any or self.use_protect or cure[0] in self.drifted):
            self.redone[error] = self.redone.get(error, 0) + 1
            return [self._install(*cure)]  # a later change undid an earlier cure: redo it
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
        self.named = list(suspects)
        blamed = list(self.blamed.get(error, {})) if self.use_blame else []
        steps = []
        self.pair = (pkg, importer) if importer in self.versions else ()
        if self.align == "step" and importer in self.versions:
            # the API hypothesis first: a few versions of the module's package, then the
            # importer's, then the consistency hypothesis
            steps.append(lambda: self._limited(error, [pkg], self.align_after))
            steps.append(lambda: self._limited(error, [importer], self.align_after))
            steps.append(lambda: self._consistent(error, pkg, importer))
        if self.use_blame and self.revert_first:
            steps.append(lambda: self._revert(error))
        steps.append(lambda: self._limited(error, suspects))
        if self.use_blame:
            steps.append(lambda: self._revert(error))
            steps.append(lambda: self._limited(error, blamed))
        steps.append(lambda: self._limited(error, self.recent))
        for guard in ((True, False) if self.use_protect else (False,)):
            self.guard = guard
            for step in steps:
                cmd = step()
                if cmd:
                    self.guard = False
                    return [cmd]
        self.guard = False
        for key in [k for k in self.tried if k == error or k.startswith(error + "|")]:
            del self.tried[key]  # a new round: every memory of this error resets
        return [c for c in [self._repair(error, suspects + blamed)] if c]

    def act(self, observation: str) -> str:
        """The v2 loop, remembering which changes came before each new run-time failure."""
        text = observation.rsplit("\nTurns left:", 1)[0].strip()
        if self.last.startswith("python "):
            error = text.split("\n", 1)[-1].strip() if text.startswith("ERROR") else None
            if error is not None and error != self.last_error and error not in self.blamed:
                self.blamed[error] = dict(self.since)
            if self.trial is not None and self.last == RUN:
                goal, member, anchor, minor = self.trial
                if error != goal and self.couple:  # aligning cured it: keep the coupling
                    self.couples.setdefault(member, []).append((anchor, minor))
                self.trial = None
            if self.last == RUN:
                self.last_error = error
            self.since = {}
        return super().act(observation)
