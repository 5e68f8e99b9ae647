"""Import released data (e.g. OdysseyArena) as verified arena-gen tasks in a suite folder.

Each env registers an ``importer(path) -> list[Draft]`` that parses its released format
safely (JSON only, no ``eval``); this module verifies every draft, replays its witness and
freezes the lot like any other suite (suite name ``import``, seed 0).

Task ids do not depend on the order the files are given in: an env's sources are taken in their
natural file-name order (``test_trade_config_2.json`` before ``test_trade_config_10.json``) and
each file's entries in file order, so a shell glob, a folder or a shuffled list all give the same
suite. Folders are searched recursively for ``.json`` files (:func:`plan_import`); the same file
given twice is imported once, with a warning.
"""

from __future__ import annotations

import hashlib
import os
import re
import signal
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from arena_gen.core import registry
from arena_gen.core.bounded_io import read_import_file, refuse_special
from arena_gen.core.canon import canonical_json, sha256_of
from arena_gen.core.env_limits import positive_number
from arena_gen.core.errors import ArenaGenError, GenerationError, SchemaError
from arena_gen.core.game import rubric_problem
from arena_gen.core.replay import check_witness
from arena_gen.core.schema import loads
from arena_gen.core.seeds import seed_path
from arena_gen.core.task import Task

SUITE = "import"
#: The format of imported suites: 2 pins every source file's sha256 and every task's entry
#: (file, position in it, sha256 of the world read from it) in ``build.<env>``; 1 named the
#: files only.
IMPORT_SUITE_VERSION = 2
#: Entries one released file may hold: OdysseyArena's Lite files have 30 and its Pro set 200;
#: a file claiming more is refused before any entry is verified (each one costs a verifier run).
MAX_ENTRIES_PER_FILE = 1000
T = TypeVar("T")


class ImportFileError(ArenaGenError):
    """A released data file cannot be imported (malformed, hostile or of another format)."""


#: Wall-time bounds of an import, in seconds: one entry (its rubric check, verifier run and
#: witness replay; ``$ARENA_GEN_IMPORT_ENTRY_SECONDS``) and the whole import
#: (``$ARENA_GEN_IMPORT_SECONDS``). OdysseyArena's hardest released entry takes a few seconds.
DEFAULT_ENTRY_SECONDS = 120.0
DEFAULT_TOTAL_SECONDS = 1800.0
ENTRY_SECONDS_ENV = "ARENA_GEN_IMPORT_ENTRY_SECONDS"
TOTAL_SECONDS_ENV = "ARENA_GEN_IMPORT_SECONDS"


def _seconds(env: str, default: float) -> float:
    try:
        return positive_number(env, default, "number of seconds")
    except ArenaGenError as exc:
        raise ImportFileError(str(exc)) from None


class _Deadline(BaseException):
    """Raised by the alarm inside whatever runs (a BaseException, so no ``except Exception``
    of a verifier swallows it); turned into an ImportFileError by :func:`_time_bound`."""


@contextmanager
def _time_bound(seconds: float, message: Callable[[], str]) -> Iterator[None]:
    """Stop what runs inside after ``seconds`` of wall time with ``ImportFileError(message())``.
    Needs SIGALRM, so it binds only in the main thread of a POSIX process (the CLI)."""
    if (not hasattr(signal, "setitimer")
            or threading.current_thread() is not threading.main_thread()):
        yield
        return

    def alarm(signum: int, frame: Any) -> None:
        raise _Deadline

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 1e-3))
    try:
        yield
    except _Deadline:
        raise ImportFileError(message()) from None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


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


def source_key(path: str | os.PathLike[str]) -> tuple[Any, ...]:
    """A file's place in an import: its natural name order (runs of digits compared as numbers,
    so ``config_2`` comes before ``config_10``), then its name, then its content's hash; never
    its folder or its position on the command line, so ids do not depend on either."""
    return (*_name_key(Path(path)), _file_digest(Path(path)))


def _name_key(path: Path) -> tuple[tuple[str | int, ...], str]:
    parts = re.split(r"(\d+)", path.name)
    return tuple(int(part) if i % 2 else part for i, part in enumerate(parts)), path.name


def _file_digest(path: Path) -> str:
    try:
        return hashlib.sha256(read_import_file(path)).hexdigest()
    except OSError as exc:
        raise ImportFileError(f"{path}: cannot read it: {exc.strerror or exc}") from None


def unique_sources(paths: Sequence[str | os.PathLike[str]]) -> tuple[list[Path], list[str]]:
    """The files in import order (:func:`source_key`), each once: a file given twice (the same
    path, or the same bytes under another path) is kept once, under the name that comes first
    in import order (so not the argument order), with a warning naming both."""
    groups: dict[str, list[Path]] = {}
    for raw in paths:
        groups.setdefault(_file_digest(Path(raw)), []).append(Path(raw))
    kept: list[Path] = []
    warnings: list[str] = []
    for group in groups.values():
        group.sort(key=lambda p: (_name_key(p), str(p)))
        kept.append(group[0])
        for other in group[1:]:
            same = os.path.realpath(other) == os.path.realpath(group[0])
            what = "the same file as" if same else "the same content as"
            warnings.append(f"{other}: {what} {group[0]}, given twice; imported once")
    return sorted(kept, key=source_key), sorted(warnings)


def _world_digest(world: Any) -> str:
    """The sha256 of a world's canonical JSON (the one hash of a document, as verify uses)."""
    return sha256_of(world)


def import_tasks(env: str, paths: Sequence[str | os.PathLike[str]],
                 warn: Callable[[str], None] | None = None) -> list[Task]:
    """Parse, verify and witness-check released data files of one env; ids follow the files'
    import order (:func:`unique_sources`) and each file's entry order, not the order given.
    ``warn`` hears of a file given twice (imported once) and of an entry whose world repeats an
    earlier one (kept, so a release's numbering never shifts)."""
    spec = registry.newest_with(env, "importer")
    ordered, notes = unique_sources(paths)
    for note in notes:
        if warn is not None:
            warn(note)
    tasks: list[Task] = []
    seen: dict[str, str] = {}
    per_entry = _seconds(ENTRY_SECONDS_ENV, DEFAULT_ENTRY_SECONDS)
    total = _seconds(TOTAL_SECONDS_ENV, DEFAULT_TOTAL_SECONDS)
    deadline = time.monotonic() + total
    for path in ordered:
        _import_file(env, spec, Path(path), tasks, seen, (per_entry, total, deadline), warn)
    return tasks


def _import_file(env: str, spec: Any, path: Path, tasks: list[Task], seen: dict[str, str],
                 bounds: tuple[float, float, float],
                 warn: Callable[[str], None] | None) -> None:
    """Import one file's entries into ``tasks``: its parse within what is left of the whole
    import's time, each entry within ``per_entry`` seconds (and what is left)."""
    per_entry, total, deadline = bounds
    load, verify, game = spec.load("importer"), spec.load("verifier"), spec.load("game")
    slow = partial(_too_slow, path, per_entry, total, deadline)
    with _time_bound(deadline - time.monotonic(), partial(slow, None)):
        drafts = _guarded(path, f"read it as {env}", partial(load, Path(path)))
    if len(drafts) > MAX_ENTRIES_PER_FILE:
        raise ImportFileError(f"{path}: holds {len(drafts)} {env} entries; at most "
                              f"{MAX_ENTRIES_PER_FILE} per file are imported (split it)")
    for pos, draft in enumerate(drafts):
        index = len(tasks)
        task_id = f"{env}-{SUITE}-0-{index:04d}"
        digest = _world_digest(draft.world)
        if digest in seen and warn is not None:
            warn(f"{path}: entry {pos} repeats the world of {seen[digest]}; both are "
                 f"imported ({task_id} is the repeat)")
        seen.setdefault(digest, f"{path} entry {pos} ({task_id})")
        with _time_bound(min(per_entry, deadline - time.monotonic()), partial(slow, pos)):
            problem = _guarded(path, f"check the rubric of entry {pos}",
                               partial(rubric_problem, game, draft.params, draft.world,
                                       draft.rubric))
            if problem is not None:  # a bug in the importer, not the file: it must call rubric
                raise GenerationError(f"{path}: entry {pos}: the importer's {problem}")
            cert = _guarded(path, f"verify entry {pos}", partial(verify, draft))
            cert.seconds = None
            task = Task(id=task_id, env=env, env_version=spec.version,
                        suite=SUITE, seed_path=seed_path(0, SUITE, spec.code, index, 0),
                        params=draft.params, budget=draft.budget, public=draft.public,
                        world=draft.world, rules_text=draft.rules_text, rubric=draft.rubric,
                        certificate=cert)
            if cert.solvable:
                _guarded(path, f"replay the witness of entry {pos}", partial(check_witness, task))
        # a certificate holding NaN or an infinity (entries of 1e300 overflow the verifier's
        # sums) cannot be frozen: refused here, naming the entry, not when the suite is written
        _guarded(path, f"freeze entry {pos} (its values are too large to play)",
                 partial(lambda t: canonical_json(t.to_dict()), task))
        tasks.append(task)


def _too_slow(path: Path, per_entry: float, total: float, deadline: float,
              pos: int | None) -> str:
    """Why an import was stopped by its alarm: the whole import's bound, or one entry's."""
    if pos is None or time.monotonic() >= deadline - 1e-3:
        where = f"{path}" if pos is None else f"{path}: entry {pos}"
        return (f"{where}: the import took longer than {total:g} s; stopped "
                f"(${TOTAL_SECONDS_ENV} raises the bound)")
    return (f"{path}: entry {pos} took longer than {per_entry:g} s to verify; stopped "
            f"(${ENTRY_SECONDS_ENV} raises the bound)")


@dataclass
class ImportPlan:
    """What an import will read: each env's files in import order, and what it left out."""

    by_env: dict[str, list[Path]] = field(default_factory=dict)
    #: Files found in a folder that were not imported, each with the reason.
    skipped: list[str] = field(default_factory=list)
    #: Duplicate sources (imported once).
    warnings: list[str] = field(default_factory=list)


def _folder_files(folder: Path) -> tuple[list[Path], list[Path]]:
    """Every ``.json`` file under ``folder`` (recursively, sorted) and every other file; hidden
    files and folders (``.git``, ``.DS_Store``) are not looked at, nor symlinked folders."""
    data: list[Path] = []
    other: list[Path] = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if name.startswith("."):
                continue
            path = Path(root) / name
            (data if name.lower().endswith(".json") else other).append(path)
    return data, other


def _accepts(env: str, path: Path) -> None:
    """Raise unless ``env``'s importer reads ``path``."""
    spec = registry.newest_with(env, "importer")
    _guarded(path, f"read it as {env}", partial(spec.load("importer"), path))


def plan_import(paths: Sequence[str | os.PathLike[str]], env: str | None = None) -> ImportPlan:
    """Sort files and folders into each env's files. A file named on its own must import (its
    env detected, or ``env``'s importer must read it); in a folder, every ``.json`` file found
    recursively is a candidate: one that is not JSON at all is damaged data and stops the
    import, while one no importer reads, and every non-``.json`` file, is skipped and reported.
    A folder with no importable file is an error."""
    plan = ImportPlan()
    found: list[tuple[str, Path]] = []
    for raw in paths:
        path = Path(raw)
        try:
            refuse_special(path, "the import file")
        except SchemaError as exc:  # a FIFO or device: refused before anything waits on it
            raise ImportFileError(str(exc)) from None
        if not path.is_dir():
            if env is not None:
                _accepts(env, path)
            found.append((env or detect_env(path), path))
            continue
        candidates, others = _folder_files(path)
        plan.skipped.extend(f"{p}: not a .json file" for p in others)
        accepted = 0
        for file in candidates:
            try:
                loads(read_import_file(file), file=str(file))
            except OSError as exc:
                raise ImportFileError(f"{file}: cannot read it: {exc.strerror or exc}") from None
            except ArenaGenError as exc:
                raise ImportFileError(f"{file}: a .json file in {path} that is not JSON "
                                      f"(damaged data?): {exc}") from None
            try:
                if env is not None:
                    _accepts(env, file)
                    name = env
                else:
                    name = detect_env(file)
            except ArenaGenError as exc:
                plan.skipped.append(str(exc)[:400])
                continue
            found.append((name, file))
            accepted += 1
        if not accepted:
            raise ImportFileError(f"{path}: no released data file found in this folder "
                                  f"({len(candidates)} .json file(s) no importer reads, "
                                  f"{len(others)} other file(s))")
    for name, _ in found:
        plan.by_env.setdefault(name, [])
    for name in sorted(plan.by_env):
        files, notes = unique_sources([p for n, p in found if n == name])
        plan.by_env[name] = files
        plan.warnings.extend(notes)
    plan.by_env = dict(sorted(plan.by_env.items()))
    return plan


def _file_sha256(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as exc:
        raise ImportFileError(f"{path}: cannot read it: {exc.strerror or exc}") from None


def source_pins(env: str, files: Sequence[str | os.PathLike[str]],
                tasks: Sequence[Task]) -> dict[str, Any]:
    """``build.<env>`` of an imported suite: each source file with its sha256, and per task the
    entry it came from (file, position, sha256 of the world read from it), so ``verify
    --sources`` can prove every world is the one its released entry gives."""
    if not files:  # tasks made by hand: nothing to pin (verify reports them unpinned)
        return {"sources": [], "entries": {}}
    load = registry.newest_with(env, "importer").load("importer")
    ordered, _ = unique_sources(files)
    listed, entries = [], {}
    queue = list(tasks)
    for path in ordered:
        drafts = _guarded(path, f"read it as {env}", partial(load, Path(path)))
        listed.append({"file": path.name, "sha256": _file_sha256(path), "entries": len(drafts)})
        for pos, draft in enumerate(drafts):
            if not queue:
                raise GenerationError(f"{path}: entry {pos} has no imported task")
            task = queue.pop(0)
            digest = _world_digest(draft.world)
            if digest != _world_digest(task.world):
                raise GenerationError(f"{path}: entry {pos} is not the world of {task.id}")
            entries[task.id] = [path.name, pos, digest]
    if queue:
        raise GenerationError(f"{env}: {len(queue)} imported task(s) come from no source file")
    return {"sources": listed, "entries": entries}


def format_problems(manifest: dict[str, Any], *, allow_unpinned: bool = False) -> list[str]:
    """An imported suite's format must be one this code checks: format 1 pins no sources, so
    a manifest lowered to it would pass an edited world (refused unless ``allow_unpinned``,
    and always under the name of a suite arena-gen ships, which is at format 2); a format
    newer than this code's is refused rather than checked as if it were the current one."""
    name, version = manifest.get("suite"), manifest.get("suite_version", 1)
    if name in _built_suites() or not isinstance(version, int):
        return []
    if version > IMPORT_SUITE_VERSION:
        return [f"manifest suite_version {version} is newer than this arena-gen's imported "
                f"suite format {IMPORT_SUITE_VERSION}: upgrade arena-gen to verify it"]
    if version < IMPORT_SUITE_VERSION and (not allow_unpinned or name in _shipped_suites()):
        shipped = name in _shipped_suites()
        return [f"manifest suite_version {version}: this imported suite pins no source files "
                f"(format {IMPORT_SUITE_VERSION} does), so an edited world would pass; "
                + (f"the shipped {name!r} is at format {IMPORT_SUITE_VERSION}, so these files "
                   f"are not it" if shipped else
                   "re-import it with arena-gen import, or pass --allow-unpinned")]
    return []


def _shipped_suites() -> set[str]:
    """Names of the suites the package ships (their manifests are the reference formats)."""
    from arena_gen.core.paths import suites_dir
    from arena_gen.core.suite_io import MANIFEST

    folder = suites_dir()
    return {p.name for p in folder.iterdir() if (p / MANIFEST).is_file()} if folder.is_dir() \
        else set()


def pin_problems(manifest: dict[str, Any], tasks: Mapping[str, list[Task]]) -> list[str]:
    """What an imported suite's pins (format 2) contradict in its own files: a task without a
    pin or with another world than its pin's, two tasks pinned to one entry, a pin naming a
    file the manifest does not list. Earlier imported suites (format 1) pin nothing (see
    :func:`format_problems`)."""
    if manifest.get("suite_version", 1) < IMPORT_SUITE_VERSION or manifest.get(
            "suite") in _built_suites():
        return []
    problems = []
    for env, env_tasks in sorted(tasks.items()):
        row = (manifest.get("build") or {}).get(env) or {}
        files = {f.get("file") for f in row.get("sources") or [] if isinstance(f, dict)}
        entries = row.get("entries") or {}
        used: dict[tuple[Any, Any], str] = {}
        for task in env_tasks:
            pin = entries.get(task.id)
            if not (isinstance(pin, list) and len(pin) == 3):
                problems.append(f"{task.id}: no source pin in manifest build.{env}.entries")
                continue
            file, pos, digest = pin
            if file not in files:
                problems.append(f"{task.id}: pinned to {file!r}, which build.{env}.sources "
                                f"does not list")
            if digest != _world_digest(task.world):
                problems.append(f"{task.id}: its world is not the one pinned for {file} "
                                f"entry {pos}")
            if (file, pos) in used:
                problems.append(f"{task.id}: pinned to {file} entry {pos}, as {used[file, pos]}")
            used.setdefault((file, pos), task.id)
        extra = sorted(set(entries) - {t.id for t in env_tasks})
        if extra:
            problems.append(f"build.{env}.entries pins tasks the suite does not hold: "
                            f"{', '.join(extra[:5])}")
    return problems


def source_problems(manifest: dict[str, Any], tasks: Mapping[str, list[Task]],
                    paths: Sequence[str | os.PathLike[str]]) -> list[str]:
    """Check an imported suite against the released files (``verify --sources``): every pinned
    file is found with its pinned sha256, and every pinned entry reads as its task's world."""
    if manifest.get("suite_version", 1) < IMPORT_SUITE_VERSION:
        return ["this imported suite (format 1) pins no sources; re-import it to pin them"]
    plan = plan_import(paths)
    problems = pin_problems(manifest, tasks)
    for env in sorted(tasks):
        row = (manifest.get("build") or {}).get(env) or {}
        found = {p.name: p for p in plan.by_env.get(env, [])}
        drafts: dict[str, list[Any]] = {}
        for source in row.get("sources") or []:
            name = source.get("file")
            path = found.get(name)
            if path is None:
                problems.append(f"{env}: source {name} not found under the given paths")
                continue
            if _file_sha256(path) != source.get("sha256"):
                problems.append(f"{env}: {path} is not the pinned {name} (sha256 differs)")
                continue
            load = registry.newest_with(env, "importer").load("importer")
            drafts[name] = _guarded(path, f"read it as {env}", partial(load, path))
        for task in tasks[env]:
            pin = (row.get("entries") or {}).get(task.id)
            if not (isinstance(pin, list) and len(pin) == 3) or pin[0] not in drafts:
                continue
            entries = drafts[pin[0]]
            pos = pin[1]
            if not (isinstance(pos, int) and 0 <= pos < len(entries)) or _world_digest(
                    entries[pos].world) != _world_digest(task.world):
                problems.append(f"{task.id}: its world is not {pin[0]} entry {pos}")
    return problems


def _built_suites() -> tuple[str, ...]:
    from arena_gen.suite.catalog import SUITES

    return SUITES


def meets_released_floor(task: Task) -> bool | None:
    """Whether an imported task's exact minimum reaches the fewest steps its released data
    claims (its spec's ``released_floor``); None when the data claims none or there is no
    exact minimum."""
    floor = registry.for_task(task).released_floor
    steps = task.certificate.min_steps
    if floor is None or steps is None:
        return None
    return steps >= floor
