"""Frozen-suite I/O: atomic writes, and reads that check every schema and every hash.

A suite folder holds ``manifest.json`` and one ``<env>.jsonl`` per env. Files hold only
deterministic content (no wall-clock times), so a rebuild from the same seed is byte-identical.
A read validates and hashes each task once; :func:`read_task` reads one task without the rest
(the file its id names, up to its line), which is what ``show`` and ``play`` need.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from arena_gen.core.bounded_io import iter_lines, max_file_bytes, read_bounded, refuse_special
from arena_gen.core.canon import canonical_json, sha256_hex, sha256_of
from arena_gen.core.errors import ArenaGenError, HashMismatchError, SchemaError
from arena_gen.core.paths import check_creatable, suites_dir
from arena_gen.core.schema import loads, validate_doc
from arena_gen.core.task import Task

MANIFEST = "manifest.json"
#: The detached signature of the manifest (``arena-gen sign``; see :mod:`.signing`).
SIGNATURE = MANIFEST + ".sig"
#: Prefix of the file a signature is written to before it is renamed into place.
SIGNATURE_TMP = f".{SIGNATURE}.tmp-"
#: What an env name in a manifest may be: it names a file (``<env>.jsonl``) in the suite
#: folder, so no dots, slashes or upper case (``../../etc/passwd`` is not an env).
#: An env name, bounded so that ``<env>.jsonl`` is always a legal file name.
ENV_NAME = re.compile(r"[a-z][a-z0-9_]{0,63}")
#: The manifest's ``sealed.role`` of a suite built with a secret, and of its public copy
#: (:mod:`arena_gen.suite.seal`); the public copy holds commitments, never playable tasks.
SEALED_PRIVATE, SEALED_PUBLIC = "private", "public"


class Line(Protocol):
    """What a suite file holds one of per line: a task, or a public copy's sealed task."""

    def to_dict(self) -> dict[str, Any]: ...


class _Pairs(dict):  # type: ignore[type-arg]
    """A decoded object that remembers the keys it was given more than once."""

    repeated: list[str]


def _pairs(pairs: list[tuple[str, Any]]) -> _Pairs:
    obj = _Pairs(pairs)
    obj.repeated = [k for n, (k, _) in enumerate(pairs) if any(k == j for j, _ in pairs[:n])]
    return obj


def _repeated_key(node: Any, path: str = "$") -> str | None:
    """The JSON path of the first key given twice in a document decoded with :func:`_pairs`."""
    stack = [(node, path)]
    while stack:
        node, path = stack.pop(0)
        if isinstance(node, _Pairs) and node.repeated:
            return f"{path}.{node.repeated[0]}"
        if isinstance(node, dict):
            stack.extend((v, f"{path}.{k}") for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((v, f"{path}[{i}]") for i, v in enumerate(node))
    return None


def strict_doc(raw: bytes, kind: str, *, file: Path, line: int | None = None) -> Any:
    """Decode and validate one line (or the manifest) of a suite: it must be the canonical
    serialisation of what it decodes to, newline-terminated, so no key appears twice, nothing
    is re-serialised and every byte is the one ``write_suite`` wrote; raises naming the file,
    line, task id and JSON path."""
    obj = loads(raw, file=str(file), line=line)
    canonical = raw == canonical_json(obj).encode("utf-8") + b"\n"
    task_id = obj.get("id") if isinstance(obj, dict) and isinstance(obj.get("id"), str) else None
    if not canonical:  # the slow path only: loads proved the text safe to decode again
        where = _repeated_key(json.loads(raw, object_pairs_hook=_pairs))
        if where is not None:
            raise SchemaError(f"duplicate key {where.rsplit('.', 1)[-1]!r} (refused: a reader "
                              f"may take either value)", file=str(file), line=line,
                              task_id=task_id, json_path=where)
    validate_doc(obj, kind, file=str(file), line=line)
    if not canonical:
        raise SchemaError("not in canonical form (sorted keys, no spaces, one newline-"
                          "terminated line, as arena-gen writes it)", file=str(file), line=line,
                          task_id=task_id, json_path="$")
    return obj


@dataclass
class Suite:
    """A suite read back from disk, every hash checked."""

    path: Path
    manifest: dict[str, Any]
    tasks: dict[str, list[Task]]
    #: only some envs or tasks were read (``read_suite(..., envs=, task_ids=)``)
    partial: bool = False

    def all_tasks(self) -> list[Task]:
        return [t for env in sorted(self.tasks) for t in self.tasks[env]]

    def task(self, task_id: str) -> Task:
        for t in self.all_tasks():
            if t.id == task_id:
                return t
        raise ArenaGenError(f"no task {task_id!r} in suite {self.path}")


def suite_hash(task_hashes: dict[str, str]) -> str:
    """Hash over the sorted ``id -> sha256`` map: changes when any task changes."""
    return sha256_of(dict(sorted(task_hashes.items())))


def _is_file(path: Path) -> bool:
    """``is_file`` that says no to a name the OS refuses (too long, a NUL byte)."""
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def resolve_suite(name_or_dir: str | os.PathLike[str]) -> Path:
    """Accept a suite folder or the name of a released suite (``lite``, ``challenge``)."""
    path = Path(name_or_dir)
    if _is_file(path / MANIFEST):
        return path
    released = suites_dir() / str(name_or_dir)
    if _is_file(released / MANIFEST):
        return released
    raise ArenaGenError(f"no suite at {str(name_or_dir)!r} (neither a folder with {MANIFEST} "
                        f"nor a released suite name)")


def _write_text(path: Path, text: str) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())


def jsonl_text(tasks: Sequence[Line]) -> str:
    """The exact bytes of an ``<env>.jsonl`` file."""
    return "".join(canonical_json(t.to_dict()) + "\n" for t in tasks)


def manifest_text(manifest: dict[str, Any]) -> str:
    """The exact bytes of ``manifest.json`` (canonical, newline-terminated)."""
    return canonical_json(manifest) + "\n"


def is_our_suite(folder: Path) -> bool:
    """Whether ``folder`` holds only what arena-gen writes for a suite: a manifest, the JSONL
    files of the envs it counts and the manifest's signature (nothing a user put there)."""
    try:
        manifest = loads(read_bounded(folder / MANIFEST, what="manifest"),
                         file=str(folder / MANIFEST))
        envs = set(manifest["counts"])
    except (OSError, ArenaGenError, KeyError, TypeError):
        return False
    ours = {MANIFEST, SIGNATURE} | {f"{env}.jsonl" for env in envs
                                    if isinstance(env, str) and ENV_NAME.fullmatch(env)}
    return all((p.name in ours or p.name.startswith(SIGNATURE_TMP)) and p.is_file()
               for p in folder.iterdir())


def check_output_folder(out: Path, *, force: bool = False) -> None:
    """Refuse to replace a folder arena-gen did not write; replace a suite of ours only with
    ``force``. An absent or empty folder is fine when it can be created and written."""
    check_creatable(out, "--out")
    if not out.exists():
        return
    if not out.is_dir():
        raise ArenaGenError(f"{out} exists and is not a folder; choose another --out")
    if not any(out.iterdir()):
        return
    if not is_our_suite(out):
        raise ArenaGenError(f"{out} is not empty and is not an arena-gen suite; refusing to "
                            f"replace it (choose another --out)")
    if not force:
        raise ArenaGenError(f"{out} already holds a suite; pass --force to replace it")


#: The name of the marker file inside a work folder ``write_suite`` creates beside ``--out``.
WORK_MARKER = "arena-gen-work"
#: Entries a work folder of ours may hold: the marker, the new suite and the replaced one.
_WORK_ENTRIES = {WORK_MARKER, "suite", "old"}


def _work_prefix(out: Path) -> str:
    return f".{out.name}.arena-gen-"


def _marker_text(out: Path) -> str:
    return f"arena-gen work folder for {out.name}; safe to delete\n"


def _is_our_work(folder: Path, out: Path) -> bool:
    """Whether ``folder`` is a work folder an earlier (killed) write of ``out`` created: a
    real folder holding our marker with its exact text, and nothing we would not put there."""
    try:
        if folder.is_symlink() or not folder.is_dir():
            return False
        names = {p.name for p in folder.iterdir()}
        marker = folder / WORK_MARKER
        return (WORK_MARKER in names and names <= _WORK_ENTRIES and not marker.is_symlink()
                and marker.read_text(encoding="utf-8") == _marker_text(out))
    except (OSError, UnicodeDecodeError):
        return False


def _sweep_leftovers(out: Path) -> None:
    """Remove the work folders that a killed earlier write of ``out`` left behind (only ours:
    a user's ``.<out>.old-backup/`` or ``.<out>.tmp-notes/`` is never touched)."""
    for stale in out.parent.glob(f"{_work_prefix(out)}*"):
        if _is_our_work(stale, out):
            shutil.rmtree(stale, ignore_errors=True)


def write_suite(out: str | os.PathLike[str], manifest: dict[str, Any],
                tasks: Mapping[str, Sequence[Line]], *, force: bool = False,
                check: Callable[[Path], None] | None = None) -> Path:
    """Write a suite folder atomically: build it beside the target, then rename into place.

    The new suite is written inside a work folder this call creates (``tempfile.mkdtemp``, a
    random suffix, marked as ours), and a replaced suite is moved into it before it is deleted;
    no other name beside ``out`` is created or removed. A non-empty target that is not a suite
    of ours is never touched; one of ours is replaced only with ``force`` (see
    :func:`check_output_folder`). ``check(folder)`` sees the written suite before it is
    moved into place, and may raise to leave ``out`` as it was."""
    out = Path(out)
    check_output_folder(out, force=force)
    out.parent.mkdir(parents=True, exist_ok=True)
    _sweep_leftovers(out)
    work = Path(tempfile.mkdtemp(prefix=_work_prefix(out), dir=out.parent))
    try:
        (work / WORK_MARKER).write_text(_marker_text(out), encoding="utf-8")
        tmp = work / "suite"
        tmp.mkdir(mode=0o755)
        tmp.chmod(0o755)  # a suite is meant to be shared, whatever the umask
        for env, env_tasks in sorted(tasks.items()):
            _write_text(tmp / f"{env}.jsonl", jsonl_text(env_tasks))
        _write_text(tmp / MANIFEST, manifest_text(manifest))
        if check is not None:
            check(tmp)
        if out.exists() and not any(out.iterdir()):
            out.rmdir()
        if out.exists():
            os.rename(out, work / "old")
        os.rename(tmp, out)
    finally:
        old = work / "old"
        if old.exists() and not out.exists():  # failed between the renames: put it back
            with contextlib.suppress(OSError):
                os.rename(old, out)
        if out.exists() or not old.exists():  # else the replaced suite stays there, not lost
            shutil.rmtree(work, ignore_errors=True)
    return out


@dataclass(frozen=True)
class ManifestRead:
    """A suite's manifest read once: its folder, the document and the exact bytes it was
    decoded from (a signature is checked over these bytes, never over a second read)."""

    root: Path
    manifest: dict[str, Any]
    raw: bytes = field(repr=False)


def load_manifest(path: str | os.PathLike[str]) -> ManifestRead:
    """Resolve a suite and read its manifest once, schema-checked, keeping its bytes."""
    root = resolve_suite(path)
    try:
        data = read_bounded(root / MANIFEST, what="manifest")  # a regular file, capped
    except OSError as exc:
        raise SchemaError(f"cannot read: {exc.strerror}", file=str(root / MANIFEST)) from None
    return ManifestRead(root, strict_doc(data, "manifest", file=root / MANIFEST), data)


def read_manifest(path: str | os.PathLike[str]) -> tuple[Path, dict[str, Any]]:
    """Resolve a suite and read its manifest, schema-checked (the suite hash is checked after
    the tasks, so a damaged task entry is named by its task)."""
    read = load_manifest(path)
    return read.root, read.manifest


def refuse_public_copy(root: Path, manifest: dict[str, Any]) -> None:
    """A public copy of a sealed suite has no worlds: nothing can play, score or show it."""
    sealed = manifest.get("sealed")
    if isinstance(sealed, dict) and sealed.get("role") == SEALED_PUBLIC:
        raise ArenaGenError(f"{root} is the public copy of a sealed suite: its worlds, rules "
                            f"and witnesses are commitments, so it cannot be played or scored; "
                            f"run, score and show need the private suite (arena-gen verify "
                            f"checks this copy)")


def _check_suite_hash(root: Path, manifest: dict[str, Any]) -> None:
    if suite_hash(manifest["tasks"]) != manifest["suite_sha256"]:
        raise HashMismatchError(f"{root / MANIFEST}: suite_sha256 does not match its task list")


def _task_of_line(obj: Any, file: Path, lineno: int, env: str, listed: dict[str, str]) -> Task:
    """One schema-valid line as a Task: its hash checked once, against itself and the manifest."""
    try:
        task = Task.from_dict(obj)  # checks the stored sha256 against the content, once
    except HashMismatchError as exc:
        raise HashMismatchError(f"{file}:{lineno}: {exc}") from None
    if task.env != env:
        raise SchemaError(f"task of env {task.env!r} in {file.name}", file=str(file),
                          line=lineno, task_id=task.id, json_path="$.env")
    if listed.get(task.id) != obj["sha256"]:
        what = "is not listed in" if task.id not in listed else "has a sha256 that differs from"
        raise HashMismatchError(f"{file}:{lineno}: task {task.id} {what} the manifest")
    return task


def _env_file(root: Path, env: str) -> Path:
    if not ENV_NAME.fullmatch(env):  # the schema checks it too; this guards every caller
        raise SchemaError(f"env name {env[:80]!r} is not [a-z][a-z0-9_]* of at most 64 "
                          f"characters", file=str(root / MANIFEST), json_path="$.counts")
    file = root / f"{env}.jsonl"
    try:
        present = file.is_file()
    except OSError as exc:
        raise ArenaGenError(f"{root}: manifest lists env {env!r}: {exc.strerror}") from None
    if not present:
        refuse_special(file, f"{file.name} (the manifest lists env {env!r})")  # never opened
        if os.path.lexists(file):  # a broken link, or a folder
            raise ArenaGenError(f"{root}: manifest lists env {env!r} but {file.name} is not a "
                                f"regular file (a folder or a broken link)")
        raise ArenaGenError(f"{root}: manifest lists env {env!r} but {file.name} is missing")
    return file


def _task_lines(file: Path) -> Iterator[tuple[int, Any]]:
    """``(line number, task document)`` of every line of an env file, each :func:`strict_doc`
    (a blank line is not canonical either)."""
    for lineno, raw in iter_lines(file, what="task file"):  # streamed, capped per line
        yield lineno, strict_doc(raw, "task", file=file, line=lineno)


def read_suite(path: str | os.PathLike[str], *, envs: Collection[str] | None = None,
               task_ids: Collection[str] | None = None,
               loaded: ManifestRead | None = None) -> Suite:
    """Read a suite folder; raise naming the file and task on any schema or hash problem.

    ``envs`` / ``task_ids`` read only those tasks (``run --env E --tasks ID`` plays one task:
    validating the other 119 of Lite took most of its start-up). The manifest and its suite
    hash are checked as always, and each task read is checked as in a whole read (schema,
    canonical bytes, its sha256 against itself and the manifest); the other lines of the env
    files read are only counted against the manifest. Such a Suite is ``partial``. Pass
    ``loaded`` when the manifest was already read (:func:`load_manifest`) so it is read once."""
    read = loaded if loaded is not None else load_manifest(path)
    root, manifest = read.root, read.manifest
    refuse_public_copy(root, manifest)
    listed: dict[str, str] = manifest["tasks"]
    wanted = None if task_ids is None else set(task_ids) & set(listed)
    needles = [t.encode("utf-8") for t in sorted(wanted or ())]
    tasks: dict[str, list[Task]] = {}
    seen: set[str] = set()
    for env in sorted(manifest["counts"]):
        if envs is not None and env not in envs:
            continue
        file = _env_file(root, env)
        env_tasks, lines = [], 0
        for lineno, raw in iter_lines(file, what="task file"):  # streamed, capped per line
            lines += 1
            if wanted is not None and not _holds_one_of(raw, wanted, needles, file, lineno):
                continue
            task = _task_of_line(strict_doc(raw, "task", file=file, line=lineno), file,
                                 lineno, env, listed)
            if task.id in seen:
                raise ArenaGenError(f"{file}:{lineno}: duplicate task id {task.id}")
            seen.add(task.id)
            env_tasks.append(task)
        if lines != manifest["counts"][env]:
            raise ArenaGenError(f"{file}: manifest counts {manifest['counts'][env]} {env} tasks, "
                                f"file has {lines}")
        tasks[env] = env_tasks
    missing = sorted((set(listed) if wanted is None else wanted) - seen) if envs is None else []
    if missing and wanted is not None:  # a broken line may hold it: a whole read names it
        read_suite(root)
    if missing:
        raise HashMismatchError(f"{root / MANIFEST}: lists tasks not in any file: {missing[:5]}")
    _check_suite_hash(root, manifest)
    return Suite(path=root, manifest=manifest, tasks=tasks,
                 partial=envs is not None or wanted is not None)


def _holds_one_of(raw: bytes, wanted: set[str], needles: list[bytes], file: Path,
                  lineno: int) -> bool:
    """Whether a task line's own id is one of ``wanted`` (a byte search first; the decoded
    id decides)."""
    if not any(needle in raw for needle in needles):
        return False
    obj = loads(raw, file=str(file), line=lineno)
    return isinstance(obj, dict) and obj.get("id") in wanted


def read_task(path: str | os.PathLike[str], task_id: str,
              manifest: dict[str, Any] | None = None) -> Task:
    """One task of a suite, checked like :func:`read_suite` checks it, reading only the file
    its id names (``lights-...`` -> ``lights.jsonl``) up to its line; other lines are not
    validated. Pass ``manifest`` when it was already read with :func:`read_manifest`."""
    root, manifest = (resolve_suite(path), manifest) if manifest else read_manifest(path)
    refuse_public_copy(root, manifest)
    listed: dict[str, str] = manifest["tasks"]
    if task_id not in listed:
        raise ArenaGenError(f"no task {task_id!r} in suite {root}")
    named = task_id.split("-")[0]
    envs = sorted(manifest["counts"], key=lambda e: e != named)  # the named env first
    for env in envs:
        file = _env_file(root, env)
        needle = task_id.encode("utf-8")
        for lineno, raw in iter_lines(file, what="task file"):
            if needle not in raw:  # cheap pre-filter; the parsed id decides
                continue
            obj = loads(raw, file=str(file), line=lineno)
            if not isinstance(obj, dict) or obj.get("id") != task_id:
                continue
            obj = strict_doc(raw, "task", file=file, line=lineno)
            task = _task_of_line(obj, file, lineno, env, listed)
            _check_suite_hash(root, manifest)
            return task
    raise HashMismatchError(f"{root / MANIFEST}: lists task {task_id} but no file holds it")


def file_digests(path: str | os.PathLike[str]) -> dict[str, str]:
    """sha256 of every file in a suite folder, for byte-identical rebuild comparisons."""
    root = Path(path)
    return {p.name: sha256_hex(read_bounded(p, max_file_bytes()))
            for p in sorted(root.iterdir()) if p.is_file()}
