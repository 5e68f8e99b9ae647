"""The run directory: ``run.json`` plus an append-only ``trajectories.jsonl`` that survives kills.

Each finished episode is one line, flushed and fsynced before the next starts, so a crash loses
at most the episodes in flight. A torn last line (killed mid-write) is cut off on resume.
``finalize`` rewrites the file atomically in suite order, keeping the last record per
(task, attempt), so an interrupted-and-resumed run ends with the same lines as an uninterrupted one.
Text that UTF-8 cannot carry (a lone surrogate such as ``\ud800``, which a JSON body may encode
as an escape) is written as U+FFFD instead of aborting the run and losing the episodes in flight.

The lines form a hash chain: each carries ``prev``, the sha256 of the previous line's exact
bytes (the first line: of the run's plan in ``run.json``, :func:`plan_digest`), and ``run.json``'s
``chain`` records the ``head`` (the last line's digest). Every write declares the head it is
about to make as ``pending`` in ``run.json`` first, so a kill between the two files leaves a
state :meth:`RunDir.numbered_records` accepts; anything else (a line deleted, inserted,
reordered or edited, a head that is not the last line's) is refused naming file and line.
A lock file inside the folder lets one writer (``run``, ``--resume``, ``play``) in at a time.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import warnings
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from arena_gen.core.bounded_io import iter_lines, max_line_bytes, open_regular
from arena_gen.core.canon import canonical_json
from arena_gen.core.errors import ArenaGenError, SchemaError
from arena_gen.core.paths import check_creatable
from arena_gen.core.records import RunMeta, Trajectory
from arena_gen.core.run_signature import RUN_SIGNATURE, RunSigner
from arena_gen.core.schema import loads, read_json, validate_doc

RUN_JSON = "run.json"
TRAJECTORIES = "trajectories.jsonl"
#: End reasons that do not count as finished: ``--resume`` plays these keys again.
RETRY_REASONS = ("infra_error",)

Key = tuple[str, int]
#: UTF-16 surrogate code points: a str may hold them, UTF-8 may not.
_SURROGATES = re.compile("[\ud800-\udfff]")


def utf8_line(record: dict[str, Any]) -> bytes:
    """One record as a canonical JSON line in strict UTF-8, surrogates replaced by U+FFFD."""
    line = canonical_json(record) + "\n"
    try:
        return line.encode("utf-8")
    except UnicodeEncodeError:  # only inside strings (keys or values): replace them there
        return _SURROGATES.sub("\ufffd", line).encode("utf-8")


#: The lock file one writer of the folder holds (flock) while it runs, resumes or plays.
LOCK_FILE = ".arena-gen.lock"
#: Files a run writes besides run.json and trajectories.jsonl (a kill mid-write leaves them).
OWN_TEMPS = (f".{RUN_JSON}.tmp", f".{TRAJECTORIES}.tmp", LOCK_FILE, f".{RUN_SIGNATURE}.tmp",
             RUN_SIGNATURE)
#: The trajectory field holding the previous line's digest (the chain link).
PREV = "prev"
#: Agent options that may change on --resume: where and how patiently the endpoint is asked,
#: not what the agent plays (a wrong --base-url is fixed by resuming with the right one); they
#: are not part of the plan the chain starts from.
OPERATIONAL_KEYS = ("base_url", "timeout", "retries", "backoff", "max_connections",
                    "max_reply_chars")
#: run.json fields that decide what a run plays: the first line chains to their digest.
PLAN_KEYS = ("suite", "suite_sha256", "mode", "attempts", "seed", "envs", "tasks", "budgets")
#: A play folder's attempts per task (``play`` replays one task without planning more attempts
#: of the others); when present it is the plan, ``attempts`` its largest value.
TASK_ATTEMPTS = "task_attempts"


def planned_attempts(meta: dict[str, Any], task_id: str) -> int:
    """How many attempts of ``task_id`` a run plans: its ``task_attempts`` entry when it has
    one (a play folder), else ``attempts`` for every task."""
    per_task = meta.get(TASK_ATTEMPTS)
    if isinstance(per_task, dict) and task_id in per_task:
        return int(per_task[task_id])
    return int(meta.get("attempts", 1))


def line_digest(raw: bytes) -> str:
    """The chain digest of one line's exact bytes (newline included)."""
    return hashlib.sha256(raw).hexdigest()


def plan_digest(meta: dict[str, Any]) -> str:
    """The digest the first line chains to: run.json's plan (suite, agent and its options but
    the endpoint's, mode, attempts, seed, tasks, budgets, harness, probes when on), so an
    edited plan (fewer tasks or attempts, another probe count) breaks the chain; times,
    executor, jobs and suite_path are not in it."""
    agent = meta.get("agent") or {}
    config = {k: v for k, v in (agent.get("config") or {}).items()
              if k not in OPERATIONAL_KEYS}
    plan = {k: meta.get(k) for k in PLAN_KEYS}
    if isinstance(meta.get(TASK_ATTEMPTS), dict):  # a play folder's plan per task
        plan[TASK_ATTEMPTS] = meta[TASK_ATTEMPTS]
    plan["agent"] = {"name": agent.get("name"), "config": config}
    plan["harness"] = meta.get("harness", "arena-gen")
    if meta.get("probes") is not None:  # run --probes: the count the judge draws (absent: off)
        plan["probes"] = meta["probes"]
    return hashlib.sha256(canonical_json(plan).encode("utf-8")).hexdigest()


def chain_lines(records: Iterable[dict[str, Any]], genesis: str,
                typed: set[str] | None = None) -> tuple[bytes, str]:
    """Records as chained lines starting from ``genesis``, and the head (last line's digest);
    the digests of the lines whose record is a valid typed trajectory go into ``typed``."""
    out, head = [], genesis
    for record in records:
        body = {k: v for k, v in record.items() if k != PREV}
        line = utf8_line({**body, PREV: head})
        out.append(line)
        head = line_digest(line)
        # a line already known typed (finalize rewriting lines it wrote) is not checked again
        if typed is not None and head not in typed and is_typed_trajectory(body):
            typed.add(head)
    return b"".join(out), head


def is_typed_trajectory(record: dict[str, Any]) -> bool:
    """Whether a record passes the typed model its schema is generated from (about 2 ms for a
    120-turn episode; the schema check of the line read back takes ~30x longer)."""
    try:
        Trajectory.model_validate(record, strict=True)
    except ValidationError:
        return False
    return True


def check_run_folder(path: str | os.PathLike[str], what: str = "--out") -> None:
    """Refuse a folder that is not empty and holds no run: a run's files would be mixed into
    the user's (as ``build`` and ``import`` refuse a non-empty folder that is not a suite)."""
    check_creatable(path, what)
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise ArenaGenError(f"{what} {folder} exists and is not a folder; choose another {what}")
    if not folder.is_dir() or (folder / RUN_JSON).is_file():
        return
    others = sorted(e.name for e in folder.iterdir() if e.name not in OWN_TEMPS)
    if others:
        shown = ", ".join(others[:3]) + (f" and {len(others) - 3} more" if len(others) > 3 else "")
        raise ArenaGenError(f"{what} {folder} is not empty and holds no run (no {RUN_JSON}; it "
                            f"holds {shown}); refusing to write a run into it (choose another "
                            f"{what})")


def _write_atomic(path: Path, text: str | bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "wb") as fh:
        fh.write(text.encode("utf-8") if isinstance(text, str) else text)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


class ChainError(SchemaError):
    """A chained trajectories.jsonl whose chain is broken: a line deleted, inserted, reordered
    or edited, or a run.json head that is not the last line's digest (names file and line)."""


class RunDir:
    """One run's folder on disk."""

    def __init__(self, path: str | os.PathLike[str], signer: RunSigner | None = None) -> None:
        self.path = Path(path)
        #: the evaluator's key (``run --sign-key``): signs every head the chain moves to
        self.signer = signer
        self.run_json = self.path / RUN_JSON
        self.trajectories = self.path / TRAJECTORIES
        self.lock_file = self.path / LOCK_FILE
        #: run.json as last written by this object (the chain fields are added on write)
        self._meta: dict[str, Any] | None = None
        #: the chain's head as last read or written (None: not read yet)
        self._head: str | None = None
        #: the plan digest the lines chain from, and how many lines are chained
        self._genesis: str | None = None
        self._count = 0
        #: True when the last read found lines but no chain (a run written before the chain)
        self.unchained = False
        #: digests of the lines known valid: written here from records the typed model
        #: accepted, or read and schema-checked here; read again unchanged (same digest, as at
        #: the end of a run), they are not schema-checked again
        self._valid: set[str] = set()

    def exists(self) -> bool:
        return self.run_json.is_file()

    @property
    def head(self) -> str | None:
        """The digest of the last line read or written (of the plan when there is none);
        None before the chain was read, or for an unchained run."""
        return self._head

    @property
    def signed(self) -> bool:
        """Whether the folder holds a run signature (``run --sign-key``)."""
        return os.path.lexists(self.path / RUN_SIGNATURE)

    def read_meta(self) -> dict[str, Any]:
        """``run.json``, validated against its schema (generated from the typed record)."""
        return read_json(self.run_json, "run")

    def write_meta(self, meta: dict[str, Any]) -> None:
        """Write ``run.json`` atomically with the chain's head; ``meta`` must be a valid run
        record whose plan is the one the folder's lines chain to (read them first)."""
        meta = RunMeta.model_validate({k: v for k, v in meta.items() if k != "chain"}
                                      ).to_json_dict()
        if self._count == 0:  # no line yet: the first will chain to this plan
            if self.trajectories.is_file() and self.trajectories.stat().st_size > 0 and (
                    self._head is None):
                raise ArenaGenError(f"{self.trajectories}: its chain must be read before "
                                    f"run.json is written")
            self._head = self._genesis = plan_digest(meta)
        elif self._head is None or plan_digest(meta) != self._genesis:
            raise ArenaGenError(f"{self.run_json}: the run's plan differs from the one its "
                                f"lines chain to (rewrite them with the new plan)")
        self._meta = meta
        self.path.mkdir(parents=True, exist_ok=True)
        self._write_chain()

    def _write_chain(self, pending: str | None = None) -> None:
        """run.json with the chain's head (and the head a write is about to make)."""
        assert self._meta is not None and self._head is not None
        if self.signer is not None:  # before run.json: its head is always one the .sig covers
            self.signer.write(self.path, plan_digest(self._meta),
                              str(self._meta.get("suite_sha256")), self._head, pending)
        chain: dict[str, Any] = {"head": self._head}
        if pending is not None:
            chain["pending"] = pending
        _write_atomic(self.run_json, json.dumps({**self._meta, "chain": chain}, indent=2,
                                                sort_keys=True) + "\n")

    @contextmanager
    def locked(self, what: str = "--out") -> Iterator[None]:
        """Hold the folder's lock (flock on a lock file inside it) while writing: a second
        ``run``, ``--resume`` or ``play`` on the folder is refused at once, never waits. A
        folder this call created is removed again when nothing was written into it."""
        created = not self.path.exists()
        self.path.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(self.lock_file, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise ArenaGenError(f"{what} {self.path}: cannot create its lock file "
                                f"{LOCK_FILE}: {exc.strerror}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise ArenaGenError(f"{what} {self.path} is in use: another arena-gen run, "
                                f"--resume or play is writing into it (it holds "
                                f"{self.lock_file}); wait for it to end, or choose another "
                                f"{what}") from None
        try:
            yield
        finally:
            if created and not self.exists() and not self.trajectories.exists():
                self.lock_file.unlink(missing_ok=True)
                try:
                    self.path.rmdir()
                except OSError:
                    pass
            os.close(fd)

    def repair(self) -> int:
        """Cut a torn last line left by a kill mid-write; return the bytes removed."""
        if not self.trajectories.is_file():
            return 0
        with open_regular(self.trajectories, TRAJECTORIES) as fh:  # the tail, never the whole
            size = os.fstat(fh.fileno()).st_size
            end = size
            keep = 0
            while end > 0:
                start = max(0, end - (1 << 16))
                fh.seek(start)
                cut = fh.read(end - start).rfind(b"\n")
                if cut >= 0:
                    keep = start + cut + 1
                    break
                end = start
        if keep == size:
            return 0
        with open(self.trajectories, "r+b") as fh:
            fh.truncate(keep)
            fh.flush()
            os.fsync(fh.fileno())
        return size - keep

    def records(self) -> list[dict[str, Any]]:
        """Every complete line, in file order, checked (:meth:`numbered_records`)."""
        return [record for _, record in self.numbered_records()]

    def numbered_records(self) -> list[tuple[int, dict[str, Any]]]:
        """Every line of :meth:`iter_numbered_records`, read to the end (the chain checked)."""
        return list(self.iter_numbered_records())

    def iter_numbered_records(self) -> Iterator[tuple[int, dict[str, Any]]]:
        """The complete lines with their line numbers (what errors name), each a valid
        trajectory record (without its ``prev`` link). A chained run's lines must form its
        chain from run.json's plan to its head (or to the ``pending`` head of a write a kill
        interrupted); a break is a
        :class:`ChainError` naming file and line. A run written before the chain
        (:attr:`unchained`) is read as it always was: an undecodable line is skipped with a
        warning, and the rest is not schema-checked here (``score`` checks it).
        One line is held at a time, so a caller that keeps less than the whole record (``score``)
        needs memory for one line, not the file; the chain's head is checked after the last line,
        so a caller must read to the end before trusting what it kept."""
        if not os.path.lexists(self.trajectories):  # a FIFO or device is refused, not skipped
            self._count, self.unchained = 0, False
            return
        meta = self.read_meta() if self.exists() else None
        chain = (meta or {}).get("chain")
        file = str(self.trajectories)

        def overlong(lineno: int) -> None:
            warnings.warn(f"skipping a corrupt line: {self.trajectories}:{lineno}: longer than "
                          f"{max_line_bytes()} bytes", stacklevel=4)

        # streamed with the per-line cap, one line held at a time (holding every raw line
        # beside its decoded record doubled score's peak); a torn tail (no newline yet) is not
        # a line
        raws = ((lineno, raw) for lineno, raw in iter_lines(
            self.trajectories, what=TRAJECTORIES, on_overlong=overlong) if raw.endswith(b"\n"))
        if chain is None:
            yield from self._unchained(raws, meta)
            return
        head = expected = plan_digest(meta or {})
        count = previous = 0
        for lineno, raw in raws:
            if not raw.strip():
                raise ChainError("a blank line inside a chained trajectories file (a line was "
                                 "inserted or emptied)", file=file, line=lineno)
            digest = line_digest(raw)
            ours = digest in self._valid  # bytes known valid: decoded without the caps
            record = json.loads(raw) if ours else loads(raw, file=file, line=lineno)
            if not isinstance(record, dict):
                raise ChainError("not a trajectory record", file=file, line=lineno)
            if record.get(PREV) != expected:
                raise ChainError(
                    "does not chain to run.json's plan (prev is not the digest of the plan: "
                    "the plan in run.json was edited, or the first line was replaced or "
                    "deleted)" if previous == 0 else
                    f"does not chain to line {previous} (prev is not the sha256 of line "
                    f"{previous}: a line was deleted, inserted or reordered here, or line "
                    f"{previous} was edited)", file=file, line=lineno,
                    task_id=_task_of(record), json_path=f"$.{PREV}")
            if not ours:
                validate_doc(record, "trajectory", file=file, line=lineno)
                self._valid.add(digest)
            head = expected = digest
            previous = lineno
            del record[PREV]  # a link of the file, not a fact of the episode
            count += 1
            yield lineno, record
        if head not in (chain.get("head"), chain.get("pending")):
            last = f"line {previous}" if previous else "the plan (no line)"
            raise ChainError(f"run.json's chain head is not the digest of the last line "
                             f"({last} of {file}): lines after it were deleted, or the last "
                             f"line or the head was edited", file=str(self.run_json),
                             json_path="$.chain.head")
        self._head, self._genesis, self._count = head, plan_digest(meta or {}), count
        self.unchained = False

    def _unchained(self, raws: Iterable[tuple[int, bytes]], meta: dict[str, Any] | None
                   ) -> Iterator[tuple[int, dict[str, Any]]]:
        """The lines of a run written before the chain (run.json has no ``chain``);
        :attr:`unchained` is set before the first line is yielded."""
        file = str(self.trajectories)
        count = 0
        for lineno, raw in raws:
            if not raw.strip():
                continue
            try:
                record = loads(raw, file=file, line=lineno)
                if not isinstance(record, dict) or not isinstance(
                        record.get("task_id"), str) or not isinstance(
                        record.get("attempt"), int):
                    raise SchemaError("not a trajectory record", file=file, line=lineno)
            except SchemaError as exc:
                warnings.warn(f"skipping a corrupt line: {exc}", stacklevel=3)
                continue
            if PREV in record and meta is not None:
                raise ChainError("a chained line, but run.json records no chain head (its "
                                 "chain was removed, or run.json replaced)", file=file,
                                 line=lineno, task_id=_task_of(record), json_path=f"$.{PREV}")
            count += 1
            self.unchained = meta is not None
            yield lineno, record
        self.unchained = bool(count) and meta is not None
        self._count, self._head = count, None

    def finished(self) -> set[Key]:
        """Keys whose latest record is a finished episode (not an infra error)."""
        latest: dict[Key, dict[str, Any]] = {}
        for rec in self.records():
            latest[(rec["task_id"], int(rec["attempt"]))] = rec
        return {k for k, r in latest.items() if r["end_reason"] not in RETRY_REASONS}

    def append(self, record: dict[str, Any]) -> None:
        """Append one episode durably (flush + fsync), chained to the head: run.json first
        declares the new head as pending, then the line is written, then the head recorded,
        so a kill between any two steps leaves a chain that reads back."""
        if self._meta is None or self._head is None or self.unchained:
            raise ArenaGenError(f"{self.run_json}: write run.json (on a chained run) before "
                                f"appending")
        body = {k: v for k, v in record.items() if k != PREV}
        line = utf8_line({**body, PREV: self._head})
        digest = line_digest(line)
        self._write_chain(pending=digest)
        with open(self.trajectories, "ab") as fh:
            fh.write(line)
            fh.flush()
            os.fsync(fh.fileno())
        self._head, self._count = digest, self._count + 1
        self._write_chain()
        if is_typed_trajectory(body):
            self._valid.add(digest)

    def rewrite(self, records: Iterable[dict[str, Any]], meta: dict[str, Any] | None = None
                ) -> None:
        """Replace the lines by ``records``, chained afresh from the plan of ``meta`` (default:
        the run.json last written), atomically: run.json declares the new head as pending
        before the file is replaced."""
        if meta is not None:
            self._meta = RunMeta.model_validate({k: v for k, v in meta.items()
                                                 if k != "chain"}).to_json_dict()
        if self._meta is None or self.unchained:
            raise ArenaGenError(f"{self.run_json}: read the (chained) run before rewriting it")
        records = list(records)
        genesis = plan_digest(self._meta)
        if self._count == 0 or self._head is None:
            self._head = genesis
        data, head = chain_lines(records, genesis, self._valid)
        self._write_chain(pending=head)
        _write_atomic(self.trajectories, data)
        self._head, self._genesis, self._count = head, genesis, len(records)
        self._write_chain()

    def finalize(self, order: Iterable[Key]) -> None:
        """Rewrite trajectories in ``order``, the last record per key winning."""
        latest: dict[Key, dict[str, Any]] = {}
        for rec in self.records():
            latest[(rec["task_id"], int(rec["attempt"]))] = rec
        rank = {key: i for i, key in enumerate(order)}
        unknown = [k for k in latest if k not in rank]
        if unknown:
            raise ArenaGenError(f"{self.trajectories}: records for keys outside this run: "
                                f"{unknown[:3]}")
        keys = sorted(latest, key=rank.__getitem__)
        self.rewrite(latest[k] for k in keys)


def _task_of(record: dict[str, Any]) -> str | None:
    """A line's task id for an error message, if it has a string one."""
    task_id = record.get("task_id")
    return task_id if isinstance(task_id, str) else None
