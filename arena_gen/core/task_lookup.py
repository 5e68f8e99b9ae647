"""Find a task by id when the user names no suite: ``./suites`` first, then the released ones.

Only manifests are read until one lists the id; then only that task's line is read and checked
(:func:`~.suite_io.read_task`), so ``arena-gen show ID`` does not read whole suites.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena_gen.core.errors import ArenaGenError
from arena_gen.core.paths import suites_dir
from arena_gen.core.suite_io import read_manifest, read_task
from arena_gen.core.task import Task


@dataclass(frozen=True)
class FoundTask:
    """A task and the suite it was read from (``play`` records both in run.json)."""

    task: Task
    suite_path: Path
    manifest: dict[str, Any]


def candidate_suites(task_id: str) -> list[Path]:
    """Suite folders that may hold ``task_id``; the one its id names comes first."""
    candidates: list[Path] = []
    for root in (Path("suites"), suites_dir()):
        if root.is_dir():
            candidates += sorted(p.parent for p in root.glob("*/manifest.json"))
    name = task_id.split("-")[1] if task_id.count("-") >= 3 else None
    candidates.sort(key=lambda p: p.name != name)
    return candidates


def find_task(task_id: str, suite: str | None = None) -> FoundTask:
    """The task with this id, from ``suite`` when given, else from the first suite listing it."""
    for path in [suite] if suite else candidate_suites(task_id):
        root, manifest = read_manifest(path)
        if suite or task_id in manifest["tasks"]:
            return FoundTask(read_task(root, task_id, manifest), root, manifest)
    raise ArenaGenError(f"task {task_id!r} not found in ./suites or the released suites; "
                        f"pass --suite DIR")
