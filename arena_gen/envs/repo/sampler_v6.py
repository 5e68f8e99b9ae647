"""Repo v6 generation: Lite is v5's; Challenge is paper-scale worlds of hidden independent groups.

Challenge (issue 42) asks for >= 40 packages, a 1,000-turn budget and an exact minimum of at
least 200 commands that the rules *force*. A world is 19-25 groups of 5 packages; every
rule of a package names only packages of its own group, and a random relabelling of all the
packages hides both the groups and each group's order. Every package has two versions, one of
them (drawn) its *on* version: the only one whose API serves the project's call of it, so
``python run.py`` succeeds exactly when every package is installed at its on version.

Inside a group, in its hidden order, the first package installs freely; the package at
position ``p`` installs (either version) only while the package at ``p - 1`` is installed at its
on version and ``offs`` of the packages at ``p - 2 .. p - lookback`` are installed at their other
version (the Challenge: all of them, a full ring-puzzle, Chinese rings, order), in the repo's
own vocabulary. Each
such condition is a declared dependency (the package must be installed; its range admits both
versions, so a medium-priority install never moves it) and a conflict with the version it
must not be at. The messages are v5's: a missing dependency is named as such, a conflict names
the installed version only (never a bound from the solution), and the run-time failure of a
package off its on version is the same import error every missing symbol gives.

Uninstalling is free but never shortens a completion: a package that is not installed meets no
condition ("on" and "other" both need it installed), and installing it back needs its own
condition, as switching its version does. A group whose minimum (its own world's, Python and
``python run.py`` included) is below ``group_min_len`` or a world below ``min_len`` is rejected
and redrawn from the task's stream. The exact minimum is the groups' minima summed, less the
Python selection and the run each group's own minimum counts once (:mod:`.groups`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy as np

from arena_gen.core.calibration import Calibration
from arena_gen.core.presets import Preset, PresetError, knob
from arena_gen.core.seeds import child, component_rngs, rng, task_level_seed
from arena_gen.core.task import Certificate, Draft
from arena_gen.envs.repo import sampler_v3 as v3
from arena_gen.envs.repo import sampler_v5 as v5
from arena_gen.envs.repo.common import PYTHONS, SCRIPTS
from arena_gen.envs.repo.game_v4 import RepoGameV4
from arena_gen.envs.repo.sampler_v2 import public_view

#: How far back (in a group's order) the two "other version" conditions are drawn from.
LOOKBACK = 4
#: How many of those must be at their other version.
OFFS = 2
#: The version texts a package's two versions are drawn from (increasing).
VERSION_POOL = ("0.9", "1.0", "1.1", "1.4", "2.0", "2.2", "3.0", "3.1")
#: The largest package count a world may have (the second encoder reads up to 64).
MAX_PACKAGES = 128


@dataclasses.dataclass(frozen=True)
class GroupsPreset(Preset):
    """The knobs of a world of hidden groups: how many groups, each group's size range, the
    floors on each group's exact minimum and on the world's, the budget."""

    count: int = knob(1, 10_000, kind=int)
    groups: tuple[int, int] = knob(1, 32, kind=tuple)
    group_size: tuple[int, int] = knob(1, 10, kind=tuple)
    lookback: int = knob(1, 10, kind=int)
    offs: int = knob(0, 9, kind=int)
    group_min_len: int = knob(0, 100_000, kind=int)
    min_len: int = knob(0, 100_000, kind=int)
    budget: int = knob(1, 100_000, kind=int)
    max_attempts: int = knob(1, 100_000, kind=int)

    def validate(self) -> None:
        if self.groups[1] * self.group_size[1] > MAX_PACKAGES:
            raise PresetError(f"up to {self.groups[1] * self.group_size[1]} packages; at most "
                              f"{MAX_PACKAGES}")
        for key in ("groups", "group_size"):
            lo, hi = getattr(self, key)
            if not 1 <= lo <= hi:
                raise PresetError(f"{key} {[lo, hi]} is not a range")
        if self.min_len > self.budget:
            raise PresetError(f"the acceptance floor {self.min_len} exceeds the budget "
                              f"{self.budget}")


#: Lite is v5's (the same worlds); Challenge is paper-scale: 19-25 groups of 5 packages (95-125
#: packages), each a full ring (the package at position p needs p - 1 on and every earlier one
#: off: 21 installs from nothing, so a world needs 21 G + 2 commands, 401-527), in 1,000 turns.
#: The size keeps each group's proof small (its claim is 22 turns: a refutation checks in well
#: under a second, where a group of 8 at 76 turns took 20-40 s); the count spreads the minima
#: so that the ring learner (the inductive rung, about 2.3 times the minimum plus its first pass
#: over the packages) solves the worlds of fewer groups and not the others: 20 groups put it at
#: 926-1,060 turns on seed 7 and 11's draws, 7 of 10 and 1 of 8 solved.
PRESETS: dict[str, Preset] = {
    "lite": v5.PRESETS["lite"],
    "challenge": GroupsPreset(count=10, groups=(19, 25), group_size=(5, 5), lookback=4, offs=3,
                              group_min_len=20, min_len=300, budget=1000, max_attempts=2000),
}

#: Lite: v5's targets. Challenge: per-task resistance (the random bound is the best group's,
#: :func:`.groups.random_bound`), the planner on every task, the inductive rung below Lite's.
CALIBRATION: dict[str, Calibration] = {
    "lite": v5.CALIBRATION["lite"],
    "challenge": dataclasses.replace(v5.CALIBRATION["challenge"], inductive_ceiling=0.5),
}


def group_rules(order: list[str], gen: np.random.Generator, lookback: int = LOOKBACK,
                offs: int = OFFS) -> dict[str, list[tuple[str, bool]]]:
    """Per package of one group (``order`` is its hidden order), its install conditions:
    (package, must be at its on version) pairs: the previous package on, ``offs`` of the
    ``lookback - 1`` before it at their other version."""
    out: dict[str, list[tuple[str, bool]]] = {order[0]: []}
    for p in range(1, len(order)):
        back = list(range(p - 2, max(p - 1 - lookback, -1), -1))
        if len(back) > offs:
            back = sorted((int(q) for q in gen.choice(back, size=offs, replace=False)),
                          reverse=True)
        conds = [(order[p - 1], True)] + [(order[q], False) for q in back]
        out[order[p]] = [conds[int(i)] for i in gen.permutation(len(conds))]
    return out


def _conflict(name: str, vs: str, other: str, bad: str) -> list[str]:
    """A conflict entry: ``name==vs`` cannot sit beside ``other==bad`` (the world's text, which
    the v5 game never prints)."""
    return [other, "==", bad, f"{name}=={vs} is not compatible with {other}=={bad}"]


def sample_world(preset: GroupsPreset, seq: np.random.SeedSequence) -> dict[str, Any]:
    """One world of hidden groups (module docstring); sizes are fixed per task."""
    shape = rng(child(task_level_seed(seq), 0))
    count = int(shape.integers(preset.groups[0], preset.groups[1] + 1))
    sizes = [int(s) for s in shape.integers(preset.group_size[0], preset.group_size[1] + 1,
                                            size=count)]
    n = sum(sizes)
    r = component_rngs(seq, ["labels", "versions", "rules", "api", "scripts"])
    labels = [int(x) for x in r["labels"].permutation(n)]
    names = [f"pkg{i}" for i in range(n)]
    versions: dict[str, list[str]] = {}
    on: dict[str, int] = {}
    for name in names:
        picked = sorted(int(i) for i in r["versions"].choice(len(VERSION_POOL), 2, replace=False))
        versions[name] = [VERSION_POOL[i] for i in picked]
        on[name] = int(r["versions"].integers(2))
    conditions: dict[str, list[tuple[str, bool]]] = {}
    start = 0
    for size in sizes:
        conditions.update(group_rules([names[i] for i in labels[start:start + size]],
                                      r["rules"], preset.lookback, preset.offs))
        start += size
    world: dict[str, Any] = {
        "package_order": names,
        "packages": {q: {"versions": versions[q], "priority": "medium"} for q in names},
        "python_versions": list(PYTHONS), "version_requires_python": {},
        "version_dependencies": {}, "version_conflicts": {}, "side_effects": {},
        "symbol_requires": {}, "api_surface": {}, "base_libs": [],
        "consistency_rules": [], "hidden_rules": []}
    for q in names:
        deps = [[d, [[">=", versions[d][0]]]] for d, _ in conditions[q]]
        world["version_dependencies"][q] = {vs: [list(x) for x in deps] for vs in versions[q]}
        world["version_conflicts"][q] = {
            vs: [_conflict(q, vs, d, versions[d][1 - on[d] if must_on else on[d]])
                 for d, must_on in conditions[q]] for vs in versions[q]}
    symbols = {}
    for q in names:
        module = f"{q}.{r['api'].choice(v3.MODULES)}"
        symbol = str(r["api"].choice(v3.SYMBOLS))
        symbols[q] = (module, symbol)
        world["api_surface"][q] = {
            vs: {"modules": [f"{q}.{m}" for m in v3.MODULES],
                 "exports": {f"{q}.{m}": ([symbol] if f"{q}.{m}" == module and i == on[q]
                                          else []) for m in v3.MODULES},
                 "signatures": ({f"{module}:{symbol}": []} if i == on[q] else {})}
            for i, vs in enumerate(versions[q])}
    shuffled = [names[int(i)] for i in r["scripts"].permutation(n)]
    world["scripts"] = {}
    for s, path in enumerate(SCRIPTS):
        mine = shuffled[s::len(SCRIPTS)]
        world["scripts"][path] = {
            "calls": [{"provider": q, "module": symbols[q][0], "symbol": symbols[q][1],
                       "required_kwargs": []} for q in mine],
            "imports": sorted(mine)}
    world["entrypoints"] = list(SCRIPTS)
    return world


def sample_groups(preset: GroupsPreset, seq: np.random.SeedSequence) -> Draft:
    """One candidate Challenge task (a world of hidden groups)."""
    world = sample_world(preset, seq)
    params = {"n": len(world["package_order"]), "groups": list(preset.groups),
              "group_size": list(preset.group_size), "lookback": preset.lookback,
              "offs": preset.offs, "group_min_len": preset.group_min_len,
              "min_len": preset.min_len}
    return Draft(params=params, budget=preset.budget,
                 public=public_view(world, preset.budget), world=world,
                 rules_text=v3.rules_text(world), rubric=RepoGameV4.rubric(params, world))


def sample(config: Preset | Mapping[str, Any], seq: np.random.SeedSequence) -> Draft:
    """A candidate: of groups where the preset has groups (Challenge), else v5's draw."""
    if "groups" in config:
        return sample_groups(GroupsPreset.of(config), seq)
    return v5.sample(config, seq)


def accept(draft: Draft, cert: Certificate) -> str | None:
    """v5's rule for Lite; for worlds of groups: solvable, the exact minimum in [min_len,
    budget], each group's minimum at least ``group_min_len``."""
    if "groups" not in draft.params:
        return v5.accept(draft, cert)
    if not cert.solvable or cert.min_steps is None:
        return "unsolvable"
    lo, hi = int(draft.params["min_len"]), draft.budget
    if not lo <= cert.min_steps <= hi:
        return f"length {cert.min_steps} outside [{lo}, {hi}]"
    floor = int(draft.params["group_min_len"])
    low = [k for k in cert.facts.get("part_min_steps", ()) if k < floor]
    if low:
        return f"part_min_steps {min(low)} < group_min_len {floor}"
    return None
