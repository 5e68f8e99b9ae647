"""Stronger model-free rungs of repo v5: optimism over the remembered state graph, and a hill
climb on run.py's visible progress.

Neither has a model of the rules. Both keep the visible state (the selected Python and the
installed versions, as the command outputs report them) and remember what they saw:

- :class:`RepoOptimistAgent` (``optimist``): memory-only optimism. Every state it has seen is a
  node, every command it tried there an observed edge; a command not yet tried is assumed to
  work (``python run.py`` to succeed, an install to lead somewhere new). In each state it runs
  ``python run.py`` first, then tries the next untried command (select the newest Python if
  none is, install an absent package, then each other version, packages in name order,
  newest first, then the other Pythons);
  when the current state has nothing left to try it walks the remembered graph (breadth first)
  to the nearest state that has.
- :class:`RepoClimbAgent` (``climb``): first-improvement hill climbing on visible progress. The
  score of a configuration is how far ``python run.py`` gets (the script it stops in, in run
  order; success is the top). From the kept configuration it tries one version change at a
  time, the packages the failure names first, keeps a change that gets further (or as far with
  an output never seen before), and moves back otherwise; a change tried from a configuration is
  never tried again from it. When none is left it starts over from what it keeps (with
  ``pairs``, it first tries two-version changes: a named package and any other).

Deterministic (no randomness); they read only the observations and the public view.
"""

from __future__ import annotations

import re
from collections import deque

import numpy as np

from arena_gen.core.agent import TaskView
from arena_gen.envs.repo.semver import read_version

RUN = "python run.py"
_VER = r"(\d+(?:\.\d+)*)"
_NAME = r"([A-Za-z0-9_\-]+)"

State = tuple[str, tuple[tuple[str, str], ...]]


class VisibleState:
    """The Python and installed versions the outputs report (no model of why they change)."""

    def __init__(self) -> None:
        self.python = ""
        self.installed: dict[str, str] = {}

    def key(self) -> State:
        """A hashable snapshot."""
        return self.python, tuple(sorted(self.installed.items()))

    def track(self, text: str) -> None:
        """Update from one command's output."""
        m = re.search(r"Python " + _VER + r" is now the interpreter", text)
        if m:
            self.python = m.group(1)
        m = re.match(r"Installed " + _NAME + " " + _VER + r"\.", text)
        if m:
            self.installed[m.group(1)] = m.group(2)
        m = re.search(r"Changed along with it: (.*)\.", text)
        if m:
            for name, version in re.findall(_NAME + " " + _VER, m.group(1)):
                self.installed[name] = version
        m = re.match(r"Removed " + _NAME + " " + _VER, text)
        if m:
            self.installed.pop(m.group(1), None)


def _index(view: TaskView) -> tuple[dict[str, list[str]], list[str], list[str], list[str]]:
    """Versions (newest first), package order, Pythons (newest first), scripts in run order."""
    versions = {k: sorted(v, key=read_version, reverse=True)
                for k, v in view.public["packages"].items()}
    order = sorted(versions, key=lambda n: (len(n), n))
    pythons = sorted(view.public["pythons"], key=read_version, reverse=True)
    return versions, order, pythons, list(view.public["scripts"])


def _body(observation: str) -> str:
    return observation.rsplit("\nTurns left:", 1)[0].strip()


class RepoOptimistAgent:
    """Memory-only optimism over the visited state graph (module docstring)."""

    name = "optimist"
    privileged = False

    def __init__(self) -> None:
        self.seen = VisibleState()
        self.versions: dict[str, list[str]] = {}
        self.order: list[str] = []
        self.pythons: list[str] = []
        self.edges: dict[State, dict[str, State]] = {}
        self.last: tuple[State, str] | None = None

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        """Read the index; forget the graph."""
        self.versions, self.order, self.pythons, _ = _index(view)
        self.seen, self.edges, self.last = VisibleState(), {}, None

    def commands(self, state: State) -> list[str]:
        """The commands of a state, in the order they are tried."""
        python, installed = state
        have = dict(installed)
        pythons = [f"pip install python=={p}" for p in self.pythons if p != python]
        out = [RUN] + (pythons[:1] if not python else [])
        out += [f"pip install {n}" for n in self.order if n not in have]
        out += [f"pip install {n}=={v}" for n in self.order for v in self.versions[n]
                if n in have and v != have[n]]
        return out + (pythons if python else [])

    def _untried(self, state: State) -> str | None:
        tried = self.edges.get(state, {})
        return next((c for c in self.commands(state) if c not in tried), None)

    def act(self, observation: str) -> str:
        """Record the edge just walked; try the nearest untried command."""
        self.seen.track(_body(observation))
        here = self.seen.key()
        if self.last is not None:
            self.edges.setdefault(self.last[0], {})[self.last[1]] = here
        cmd = self._untried(here) or self._walk(here)
        self.last = (here, cmd)
        return cmd

    def _walk(self, start: State) -> str:
        """The first command of a shortest remembered path to a state with an untried command."""
        first: dict[State, str] = {}
        queue: deque[State] = deque([start])
        done = {start}
        while queue:
            node = queue.popleft()
            for cmd, nxt in self.edges.get(node, {}).items():
                if nxt in done:
                    continue
                done.add(nxt)
                first[nxt] = first.get(node, cmd)
                if self._untried(nxt) is not None:
                    return first[nxt]
                queue.append(nxt)
        return RUN  # everything reachable was tried


class RepoClimbAgent:
    """First-improvement hill climbing on run.py's progress (module docstring)."""

    name = "climb"
    privileged = False

    def __init__(self, named_first: bool = True, novelty: bool = True,
                 pairs: bool = False) -> None:
        self.named_first, self.novelty, self.pairs = named_first, novelty, pairs
        self.seen = VisibleState()
        self.versions: dict[str, list[str]] = {}
        self.order: list[str] = []
        self.scripts: list[str] = []
        self.queue: list[str] = []
        self.outputs: set[str] = set()
        self.best = -1
        self.keep: State = ("", ())
        self.tried: set[tuple[State, str, str]] = set()
        self.trial: tuple[str, str] | None = None
        self.named: list[str] = []
        self.pattern = re.compile(r"$^")
        self.last = ""

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        """Read the index; queue the newest Python, every package (newest) and a first run."""
        self.versions, self.order, pythons, self.scripts = _index(view)
        self.queue = ([f"pip install python=={pythons[0]}"] if pythons else []) + \
            [f"pip install {n}" for n in self.order] + [RUN]
        self.seen, self.outputs, self.best, self.tried = VisibleState(), set(), -1, set()
        self.keep, self.trial, self.named, self.last = ("", ()), None, [], ""
        names = sorted(self.versions, key=len, reverse=True)
        self.pattern = re.compile(r"\b(" + "|".join(re.escape(n) for n in names) + r")\b")

    def progress(self, text: str) -> int:
        """How far run.py got: scripts passed in run order (all of them plus one: success)."""
        if text.startswith("run.py finished"):
            return len(self.scripts) + 1
        m = re.search(r"run\.py stopped in (\S+):", text)
        if m and m.group(1) in self.scripts:
            return self.scripts.index(m.group(1))
        return -1

    def act(self, observation: str) -> str:
        """Install, run, keep or move back; repeat."""
        text = _body(observation)
        self.seen.track(text)
        if self.last == RUN:
            self._score(text)
        elif self.trial is not None and text.startswith("ERROR"):  # a trial's install failed:
            # nothing changed; a pair's second install leaves its first in place: move back
            self.trial, self.queue = None, self._back() if self.pairs else []
        self.last = self.queue.pop(0) if self.queue else self._next()
        return self.last

    def _score(self, text: str) -> None:
        """Keep the trial if run.py got further (or as far, with a new output); else go back."""
        score = self.progress(text)
        new = text not in self.outputs
        self.outputs.add(text)
        if score > self.best or (self.novelty and new and score == self.best) \
                or self.trial is None:
            self.best, self.keep = max(score, self.best), self.seen.key()
            self.named = list(dict.fromkeys(self.pattern.findall(text.split("\n", 1)[-1])))
        else:
            self.queue += self._back()
        self.trial = None

    def _back(self) -> list[str]:
        """Commands that restore the kept versions (as far as one install per package can)."""
        kept = dict(self.keep[1])
        out = []
        for n in self.order:
            now = self.seen.installed.get(n)
            if kept.get(n) != now:
                out.append(f"pip install {n}=={kept[n]}" if n in kept else f"pip uninstall {n}")
        return out

    def _next(self) -> str:
        """The next untried one-version change from the kept configuration, then a run."""
        kept = dict(self.keep[1])
        first = [n for n in self.named if n in self.versions] if self.named_first else []
        for n in first + [n for n in self.order if n not in first]:
            for v in self.versions[n]:
                if kept.get(n) == v or (self.keep, n, v) in self.tried:
                    continue
                self.tried.add((self.keep, n, v))
                self.trial = (n, v)
                self.queue = [RUN]
                return f"pip install {n}=={v}"
        if self.pairs:
            for n, v, m, w in self._pairs(first, kept):
                self.tried.add((self.keep, f"{n}=={v}", f"{m}=={w}"))
                self.trial = (n, v)
                self.queue = [f"pip install {m}=={w}", RUN]
                return f"pip install {n}=={v}"
        self.tried = {t for t in self.tried if t[0] != self.keep}  # all tried here: start over
        self.trial = None
        return RUN

    def _pairs(self, first: list[str], kept: dict[str, str]) -> list[tuple[str, str, str, str]]:
        """Untried two-version changes from the kept configuration (a named package and any
        other), for when every one-version change has been tried (``pairs``)."""
        out = []
        for n in first:
            for m in self.order:
                if m == n:
                    continue
                for v in self.versions[n]:
                    for w in self.versions[m]:
                        if kept.get(n) != v and kept.get(m) != w and \
                                (self.keep, f"{n}=={v}", f"{m}=={w}") not in self.tried:
                            out.append((n, v, m, w))
                            if len(out) == 1:
                                return out
        return out
