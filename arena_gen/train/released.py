"""The world fingerprints of the released suites, which no stream may yield."""

from __future__ import annotations

import functools

from arena_gen.core import registry
from arena_gen.core.bounded_io import iter_lines
from arena_gen.core.canon import sha256_of
from arena_gen.core.errors import HashMismatchError
from arena_gen.core.fingerprint import fingerprint
from arena_gen.core.schema import loads
from arena_gen.core.suite_io import read_manifest, resolve_suite
from arena_gen.core.task import Task

#: The released suites a stream never overlaps (shipped in ``suites/``).
RELEASED = ("lite", "challenge", "challenge-moderate", "odyssey-lite")


def task_fingerprint(task: Task) -> str | None:
    """A task's world fingerprint by its own env version's shape (None: the env has none)."""
    spec = registry.for_task(task)
    if spec.fingerprint is None:
        return None
    return fingerprint(task.env, spec.load("fingerprint"), task.world)


def released_tasks(env: str) -> list[Task]:
    """The tasks of ``env`` in the released suites, each checked against its own hash and its
    manifest's; not schema-validated (these files ship with arena-gen and its tests verify
    them in full; validation would cost 20 s per stream)."""
    out = []
    for name in RELEASED:
        root, manifest = read_manifest(resolve_suite(name))
        if env not in manifest["counts"]:
            continue
        for lineno, raw in iter_lines(root / f"{env}.jsonl", what="task file"):
            task = Task.from_dict(loads(raw, file=str(root / f"{env}.jsonl"), line=lineno))
            if manifest["tasks"].get(task.id) != task.sha256:
                raise HashMismatchError(f"{root / env}.jsonl:{lineno}: task {task.id} is not "
                                        f"the one its manifest lists")
            out.append(task)
    return out


@functools.cache
def released_fingerprints(env: str) -> frozenset[str]:
    """The fingerprints of every world of ``env`` in the released suites (once a process)."""
    return frozenset(d for d in map(task_fingerprint, released_tasks(env)) if d is not None)


def released_digest(fingerprints: frozenset[str]) -> str:
    """One hash naming a set of excluded fingerprints (recorded in a stream's manifest: a
    stream reproduces for the same set)."""
    return sha256_of(sorted(fingerprints))
