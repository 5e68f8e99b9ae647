"""Inductive repair learner for repo v5: the v4 learner that never repeats an install from a
state it has already issued it from.

Repo v5's conflict messages state only the installed side (``pkgP==V is not compatible with
pkgA==X``), so the learner can no longer read where the anchor must go; v4's learner reads the
stated version as an ``==`` blocker and moves the anchor off it, which still works, one version
at a time. What v5 adds is memory of the visible state graph: side effects that undo one
another (installing ``pkgB`` moves ``pkgA`` back, installing ``pkgA`` moves ``pkgB`` back) made
the v4 learner cycle through the same states for the rest of its budget. The v5 learner keeps
every (visible state, install) it issued; when its hypotheses propose an install it already
issued from the same state, it takes the next untried version of the packages the current
failure names (then of the packages it changed last, then of any package) instead. Everything
else (hypotheses, blame, memory per failure) is :class:`~.heuristic_v3.RepoV3HeuristicAgent`'s.
Deterministic; it reads only the observations and the public view.
"""

from __future__ import annotations

import numpy as np

from arena_gen.core.agent import TaskView
from arena_gen.envs.repo.agents.heuristic_v3 import RepoV3HeuristicAgent


class RepoV5HeuristicAgent(RepoV3HeuristicAgent):
    """The v5 inductive learner (module docstring)."""

    name = "heuristic"

    def __init__(self, no_repeat: bool = True, **knobs: object) -> None:
        super().__init__(**knobs)  # type: ignore[arg-type]
        self.no_repeat = no_repeat
        self.issued: set[tuple[object, str]] = set()
        self.broken = 0

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        """Forget the last episode."""
        super().reset(view, mode, rng)
        self.issued, self.broken = set(), 0

    def _key(self) -> object:
        return self.python, tuple(sorted(self.installed.items()))

    def act(self, observation: str) -> str:
        """The v4 learner's command, unless it is an install already issued from this state."""
        cmd = super().act(observation)
        if not self.no_repeat or not cmd.startswith("pip install ") or "python==" in cmd:
            return cmd
        key = self._key()
        if (key, cmd) in self.issued:
            alt = self._fresh(key)
            if alt is not None:
                self.broken += 1
                cmd = self.last = alt
        self.issued.add((key, cmd))
        return cmd

    def _fresh(self, key: object) -> str | None:
        """The next install not yet issued from this state (named packages first)."""
        pool = list(self.named) + list(self.recent) + sorted(self.versions)
        for name in dict.fromkeys(n for n in pool if n in self.versions):
            for v in reversed(self.versions[name]):
                cmd = f"pip install {name}=={v}"
                if v != self.installed.get(name) and (key, cmd) not in self.issued:
                    return cmd
        return None
