"""Import released data (e.g. OdysseyArena) as verified arena-gen tasks in a suite folder.

Each env registers an ``importer(path) -> list[Draft]`` that parses its released format
safely (JSON only, no ``eval``); this module verifies every draft, replays its witness and
freezes the lot like any other suite (suite name ``import``, seed 0).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from arena_gen import __version__
from arena_gen.core import registry
from arena_gen.core.errors import ArenaGenError, GenerationError
from arena_gen.core.game import rubric_problem
from arena_gen.core.replay import check_witness
from arena_gen.core.seeds import seed_path
from arena_gen.core.suite_io import suite_hash, write_suite
from arena_gen.core.task import Task
from arena_gen.suite.catalog import SUITE_VERSION

SUITE = "import"
#: Entries one released file may hold: OdysseyArena's Lite files have 30 and its Pro set 200;
#: a file claiming more is refused before any entry is verified (each one costs a verifier run).
MAX_ENTRIES_PER_FILE = 1000
T = TypeVar("T")


class ImportFileError(ArenaGenError):
    """A released data file cannot be imported (malformed, hostile or of another format)."""


def _guarded(path: str | os.PathLike[str], what: str, fn: Callable[[], T]) -> T:
    """Run one importer or verifier step on a file's content; anything it raises on hostile
    input (a RecursionError from a formula nested 10,000 deep, an OverflowError from a number
    past float range, a ValueError of the importer) becomes an error naming the file."""
    try:
        return fn()
    except ArenaGenError:
        raise
    except (MemoryError, RecursionError, OverflowError) as exc:
        raise ImportFileError(f"{path}: cannot {what}: {type(exc).__name__} (the file is too "
                              f"large or too deeply nested)") from None
    except Exception as exc:  # the importers' ValueErrors, and whatever hostile data triggers
        text = str(exc)[:300]
        if not text.startswith(str(path)):
            text = f"{path}: cannot {what}: {type(exc).__name__}: {text}"
        raise ImportFileError(text) from None


def detect_env(path: str | os.PathLike[str]) -> str:
    """The env whose importer accepts a file (each importer rejects files of other formats)."""
    problems = []
    for name in registry.names():
        try:
            spec = registry.newest_with(name, "importer")
        except ArenaGenError:
            continue
        load = spec.load("importer")
        try:
            _guarded(path, f"read it as {spec.name}", partial(load, Path(path)))
        except ArenaGenError as exc:
            problems.append(f"{spec.name}: {exc}")
            continue
        return spec.name
    raise ArenaGenError(f"{path}: no importer accepts this file ({'; '.join(problems)})")


def import_tasks(env: str, paths: Sequence[str | os.PathLike[str]]) -> list[Task]:
    """Parse, verify and witness-check released data files of one env, in the order given."""
    spec = registry.newest_with(env, "importer")
    load, verify, game = spec.load("importer"), spec.load("verifier"), spec.load("game")
    tasks: list[Task] = []
    for path in paths:
        drafts = _guarded(path, f"read it as {env}", partial(load, Path(path)))
        if len(drafts) > MAX_ENTRIES_PER_FILE:
            raise ImportFileError(f"{path}: holds {len(drafts)} {env} entries; at most "
                                  f"{MAX_ENTRIES_PER_FILE} per file are imported (split it)")
        for pos, draft in enumerate(drafts):
            index = len(tasks)
            problem = _guarded(path, f"check the rubric of entry {pos}",
                               partial(rubric_problem, game, draft.params, draft.world,
                                       draft.rubric))
            if problem is not None:  # a bug in the importer, not the file: it must call rubric
                raise GenerationError(f"{path}: entry {pos}: the importer's {problem}")
            cert = _guarded(path, f"verify entry {pos}", partial(verify, draft))
            cert.seconds = None
            task = Task(id=f"{env}-{SUITE}-0-{index:04d}", env=env, env_version=spec.version,
                        suite=SUITE, seed_path=seed_path(0, SUITE, spec.code, index, 0),
                        params=draft.params, budget=draft.budget, public=draft.public,
                        world=draft.world, rules_text=draft.rules_text, rubric=draft.rubric,
                        certificate=cert)
            if cert.solvable:
                _guarded(path, f"replay the witness of entry {pos}", partial(check_witness, task))
            tasks.append(task)
    return tasks


def write_import(out: str | os.PathLike[str], tasks: Mapping[str, list[Task]],
                 sources: Mapping[str, list[str]], *, force: bool = False,
                 name: str = SUITE) -> Path:
    """Freeze imported tasks as a suite folder with a manifest naming their sources; ``name``
    is the suite's name in the manifest and in run records (e.g. ``odyssey-lite``)."""
    hashes = {t.id: t.sha256 for env_tasks in tasks.values() for t in env_tasks}
    build: dict[str, Any] = {env: {"sources": [Path(s).name for s in sources.get(env, [])]}
                             for env in tasks}
    manifest = {
        "schema_version": 1, "suite": name, "suite_version": SUITE_VERSION,
        "arena_gen_version": __version__,
        "env_versions": {env: registry.newest_with(env, "importer").version for env in tasks},
        "seed": 0, "presets": {env: {} for env in tasks},
        "counts": {env: len(t) for env, t in tasks.items()},
        "tasks": dict(sorted(hashes.items())), "suite_sha256": suite_hash(hashes),
        "build": build,
    }
    return write_suite(out, manifest, dict(tasks), force=force)


def meets_released_floor(task: Task) -> bool | None:
    """Whether an imported task's exact minimum reaches the fewest steps its released data
    claims (its spec's ``released_floor``); None when the data claims none or there is no
    exact minimum."""
    floor = registry.for_task(task).released_floor
    steps = task.certificate.min_steps
    if floor is None or steps is None:
        return None
    return steps >= floor
