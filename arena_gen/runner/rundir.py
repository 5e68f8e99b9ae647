"""The run directory: ``run.json`` plus an append-only ``trajectories.jsonl`` that survives kills.

Each finished episode is one line, flushed and fsynced before the next starts, so a crash loses
at most the episodes in flight. A torn last line (killed mid-write) is cut off on resume.
``finalize`` rewrites the file atomically in suite order, keeping the last record per
(task, attempt), so an interrupted-and-resumed run ends with the same lines as an uninterrupted one.
Text that UTF-8 cannot carry (a lone surrogate such as ``\ud800``, which a JSON body may encode
as an escape) is written as U+FFFD instead of aborting the run and losing the episodes in flight.
"""

from __future__ import annotations

import json
import os
import re
import warnings
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from arena_gen.core.bounded_io import iter_lines, max_line_bytes, open_regular
from arena_gen.core.canon import canonical_json
from arena_gen.core.errors import ArenaGenError, SchemaError
from arena_gen.core.paths import check_creatable
from arena_gen.core.records import RunMeta
from arena_gen.core.schema import loads, read_json

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


#: Files a run writes besides run.json and trajectories.jsonl (a kill mid-write leaves them).
OWN_TEMPS = (f".{RUN_JSON}.tmp", f".{TRAJECTORIES}.tmp")


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


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


class RunDir:
    """One run's folder on disk."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.run_json = self.path / RUN_JSON
        self.trajectories = self.path / TRAJECTORIES

    def exists(self) -> bool:
        return self.run_json.is_file()

    def read_meta(self) -> dict[str, Any]:
        """``run.json``, validated against its schema (generated from the typed record)."""
        return read_json(self.run_json, "run")

    def write_meta(self, meta: dict[str, Any]) -> None:
        """Write ``run.json`` atomically; ``meta`` must be a valid run record."""
        meta = RunMeta.model_validate(meta).to_json_dict()
        self.path.mkdir(parents=True, exist_ok=True)
        _write_atomic(self.run_json, json.dumps(meta, indent=2, sort_keys=True) + "\n")

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
        """Every complete, decodable line, in file order. A corrupt line (a disk error, an
        edit) is skipped with a warning naming it: the episode is then missing and is played
        again by ``--resume``; nothing else is lost."""
        return [record for _, record in self.numbered_records()]

    def numbered_records(self) -> list[tuple[int, dict[str, Any]]]:
        """:meth:`records` with each one's line number in the file (what errors name)."""
        if not os.path.lexists(self.trajectories):  # a FIFO or device is refused, not skipped
            return []
        out = []

        def overlong(lineno: int) -> None:
            warnings.warn(f"skipping a corrupt line: {self.trajectories}:{lineno}: longer than "
                          f"{max_line_bytes()} bytes", stacklevel=4)

        for lineno, raw in iter_lines(self.trajectories, what=TRAJECTORIES,
                                      on_overlong=overlong):
            if not raw.endswith(b"\n") or not raw.strip():
                continue
            try:
                record = loads(raw, file=str(self.trajectories), line=lineno)
                if not isinstance(record, dict) or not isinstance(
                        record.get("task_id"), str) or not isinstance(
                        record.get("attempt"), int):
                    raise SchemaError("not a trajectory record", file=str(self.trajectories),
                                      line=lineno)
            except SchemaError as exc:
                warnings.warn(f"skipping a corrupt line: {exc}", stacklevel=3)
                continue
            out.append((lineno, record))
        return out

    def finished(self) -> set[Key]:
        """Keys whose latest record is a finished episode (not an infra error)."""
        latest: dict[Key, dict[str, Any]] = {}
        for rec in self.records():
            latest[(rec["task_id"], int(rec["attempt"]))] = rec
        return {k for k, r in latest.items() if r["end_reason"] not in RETRY_REASONS}

    def append(self, record: dict[str, Any]) -> None:
        """Append one episode durably (flush + fsync)."""
        self.path.mkdir(parents=True, exist_ok=True)
        with open(self.trajectories, "ab") as fh:
            fh.write(utf8_line(record))
            fh.flush()
            os.fsync(fh.fileno())

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
        _write_atomic(self.trajectories,
                      b"".join(utf8_line(latest[k]) for k in keys).decode("utf-8"))
