"""The run directory: ``run.json`` plus an append-only ``trajectories.jsonl`` that survives kills.

Each finished episode is one line, flushed and fsynced before the next starts, so a crash loses
at most the episodes in flight. A torn last line (killed mid-write) is cut off on resume.
``finalize`` rewrites the file atomically in suite order, keeping the last record per
(task, attempt), so an interrupted-and-resumed run ends with the same lines as an uninterrupted one.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..core.canon import canonical_json
from ..core.errors import ArenaGenError

RUN_JSON = "run.json"
TRAJECTORIES = "trajectories.jsonl"
#: End reasons that do not count as finished: ``--resume`` plays these keys again.
RETRY_REASONS = ("infra_error",)

Key = tuple[str, int]


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
        return json.loads(self.run_json.read_text(encoding="utf-8"))

    def write_meta(self, meta: dict[str, Any]) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        _write_atomic(self.run_json, json.dumps(meta, indent=2, sort_keys=True) + "\n")

    def repair(self) -> int:
        """Cut a torn last line left by a kill mid-write; return the bytes removed."""
        if not self.trajectories.is_file():
            return 0
        data = self.trajectories.read_bytes()
        keep = data.rfind(b"\n") + 1
        if keep == len(data):
            return 0
        with open(self.trajectories, "r+b") as fh:
            fh.truncate(keep)
            fh.flush()
            os.fsync(fh.fileno())
        return len(data) - keep

    def records(self) -> list[dict[str, Any]]:
        """Every complete line, in file order."""
        if not self.trajectories.is_file():
            return []
        out = []
        with open(self.trajectories, encoding="utf-8") as fh:
            for text in fh:
                if text.endswith("\n") and text.strip():
                    out.append(json.loads(text))
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
        line = canonical_json(record) + "\n"
        with open(self.trajectories, "a", encoding="utf-8", newline="\n") as fh:
            fh.write(line)
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
                      "".join(canonical_json(latest[k]) + "\n" for k in keys))
