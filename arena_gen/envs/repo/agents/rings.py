"""Repo v6 agents for worlds of hidden groups: the group-wise planner and the ring learner.

The **planner** reads only ``view.rules_text``: the text parsed back into a world
(:func:`~arena_gen.envs.repo.sampler_v3.parse_rules`) is split into its groups and each group
searched exactly (:func:`~arena_gen.envs.repo.groups.solve_groups`); it plays the plan. Up to
:data:`SMALL_N` packages (Lite) it is v3's SAT planner.

The **ring learner** (the inductive rung) knows the v6 Challenge law (:mod:`..sampler_v6`):
hidden groups, each a hidden order whose first package installs freely and whose package at
position ``p`` installs only while ``p - 1`` is at its on version and some of the earlier ones
are installed at their other version; two versions per package; ``python run.py`` passes when
every package is at its on version. It knows no world: it induces from messages alone.

- A missing-dependency error names the dependencies not installed: the first try of each
  package with nothing installed names all of them (the learner tries every package once).
- Positions follow (the first has none; a package's is one more than its deepest
  dependency's), so each package's *previous* one is its deepest dependency.
- A successful install shows every dependency at a version the rule admits; a conflict shows
  one dependency at a version it does not (the other one is needed). Since the previous
  package must be on and the others off, each such fact names an on version.
- ``python run.py`` failing on a package's module while it is installed shows that version off.

It plans on what it knows, optimistically (an unknown requirement or on version admits both),
by exact BFS per group over the groups its dependencies reveal, and replans when an outcome
refutes the plan. Its cost is the first pass over the packages plus every walk a wrong guess
of an on version wastes, so it solves worlds with short enough minima within the budget and
not the others. Up to :data:`SMALL_N` packages it plays the v5 learner. Deterministic.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Sequence
from typing import Any

import numpy as np

from arena_gen.core import registry
from arena_gen.core.agent import TaskView
from arena_gen.core.game import WorldView
from arena_gen.core.probes import Probe, offers_probes
from arena_gen.envs.repo.agents.heuristic_v2 import RUN
from arena_gen.envs.repo.agents.heuristic_v5 import RepoV5HeuristicAgent
from arena_gen.envs.repo.agents.planner import RepoPlannerAgent
from arena_gen.envs.repo.groups import solve_groups
from arena_gen.envs.repo.sampler_v3 import parse_rules

#: Up to this many packages (Lite) the v5 agents play.
SMALL_N = 24
#: The largest group the learner plans over exactly ((versions + 1)^size configurations).
MAX_STATES = 50_000

_MISSING = re.compile(r"(\S+) ([\d.]+) needs these installed first: (.*)\. Nothing")
_CONFLICT = re.compile(r"(\S+) ([\d.]+) cannot sit beside (\S+) ([\d.]+) \(")
_INSTALLED = re.compile(r"^Installed (\S+) ([\d.]+)\.")
_REMOVED = re.compile(r"^Removed (\S+) ")
_RUN_FAIL = re.compile(r"from '([^'.]+)\.[^']*'")


class RepoGroupsPlannerAgent(RepoPlannerAgent):
    """Plans group by group from the rules text (module docstring); v3's planner on Lite."""

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        """Parse the rules text and search each group exactly; small worlds: v3's planner."""
        if len(view.public.get("packages", {})) <= SMALL_N:
            super().reset(view, mode, rng)
            return
        self.queue, self.fallback, self.model = [], None, None
        try:
            if view.rules_text is None:
                raise ValueError("the planner plays with the rules disclosed")
            world = parse_rules(view.rules_text)
            found = solve_groups(world)
            model = registry.get(view.env, view.env_version).load("game")
            if offers_probes(model):  # the task's own game class, compiled from the text
                self.model = model(WorldView(world, view.public, view.budget))
        except (ValueError, KeyError, IndexError):
            found = None
        if found is None or found.min_steps is None:
            self.fallback = RepoV5HeuristicAgent()
            self.fallback.reset(view, mode, rng)
            return
        self.queue = list(found.witness)


class RepoRingLearnerAgent:
    """Induces each hidden group's order and on versions from messages (module docstring)."""

    name, privileged = "heuristic", False

    def __init__(self, infer: bool = True) -> None:
        #: Read on versions from requirements (False, an ablation: from failed runs only).
        self.infer = infer
        self.small: RepoV5HeuristicAgent | None = None
        self.versions: dict[str, list[str]] = {}
        self.state: dict[str, int] = {}
        self.deps: dict[str, set[str] | None] = {}
        self.need: dict[tuple[str, str], int] = {}  # (package, dependency) -> version index
        self.on: dict[str, int] = {}
        self.off: dict[str, set[int]] = {}
        self.plan: deque[str] = deque()
        self.probe: deque[str] = deque()
        self.python = ""
        self.last = ""
        self.started = False

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        """Forget the last episode; small worlds are the v5 learner's."""
        packages = view.public.get("packages", {})
        self.small = None
        if len(packages) <= SMALL_N:
            self.small = RepoV5HeuristicAgent()
            self.small.reset(view, mode, rng)
            return
        self.versions = {q: list(vs) for q, vs in packages.items()}
        self.state = dict.fromkeys(packages, -1)
        self.deps = dict.fromkeys(packages)
        self.need, self.on, self.off = {}, {}, {q: set() for q in packages}
        self.plan, self.probe = deque(), deque(sorted(packages, key=_number))
        pythons = list(view.public.get("pythons") or ["3.11"])
        self.python = f"pip install python=={pythons[-1]}"
        self.last, self.started = "", False

    # -- reading outcomes --------------------------------------------------------------------
    def _index(self, q: str, version: str) -> int:
        return self.versions[q].index(version) if version in self.versions[q] else -1

    def _observe(self, text: str) -> None:
        """Learn from the output of the last command."""
        last = self.last
        m = _MISSING.search(text)
        if m is not None and self.deps.get(m.group(1)) is None and \
                all(self.state[q] < 0 for q in self.state if q != m.group(1)):
            self.deps[m.group(1)] = {x.split(" ")[0] for x in m.group(3).split(", ")}
        elif m is not None and self.deps.get(m.group(1)) is None:
            self.deps[m.group(1)] = None  # only part named: tried again with nothing installed
        m = _CONFLICT.search(text)
        if m is not None:
            p, q, bad = m.group(1), m.group(3), self._index(m.group(3), m.group(4))
            self.need[(p, q)] = 1 - bad
            self._infer(p, q)
        m = _INSTALLED.search(text)
        if m is not None and last.startswith("pip install "):
            p = m.group(1)
            if self.deps.get(p) is None:
                self.deps[p] = set()
            for q in self.deps[p] or ():
                self.need[(p, q)] = self.state[q]
                self._infer(p, q)
            self.state[p] = self._index(p, m.group(2))
        if _REMOVED.search(text) is not None:
            self.state[_REMOVED.search(text).group(1)] = -1  # type: ignore[union-attr]
        if last == RUN and "ERROR" in text:
            m = _RUN_FAIL.search(text)
            if m is not None and m.group(1) in self.state and self.state[m.group(1)] >= 0:
                q = m.group(1)
                self.on[q] = 1 - self.state[q]

    def _position(self, q: str, seen: frozenset[str] = frozenset()) -> int | None:
        """A package's position in its order (None while a dependency set is unknown)."""
        deps = self.deps.get(q)
        if deps is None or q in seen:
            return None
        if not deps:
            return 0
        found = [self._position(d, seen | {q}) for d in deps]
        return None if any(f is None for f in found) else 1 + max(f for f in found if f is not None)

    def _infer(self, p: str, q: str) -> None:
        """A requirement of ``p`` on ``q`` names ``q``'s on version (previous: needed on;
        any other dependency: needed off)."""
        deps = self.deps.get(p)
        if not self.infer or not deps or (p, q) not in self.need:
            return
        pos = {d: self._position(d) for d in deps}
        if any(v is None for v in pos.values()):
            return
        deepest = max(deps, key=lambda d: (pos[d], d))
        self.on[q] = self.need[(p, q)] if q == deepest else 1 - self.need[(p, q)]

    # -- planning ----------------------------------------------------------------------------
    def _groups(self) -> list[list[str]]:
        """The groups the known dependencies join (unknown packages alone)."""
        root = {q: q for q in self.state}

        def find(q: str) -> str:
            while root[q] != q:
                q = root[q]
            return q

        for p, deps in self.deps.items():
            for d in deps or ():
                a, b = find(p), find(d)
                if a != b:
                    root[max(a, b, key=_number)] = min(a, b, key=_number)
        out: dict[str, list[str]] = {}
        for q in sorted(self.state, key=_number):
            out.setdefault(find(q), []).append(q)
        return list(out.values())

    def _allowed(self, p: str, config: dict[str, int]) -> bool:
        """Whether installing ``p`` may work in ``config`` (optimistic where unknown)."""
        for q in self.deps.get(p) or ():
            v = config[q]
            if v < 0:
                return False
            need = self.need.get((p, q))
            if need is not None and need != v:
                return False
        return True

    def _goal(self, q: str, v: int) -> bool:
        return v >= 0 and self.on.get(q, v) == v

    def _search(self, group: list[str]) -> list[str] | None:
        """The shortest install sequence for ``group`` under the current model (None: none
        or the group too large)."""
        if 3 ** len(group) > MAX_STATES:
            return None
        start = tuple(self.state[q] for q in group)
        if all(self._goal(q, v) for q, v in zip(group, start, strict=True)):
            return []
        parent: dict[tuple[int, ...], tuple[tuple[int, ...], str] | None] = {start: None}
        queue = deque([start])
        while queue:
            here = queue.popleft()
            config = dict(zip(group, here, strict=True))
            for i, p in enumerate(group):
                for v in range(len(self.versions[p])):
                    if v == here[i] or not self._allowed(p, config):
                        continue
                    nxt = here[:i] + (v,) + here[i + 1:]
                    if nxt in parent:
                        continue
                    parent[nxt] = (here, f"pip install {p}=={self.versions[p][v]}")
                    if all(self._goal(q, x) for q, x in zip(group, nxt, strict=True)):
                        out: list[str] = []
                        at: tuple[int, ...] | None = nxt
                        while at is not None and parent[at] is not None:
                            prev, text = parent[at]  # type: ignore[misc]
                            out.append(text)
                            at = prev
                        return out[::-1]
                    queue.append(nxt)
        return None

    def _replan(self) -> None:
        """A plan for the first group not yet at its goal, then ``python run.py``."""
        self.plan.clear()
        for group in self._groups():
            steps = self._search(group)
            if steps:
                self.plan.extend(steps)
                return
        self.plan.append(RUN)

    # -- acting ------------------------------------------------------------------------------
    def act(self, observation: str) -> str:
        """The next command (module docstring)."""
        if self.small is not None:
            return self.small.act(observation)
        if not self.started:
            self.started = True
            self.last = self.python
            return self.python
        self._observe(observation)
        if self.plan and self.last == self.plan[0]:
            if "ERROR" in observation:
                self.plan.clear()  # refuted: replan on what the error taught
            else:
                self.plan.popleft()
        while self.probe:  # the first pass: each package tried once from nothing installed
            q = self.probe.popleft()
            if self.deps.get(q) is None:
                self.last = f"pip install {q}"
                if any(v >= 0 for v in self.state.values()):
                    self.last = f"pip uninstall {next(x for x, v in self.state.items() if v >= 0)}"
                    self.probe.appendleft(q)
                return self.last
        if not self.plan:
            self._replan()
        self.last = self.plan[0]
        return self.last

    def answer_probes(self, probes: Sequence[Probe]) -> list[str]:
        """Small worlds: the v5 learner's answers; else none."""
        if self.small is not None:
            return self.small.answer_probes(probes)
        return [""] * len(probes)


def _number(name: str) -> Any:
    """Package names in numeric order (``pkg2`` before ``pkg10``)."""
    digits = "".join(ch for ch in name if ch.isdigit())
    return (int(digits) if digits else -1, name)
