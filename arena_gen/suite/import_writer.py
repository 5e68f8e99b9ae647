"""Write imported tasks as a suite, checked as plain ``verify`` checks one before it is moved
into place (apart from :mod:`arena_gen.suite.importer` so the importer, which verify reads,
never imports verify)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import Any

from arena_gen.core import registry
from arena_gen.core.errors import GenerationError
from arena_gen.core.suite_io import suite_hash, write_suite
from arena_gen.core.task import Task
from arena_gen.core.version import __version__
from arena_gen.suite.importer import IMPORT_SUITE_VERSION, SUITE, source_pins
from arena_gen.suite.verify import written_problems


def write_import(out: str | os.PathLike[str], tasks: Mapping[str, list[Task]],
                 sources: Mapping[str, list[str]], *, force: bool = False,
                 name: str = SUITE) -> Path:
    """Freeze imported tasks as a suite folder with a manifest pinning their sources (each
    file's sha256, each task's entry); ``name`` is the suite's name in the manifest and in run
    records (e.g. ``odyssey-lite``)."""
    hashes = {t.id: t.sha256 for env_tasks in tasks.values() for t in env_tasks}
    build: dict[str, Any] = {env: source_pins(env, sources.get(env, []), env_tasks)
                             for env, env_tasks in tasks.items()}
    manifest = {
        "schema_version": 1, "suite": name, "suite_version": IMPORT_SUITE_VERSION,
        "arena_gen_version": __version__,
        "env_versions": {env: registry.newest_with(env, "importer").version for env in tasks},
        "seed": 0, "presets": {env: {} for env in tasks},
        "counts": {env: len(t) for env, t in tasks.items()},
        "tasks": dict(sorted(hashes.items())), "suite_sha256": suite_hash(hashes),
        "build": build,
    }
    return write_suite(out, manifest, dict(tasks), force=force,
                       check=partial(_refuse_unverifiable, build))


def _refuse_unverifiable(build: dict[str, Any], folder: Path) -> None:
    """Refuse to write an imported suite that plain ``verify`` would reject (e.g. an entry with
    no way to light every bulb: its certificate honestly says unsolvable, and a suite holds
    only solvable tasks)."""
    problems = written_problems(folder)
    if problems:  # name each task's source entry, which is what the user can look at
        where = {task_id: f"{pin[0]} entry {pin[1]}" for row in build.values()
                 for task_id, pin in (row.get("entries") or {}).items()}
        problems = [f"{p} ({where[p.split(':')[0]]})" if p.split(":")[0] in where else p
                    for p in problems]
        more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
        raise GenerationError("the imported suite would not verify, so nothing was written: "
                              + "; ".join(problems[:3]) + more)
