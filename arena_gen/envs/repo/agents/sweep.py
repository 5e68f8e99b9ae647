"""The model-free rung of repo v4: a systematic search over version choices with memory.

It has no model of the rules and reads no error text: it selects the newest Python, installs
every package (newest first), then sweeps the packages in name order, trying each version of
one package (newest first) followed by ``python run.py``. Its only signals are how far
``run.py`` got (the index of the script it stopped in, or success) and whether its output is
one it has not seen before: a version that gets further, or as far with a new output
(``novelty``), is kept; otherwise the package goes back to its kept version (``restore``)
before the next trial.
Passes repeat until the budget runs out; a (package, version) already tried at the current
best progress is never retried. Deterministic (no randomness).
"""

from __future__ import annotations

import re

import numpy as np

from arena_gen.core.agent import TaskView
from arena_gen.envs.repo.semver import read_version

RUN = "python run.py"


class RepoSweepAgent:
    """Coordinate search over package versions scored by run.py's progress (module docstring)."""

    name = "sweep"
    privileged = False

    def __init__(self, novelty: bool = True, restore: bool = True) -> None:
        self.novelty, self.restore = novelty, restore
        self.seen: set[str] = set()
        self.queue: list[str] = []
        self.order: list[str] = []
        self.versions: dict[str, list[str]] = {}
        self.scripts: list[str] = []
        self.best = -1
        self.keep: dict[str, str] = {}
        self.tried: set[tuple[str, str, int]] = set()
        self.pending: tuple[str, str] | None = None
        self.cursor = 0

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        """Read the index and the scripts; queue the Python and one install of each package."""
        self.versions = {k: sorted(v, key=read_version, reverse=True)
                         for k, v in view.public["packages"].items()}
        self.order = sorted(self.versions, key=lambda n: (len(n), n))
        self.scripts = list(view.public["scripts"])
        pythons = sorted(view.public["pythons"], key=read_version)
        self.queue = ([f"pip install python=={pythons[-1]}"] if pythons else []) + \
            [f"pip install {n}" for n in self.order] + [RUN]
        self.best, self.keep, self.tried = -1, {n: self.versions[n][0] for n in self.order}, set()
        self.pending, self.cursor, self.seen = None, 0, set()

    def _progress(self, text: str) -> int:
        """How far run.py got: the index of the script it stopped in (-1: no Python or no run)."""
        m = re.search(r"run\.py stopped in (\S+):", text)
        if m and m.group(1) in self.scripts:
            return self.scripts.index(m.group(1))
        return -1

    def _next(self) -> list[str]:
        """The next untried (package, version) at the current progress, as install + run."""
        for _ in range(sum(len(v) for v in self.versions.values()) + 1):
            flat = [(n, v) for n in self.order for v in self.versions[n]]
            n, v = flat[self.cursor % len(flat)]
            self.cursor += 1
            if v == self.keep.get(n) or (n, v, self.best) in self.tried:
                continue
            self.tried.add((n, v, self.best))
            return [f"pip install {n}=={v}", RUN]
        self.tried.clear()  # everything tried at this progress: start the sweep over
        return [RUN]

    def act(self, observation: str) -> str:
        """Install, run, score by progress, keep or restore; repeat."""
        text = observation.rsplit("\nTurns left:", 1)[0].strip()
        if not self.queue:  # the last command was python run.py: score the pending trial
            score = self._progress(text)
            new = text not in self.seen
            self.seen.add(text)
            restore: list[str] = []
            if self.pending is not None:
                n, v = self.pending
                if score > self.best or (self.novelty and new and score == self.best) \
                        or not self.restore:
                    self.keep[n] = v
                else:
                    restore = [f"pip install {n}=={self.keep[n]}"]
            self.best = max(self.best, score)
            self.queue = restore + self._next()
            self.pending = self.queue_pending()
        return self.queue.pop(0) if self.queue else RUN

    def queue_pending(self) -> tuple[str, str] | None:
        """The (package, version) the queued install tries (the one the next run scores)."""
        for cmd in reversed(self.queue):
            m = re.match(r"pip install (\S+)==(\S+)$", cmd)
            if m:
                return (m.group(1), m.group(2))
        return None


class RepoNamedLoopAgent:
    """A model-free loop over the versions of the packages an output names: after each
    ``python run.py`` it installs the next untried version (newest first) of the first package
    the output names (then of any package), with memory per output of what was tried under
    it; no hypothesis about why a message appears, no handling of install errors."""

    name = "named_loop"
    privileged = False

    def __init__(self) -> None:
        self.versions: dict[str, list[str]] = {}
        self.order: list[str] = []
        self.queue: list[str] = []
        self.tried: dict[str, set[tuple[str, str]]] = {}
        self.pattern = re.compile(r"$^")

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        """Read the index; queue the newest Python and a first run."""
        self.versions = {k: sorted(v, key=read_version, reverse=True)
                         for k, v in view.public["packages"].items()}
        self.order = sorted(self.versions, key=lambda n: (len(n), n))
        pythons = sorted(view.public["pythons"], key=read_version)
        self.queue = ([f"pip install python=={pythons[-1]}"] if pythons else []) + [RUN]
        self.tried = {}
        names = sorted(self.versions, key=len, reverse=True)
        self.pattern = re.compile(r"\b(" + "|".join(re.escape(n) for n in names) + r")\b")

    def act(self, observation: str) -> str:
        """Run, then change one version of a named package; repeat."""
        text = observation.rsplit("\nTurns left:", 1)[0].strip()
        if not self.queue:
            tried = self.tried.setdefault(text, set())
            named = list(dict.fromkeys(self.pattern.findall(text)))
            for n in named + self.order:
                fresh = [v for v in self.versions[n] if (n, v) not in tried]
                if fresh:
                    tried.add((n, fresh[0]))
                    self.queue = [f"pip install {n}=={fresh[0]}", RUN]
                    break
            else:
                tried.clear()
                self.queue = [RUN]
        return self.queue.pop(0)
