"""Independent groups of a repo world: exact minima and random bounds group by group.

A *group* is a set of packages closed under the rules: every install rule of a package of the
group (dependencies, conflicts, side effects) and every run-time rule (an API use with its
caller, a consistency rule, a hidden rule) names packages of one group only, and no version
has a Requires-Python bound (the Python would be shared). The groups of a world are the
connected components of the graph joining the packages each rule names (:func:`groups`), so
they are derived from the world alone, never taken from the generator.

Why the exact minimum of a world is the groups' minima summed, less ``2 (G - 1)``. Let ``k_g``
be the minimum of group ``g`` played as a world of its own (:func:`sub_world`: its packages,
the same Pythons, every script's calls of its packages), counting its one Python selection and
its final ``python run.py``. Take any completion of the whole world and keep, for one group,
the commands on its packages, the first Python selection and the final run. Each kept install
or uninstall sees the same group packages as before (other commands never move them; the
rules of a group's package read only the group; no rule reads the Python), so it does the
same; the Python is selected before the run; the run passes the group's checks, a part of the
world's. So the kept commands complete the group's world: the completion spends at least
``k_g - 2`` commands on the group's packages, for every group, and at least one Python
selection and one run besides: ``sum(k_g) - 2 (G - 1)`` in all. The groups' own shortest plans
played one after another, after one Python selection and before one run, take exactly that.
``tests/test_repo_v6.py`` checks it against a breadth-first search over whole small worlds.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.sparse import csr_matrix

from arena_gen.core.canon import sha256_of
from arena_gen.core.game import WorldView
from arena_gen.envs.repo.common import ABSENT
from arena_gen.envs.repo.game_v2 import InstallFailure, RepoGameV2, RepoV2

#: The largest group a group-wise search takes (BFS over (versions + 1)^size states).
MAX_GROUP_STATES = 200_000
#: The random agent's command mix for one named package (:func:`.common.random_command`):
#: an exact install, a bare install, an uninstall; the rest never moves a package.
P_EXACT, P_BARE, P_UNINSTALL = 0.45, 0.10, 0.07


def _named(world: dict[str, Any]) -> list[list[str]]:
    """Per rule of the world, the packages it names (each one a set of joined packages)."""
    out: list[list[str]] = []
    for key in ("version_dependencies", "version_conflicts", "side_effects",
                "symbol_requires"):
        for name, by_ver in (world.get(key) or {}).items():
            for entries in by_ver.values():
                for e in entries or []:
                    if key == "symbol_requires":
                        out.append([name, e["provider"]])
                    elif key == "side_effects":
                        out.append([name, e[1]])
                    else:
                        out.append([name, e[0]])
    for rule in world.get("consistency_rules") or []:
        out.append([rule["anchor"], *rule["packages"]])
    for rule in world.get("hidden_rules") or []:
        out.append([q for q, cl in rule["when"] if cl])
    return out


def groups(world: dict[str, Any]) -> list[list[int]]:
    """The connected components of the packages (indices in ``package_order``), each sorted,
    ordered by smallest package; one group of all when a Requires-Python bound exists."""
    names = list(world["package_order"])
    index = {q: i for i, q in enumerate(names)}
    if any(v for by_ver in (world.get("version_requires_python") or {}).values()
           for v in by_ver.values()):
        return [list(range(len(names)))]
    root = list(range(len(names)))

    def find(i: int) -> int:
        while root[i] != i:
            root[i] = root[root[i]]
            i = root[i]
        return i

    for named in _named(world):
        ids = [index[q] for q in named]
        for j in ids[1:]:
            a, b = find(ids[0]), find(j)
            if a != b:
                root[max(a, b)] = min(a, b)
    found: dict[int, list[int]] = {}
    for i in range(len(names)):
        found.setdefault(find(i), []).append(i)
    return sorted(found.values())


def sub_world(world: dict[str, Any], group: list[int]) -> dict[str, Any]:
    """Group ``group`` as a world of its own: its packages and their rules, the same Pythons
    and scripts, each script's calls and imports of the group only (a closed group only)."""
    names = [world["package_order"][i] for i in group]
    keep = set(names)

    def only(key: str) -> dict[str, Any]:
        return {q: v for q, v in (world.get(key) or {}).items() if q in keep}

    scripts = {path: {"calls": [c for c in entry.get("calls", []) if c["provider"] in keep],
                      "imports": [q for q in entry.get("imports", []) if q in keep]}
               for path, entry in world["scripts"].items()}
    return {
        "package_order": names, "packages": {q: world["packages"][q] for q in names},
        "python_versions": list(world["python_versions"]),
        **{key: only(key) for key in ("version_requires_python", "version_dependencies",
                                      "version_conflicts", "side_effects", "symbol_requires",
                                      "api_surface")},
        "scripts": scripts, "entrypoints": list(world["entrypoints"]),
        "consistency_rules": [r for r in world.get("consistency_rules") or []
                              if r["anchor"] in keep],
        "hidden_rules": [r for r in world.get("hidden_rules") or []
                         if all(q in keep for q, cl in r["when"] if cl)]}


@dataclass(frozen=True)
class GroupSpace:
    """Every configuration of one group reachable from nothing installed (Python selected),
    with its moves: the exact minimum, the plan, and the random chain are read from it."""

    game: RepoGameV2
    states: list[tuple[int, ...]]
    moves: list[list[tuple[str, int]]]  # per state: (command text, next state) that move it
    depth: list[int]
    parent: list[tuple[int, str] | None]
    goal: list[bool]

    @property
    def min_installs(self) -> int | None:
        """The fewest installs and uninstalls from nothing to a passing run (None: none)."""
        found = [d for d, ok in zip(self.depth, self.goal, strict=True) if ok]
        return min(found) if found else None

    def plan(self) -> list[str]:
        """A shortest install sequence to a passing configuration."""
        best = self.min_installs
        if best is None:
            return []
        at = next(i for i, (d, ok) in enumerate(zip(self.depth, self.goal, strict=True))
                  if ok and d == best)
        out: list[str] = []
        while (step := self.parent[at]) is not None:
            at, text = step
            out.append(text)
        return out[::-1]


def _reads(game: RepoGameV2, p: int, v: int) -> tuple[int, ...]:
    """The packages the install rule of (``p``, ``v``) reads or moves (its dependencies, the
    packages it touches, those it conflicts with, and ``p``): its outcome is a function of
    their values and the Python (``apply_install``'s code reads nothing else)."""
    plan = game.rules.plans[p][v]
    return tuple(sorted({p, *(q for q, _ in plan.deps), *plan.touches(),
                         *(q for q, _, _ in plan.conflicts)}))


#: Explored group worlds by content hash (the verifier and the random bound ask for the same
#: groups of a task in one process), bounded.
_SPACES: dict[str, GroupSpace] = {}
_SPACES_MAX = 64


def explored(world: dict[str, Any]) -> GroupSpace:
    """:func:`explore` from nothing installed, remembered by the world's content."""
    key = sha256_of(world)
    found = _SPACES.get(key)
    if found is None:
        if len(_SPACES) >= _SPACES_MAX:
            _SPACES.clear()
        found = _SPACES[key] = explore(world)
    return found


def explore(world: dict[str, Any], start: tuple[int, ...] | None = None) -> GroupSpace:
    """Breadth-first over the game's own install and uninstall rules from ``start`` (default
    nothing installed), a Python selected; every reachable configuration. Each install's
    outcome is the game's ``apply_install``, asked once per values of the packages it reads
    (:func:`_reads`); requesting the installed version changes nothing (the game's rule)."""
    from arena_gen.envs.repo.game_v6 import RepoGameV6  # the game this search is about

    game = RepoGameV6(WorldView(world))
    r = game.rules
    size = 1
    for vs in r.versions:
        size *= len(vs) + 1
    if size > MAX_GROUP_STATES:
        raise ValueError(f"a group of {size} configurations is above {MAX_GROUP_STATES}")
    if any(plan.python is not None for row in r.plans for plan in row):
        raise ValueError("a Requires-Python bound: the Python is not fixed, no group search")
    installs = [(p, v, f"pip install {r.names[p]}=={r.vname(p, v)}", _reads(game, p, v))
                for p in range(r.n) for v in range(len(r.versions[p]))]
    outcome: dict[tuple[int, int, tuple[int, ...]], tuple[tuple[int, int], ...] | None] = {}
    first = start if start is not None else game.initial().installed
    index = {first: 0}
    states, moves, depth = [first], [], [0]
    parent: list[tuple[int, str] | None] = [None]
    queue = deque([0])
    while queue:
        at = queue.popleft()
        here = states[at]
        nexts: list[tuple[str, tuple[int, ...]]] = []
        for p, v, text, reads in installs:
            if here[p] == v:
                continue
            key = (p, v, tuple(here[q] for q in reads))
            if key not in outcome:
                try:
                    after = game.apply_install(RepoV2(0, here), p, v)[0].installed
                    outcome[key] = tuple((q, after[q]) for q in reads)
                except InstallFailure:
                    outcome[key] = None
            found = outcome[key]
            if found is not None:
                work = list(here)
                for q, x in found:
                    work[q] = x
                nexts.append((text, tuple(work)))
        for p in range(r.n):
            if here[p] != ABSENT:
                nexts.append((f"pip uninstall {r.names[p]}",
                              here[:p] + (ABSENT,) + here[p + 1:]))
        out: list[tuple[str, int]] = []
        for text, nxt in nexts:
            if nxt == here:
                continue
            j = index.get(nxt)
            if j is None:
                j = index[nxt] = len(states)
                states.append(nxt)
                depth.append(depth[at] + 1)
                parent.append((at, text))
                queue.append(j)
            out.append((text, j))
        moves.append(out)
    goal = [game.run_ok(s) for s in states]
    return GroupSpace(game, states, moves, depth, parent, goal)


@dataclass(frozen=True)
class GroupsResult:
    """Group-wise exact search: the groups, each one's minimum as its own world (None:
    unreachable), a witness of the whole world and the configurations visited."""

    groups: list[list[int]]
    minima: list[int | None]
    witness: list[str]
    states_visited: int

    @property
    def min_steps(self) -> int | None:
        """The world's exact minimum: ``sum(k_g) - 2 (G - 1)`` (module docstring)."""
        if any(k is None for k in self.minima):
            return None
        return sum(k for k in self.minima if k is not None) - 2 * (len(self.minima) - 1)


def solve_groups(world: dict[str, Any]) -> GroupsResult:
    """Exact BFS per group from nothing installed to a passing ``python run.py``."""
    found = groups(world)
    minima: list[int | None] = []
    plans: list[str] = []
    visited = 0
    for group in found:
        space = explored(sub_world(world, group))
        best = space.min_installs
        minima.append(None if best is None else best + 2)
        plans += space.plan()
        visited += len(space.states)
    python = f"pip install python=={world['python_versions'][-1]}"
    return GroupsResult(found, minima, [python, *plans, "python run.py"], visited)


def lazy_group_probability(world: dict[str, Any], group: list[int], budget: int) -> float:
    """P(group ``group`` ever passes its checks within ``budget`` commands of the uniform
    random agent on the whole world): each turn names one of the world's packages uniformly,
    and only commands naming a group package move the group (a lazy chain over the group's
    reachable configurations, the passing ones absorbing)."""
    space = explored(sub_world(world, group))
    n = len(world["package_order"])
    size = len(space.states)
    rules = space.game.rules
    weight: dict[str, tuple[int, float, float]] = {}  # text -> (package, always, when absent)
    for p, name in enumerate(rules.names):
        nv = len(rules.versions[p])
        newest = max(range(nv), key=lambda v: rules.versions[p][v])
        for v in range(nv):
            weight[f"pip install {name}=={rules.vname(p, v)}"] = (
                p, P_EXACT / nv / n, P_BARE / n if v == newest else 0.0)
        weight[f"pip uninstall {name}"] = (p, P_UNINSTALL / n, 0.0)
    rows, cols, probs = [], [], []
    for at, out in enumerate(space.moves):
        stay = 1.0
        here = space.states[at]
        for text, j in out:
            p, always, absent = weight[text]
            w = always + (absent if here[p] < 0 else 0.0)  # a bare install of what is absent
            rows.append(j)
            cols.append(at)
            probs.append(w)
            stay -= w
        rows.append(at)
        cols.append(at)
        probs.append(stay)
    goal = np.array(space.goal)
    if goal[0]:
        return 1.0
    step = csr_matrix((probs, (rows, cols)), shape=(size, size))
    mass = np.zeros(size)
    mass[0] = 1.0
    solved = 0.0
    for _ in range(budget):
        mass = step @ mass
        solved += float(mass[goal].sum())
        mass[goal] = 0.0
    return min(1.0, solved)


def random_bound(task: Any) -> dict[str, Any] | None:
    """The registered v6 ``random_bound``: for a world of groups an upper bound (the random
    agent solves the world only if it makes each group pass, so the likeliest group's chance,
    :func:`lazy_group_probability`, bounds it); None for a world of one group (Lite: the
    generic fallback applies)."""
    world = task.world
    found = groups(world)
    if "groups" not in (task.params or {}) or len(found) < 2:
        return None
    chances = [lazy_group_probability(world, g, int(task.budget)) for g in found]
    return {"bound": min(chances), "method": "per-group"}
