"""Find a task by id when the user names no suite: ``./suites`` first, then the released ones."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import ArenaGenError
from .paths import suites_dir
from .suite_io import read_suite
from .task import Task


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
    if suite:
        suite_obj = read_suite(suite)
        return FoundTask(suite_obj.task(task_id), suite_obj.path, suite_obj.manifest)
    for path in candidate_suites(task_id):
        suite_obj = read_suite(path)
        if task_id in suite_obj.manifest["tasks"]:
            return FoundTask(suite_obj.task(task_id), suite_obj.path, suite_obj.manifest)
    raise ArenaGenError(f"task {task_id!r} not found in ./suites or the released suites; "
                        f"pass --suite DIR")
