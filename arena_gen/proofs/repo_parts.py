"""Decomposed repo proofs: a world split into closed groups of packages, one refutation each.

A partition of a world's packages is *closed* when no rule crosses it (:func:`check_closed`,
written here on its own from :mod:`.repo_world`'s reading: it shares no code with the generator
or the search that found the groups): every install rule of a package (its dependencies, side
effects and conflicts) names packages of its own part, every run-time rule (an API use of a
touched caller, a consistency rule, a hidden rule) names packages of one part, and no version
has a Requires-Python bound (the Python would join every part).

For a closed partition, take any completion and keep, for one part P, the commands on P's
packages, the first Python selection and the final ``python run.py``: each kept command sees
the same P packages as before and reads nothing else, the Python is selected before the run,
and the run passes P's checks (a part of the world's). So the kept commands complete P played
as a world of its own (:func:`sub_world`). If P's world has no completion of at most ``k_P - 1``
commands (a DRUP refutation of the second encoder's formula), every completion spends at least
``k_P - 2`` commands on P's packages, and in all at least ``sum(k_P - 2) + 2`` (one Python
selection, one run). A checked decomposed proof whose ``k_P`` give the certificate's minimum
by :func:`total` is therefore a proof that no shorter completion exists.
"""

from __future__ import annotations

from typing import Any

from arena_gen.proofs.drup import ProofError
from arena_gen.proofs.repo_world import read_world


def count(world: Any) -> int:
    """The number of packages (what a partition must cover), the world validated."""
    return len(read_world(world).names)


def total(minima: list[int]) -> int:
    """The world's minimum from its parts' own minima: each counts a Python selection and a
    run, which the world needs once."""
    return sum(minima) - 2 * (len(minima) - 1)


def check_closed(world: Any, parts: list[list[int]]) -> None:
    """Refuse a partition some rule crosses (naming the rule and the packages)."""
    w = read_world(world)
    part_of = {q: i for i, part in enumerate(parts) for q in part}

    def same(named: list[int], what: str) -> None:
        if len({part_of[q] for q in named}) > 1:
            listed = ", ".join(w.names[q] for q in named)
            raise ProofError(f"{what} names {listed}, in more than one part: the partition "
                             f"is not closed under the rules")

    for p, plans in enumerate(w.plans):
        for v, plan in enumerate(plans):
            what = "{} {}.{}'s install rule".format(w.names[p], *w.versions[p][v])
            if plan.pythons is not None:
                raise ProofError(f"{what} has a Requires-Python bound: the Python joins every "
                                 f"part, no partition is closed")
            same([p, *(q for q, _ in plan.deps), *(q for _, q, _ in plan.effects),
                  *(q for q, _ in plan.conflicts)], what)
    for caller, _, call in w.needs:
        same([caller, call.provider], f"{w.names[caller]}'s symbol requirement")
    for _, anchor, members in w.consistency:
        same([anchor, *members], "a consistency rule")
    for when in w.hidden:
        same([q for q, _ in when], "a hidden rule")


def sub_world(world: dict[str, Any], part: list[int]) -> dict[str, Any]:
    """Part ``part`` (indices in ``package_order``) as a world of its own: its packages and
    their tables, the same Pythons, every script's calls and imports of the part, the rules
    of the part (a closed part only)."""
    order = list(world.get("package_order") or sorted(world["packages"]))
    names = [order[q] for q in part]
    keep = set(names)

    def table(key: str) -> dict[str, Any]:
        raw = world.get(key) or {}
        return {q: raw[q] for q in names if q in raw}

    scripts = {}
    for path, entry in world["scripts"].items():
        scripts[path] = {"calls": [c for c in entry.get("calls", [])
                                   if isinstance(c, dict) and c.get("provider") in keep],
                         "imports": [q for q in entry.get("imports", []) if q in keep]}
    return {
        "package_order": names, "packages": {q: world["packages"][q] for q in names},
        "python_versions": world["python_versions"],
        "version_requires_python": table("version_requires_python"),
        "version_dependencies": table("version_dependencies"),
        "version_conflicts": table("version_conflicts"),
        "side_effects": table("side_effects"), "symbol_requires": table("symbol_requires"),
        "api_surface": table("api_surface"), "scripts": scripts,
        "entrypoints": world["entrypoints"],
        "consistency_rules": [r for r in world.get("consistency_rules") or []
                              if r.get("anchor") in keep],
        "hidden_rules": [r for r in world.get("hidden_rules") or []
                         if all(pair[0] in keep for pair in r.get("when") or [] if pair[1])]}
