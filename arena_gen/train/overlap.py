"""Exact and near duplicate worlds between two collections of tasks (suites or streams).

Exact: two tasks of the same env whose worlds have the same fingerprint (equal up to the
env's renaming, see :mod:`arena_gen.core.fingerprint`). Near: not exact, but equal up to
renaming once one part is masked in both (the env's ``near`` parts: one bulb's condition in
lights; one whole table in trading and repo; one series or table in energy), i.e. the worlds
differ in that one part alone. Pairs are reported by env, then ids.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from arena_gen.core import registry
from arena_gen.core.fingerprint import fingerprint, near_fingerprints
from arena_gen.core.parallel import map_ordered
from arena_gen.core.task import Task


@dataclass(frozen=True)
class Prints:
    """One task's world fingerprint and near fingerprints (digest -> masked part)."""

    id: str
    env: str
    exact: str
    near: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Match:
    """A duplicate pair: ``kind`` ``exact``, or ``near`` with the ``part`` they differ in."""

    env: str
    a: str
    b: str
    kind: str
    part: str | None = None


def prints(task: Task) -> Prints | None:
    """A task's fingerprints (None when its env declares no fingerprint)."""
    spec = registry.for_task(task)
    if spec.fingerprint is None:
        return None
    shape = spec.load("fingerprint")
    return Prints(task.id, task.env, fingerprint(task.env, shape, task.world),
                  near_fingerprints(task.env, shape, task.world))


def all_prints(tasks: Sequence[Task], *, jobs: int = 1) -> list[Prints]:
    """Fingerprints of many tasks, in their order (``jobs`` worker processes)."""
    return [p for p in map_ordered(prints, list(tasks), jobs=jobs) if p is not None]


def matches(a: Iterable[Prints], b: Iterable[Prints]) -> list[Match]:
    """Every exact and near pair between ``a`` and ``b`` (a task paired with itself, as when a
    collection is compared with itself, is left out)."""
    exact: dict[tuple[str, str], list[Prints]] = {}
    near: dict[tuple[str, str], list[Prints]] = {}
    for p in b:
        exact.setdefault((p.env, p.exact), []).append(p)
        for digest in p.near:
            near.setdefault((p.env, digest), []).append(p)
    found: dict[tuple[str, str, str], Match] = {}
    for p in a:
        for q in exact.get((p.env, p.exact), []):
            if q.id != p.id:
                found[(p.env, p.id, q.id)] = Match(p.env, p.id, q.id, "exact")
        for digest, part in p.near.items():
            for q in near.get((p.env, digest), []):
                key = (p.env, p.id, q.id)
                if q.id != p.id and q.exact != p.exact and key not in found:
                    found[key] = Match(p.env, p.id, q.id, "near", part)
    return [found[k] for k in sorted(found)]
