"""A full disk (ENOSPC mid-write) leaves the old files and no temporaries, partial pages or
half key pairs behind (issue 41)."""

from __future__ import annotations

import errno
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena_gen.core.errors import ArenaGenError
from arena_gen.core.suite_io import write_suite
from arena_gen.runner.run import RunConfig, run_suite
from arena_gen.scoring.score import score_run
from arena_gen.suite.build import build_suite


def full_after(limit: int) -> Any:
    """A ``Path.write_text`` that writes ``limit`` characters and then finds the disk full."""
    def write_text(self: Path, data: str, *args: Any, **kwargs: Any) -> int:
        with open(self, "w", encoding="utf-8") as fh:
            fh.write(data[:limit])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self))
    return write_text


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("full")
    built = build_suite("lite", 7, ["lights"], counts={"lights": 2})
    suite = write_suite(root / "suite", built.manifest, built.tasks)
    out = run_suite(RunConfig(suite=str(suite), agent="random", out=str(root / "run"))).path
    score_run(out)
    return out


def hidden(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_score_on_a_full_disk_keeps_the_old_files_and_no_temporary(
        run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy = Path(shutil.copytree(run, tmp_path / "run"))
    before = (copy / "findings.jsonl").read_bytes()
    monkeypatch.setattr(Path, "write_text", full_after(10))
    with pytest.raises(ArenaGenError, match="No space left on device"):
        score_run(copy)
    assert hidden(copy) == [] and (copy / "findings.jsonl").read_bytes() == before


def test_report_on_a_full_disk_leaves_no_partial_page(
        run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from arena_gen.scoring import report

    monkeypatch.setattr(report, "plots_available", lambda: False)
    monkeypatch.setattr(Path, "write_text", full_after(100))
    with pytest.raises(ArenaGenError, match="cannot write: No space left on device"):
        report.write_report([run], tmp_path / "r.html")
    assert list(tmp_path.iterdir()) == []


def test_sft_export_on_a_full_disk_leaves_no_temporary(tmp_path: Path) -> None:
    from arena_gen.train.sft import write_jsonl

    class Filling(list[dict[str, Any]]):
        def __iter__(self) -> Iterator[dict[str, Any]]:
            yield {"messages": []}
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    out = tmp_path / "sft.jsonl"
    out.write_text("old\n")
    with pytest.raises(OSError, match="No space left"):
        write_jsonl(out, Filling())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sft.jsonl"]
    assert out.read_text() == "old\n"


@pytest.mark.parametrize("fail_on", [1, 2])  # the private key's write, the public key's
def test_keygen_on_a_full_disk_leaves_no_half_key_pair(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fail_on: int) -> None:
    pytest.importorskip("cryptography")
    from arena_gen.core import signing

    real, calls = os.write, []

    def write(fd: int, data: Any) -> int:
        calls.append(fd)
        if len(calls) == fail_on:
            real(fd, bytes(data)[:20])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(fd, data)

    monkeypatch.setattr(signing.os, "write", write)
    with pytest.raises(OSError, match="No space left"):
        signing.generate_key(tmp_path / "key")
    assert list(tmp_path.iterdir()) == []
