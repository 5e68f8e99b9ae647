"""What the report shows of a run: the judge's replay, never the files ``score`` left behind.

``summary.json`` and ``findings.jsonl`` are outputs anyone can edit after ``score``; the report
recomputes both from the run (:func:`~.score.judge_run`: the chain-checked trajectories replayed
through the suite's games) and shows what it computed. When the files on disk are not what the
replay gives, the run is refused naming the file and the first differing field (a report must
not sit beside a summary that says something else), with one exception: a run whose
``summary.json`` is missing or older than its trajectories (never scored, or resumed since) is
scored, as ``arena-gen score`` would. Reads are bounded: ``summary.json`` is one capped JSON
document, and ``findings.jsonl`` is compared line by line with what the replay writes, refused
from its size alone when it is larger than that by more than one line's cap.

The scoring choices a summary records are taken from it: ``--strict`` (``coverage.strict``), an
unchained run scored with ``--allow-unchained`` (``integrity``) and the ``prices`` of the cost
column; a summary whose figures do not follow from them is refused like any other edit.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena_gen.core.bounded_io import (
    FILE_ENV,
    iter_lines,
    max_file_bytes,
    max_line_bytes,
    open_regular,
)
from arena_gen.core.errors import ArenaGenError, SchemaError
from arena_gen.core.schema import loads, read_json
from arena_gen.core.suite_io import Suite
from arena_gen.scoring.cost import prices_of
from arena_gen.scoring.score import (
    findings_text,
    judge_run,
    record_prices,
    summary_text,
    write_scores,
)

#: Summary fields that are not figures of the run: where it was scored from (the same run
#: reached by another spelling of its path is the same run).
_IGNORED = {"$.run.path"}
#: Characters of a value an error message shows.
_SHOWN = 60


@dataclass(frozen=True)
class CheckedRun:
    """A run's summary and findings lines as the judge's replay computed them."""

    path: Path
    summary: dict[str, Any]
    findings: list[dict[str, Any]]
    scored: bool  # True: summary.json was missing or stale, and the run was scored now
    suite: Suite | None = None  # the suite the replay read (hash-checked against run.json)


def _options(recorded: dict[str, Any] | None) -> tuple[bool, bool, dict[str, float] | None]:
    """``(strict, allow_unchained, prices)`` as the recorded summary says it was scored."""
    if recorded is None:
        return False, False, None
    coverage = recorded.get("coverage")
    strict = isinstance(coverage, dict) and coverage.get("strict") is True
    unchained = recorded.get("integrity") == "unchained"
    prices = recorded.get("prices")
    if isinstance(prices, dict):
        try:
            return strict, unchained, prices_of(float(prices["input_usd_per_1m"]),
                                                float(prices["output_usd_per_1m"]))
        except (KeyError, TypeError, ValueError):
            pass  # a malformed record: the comparison below names it
    return strict, unchained, None


def _stale(path: Path) -> bool:
    """Whether summary.json is missing or older than the trajectories (to be scored now)."""
    summary, trajectories = path / "summary.json", path / "trajectories.jsonl"
    if not os.path.lexists(summary):
        return True
    try:
        return trajectories.is_file() and (
            summary.stat().st_mtime_ns < trajectories.stat().st_mtime_ns)
    except OSError:
        return False  # unreadable: the read below names it


def _shown(value: Any) -> str:
    text = json.dumps(value, sort_keys=True) if value is not None else "absent"
    return text if len(text) <= _SHOWN else text[:_SHOWN] + "..."


def first_difference(found: Any, expected: Any, where: str = "$") -> tuple[str, Any, Any] | None:
    """The JSON path of the first place ``found`` differs from ``expected``, with both values
    there (None: equal); keys in sorted order, so the same edit always names the same path."""
    if where in _IGNORED:
        return None
    if isinstance(found, dict) and isinstance(expected, dict):
        for key in sorted(set(found) | set(expected)):
            sub = f"{where}.{key}"
            if key not in found or key not in expected:
                if sub in _IGNORED:
                    continue
                return sub, found.get(key), expected.get(key)
            diff = first_difference(found[key], expected[key], sub)
            if diff is not None:
                return diff
        return None
    if isinstance(found, list) and isinstance(expected, list):
        for i, (a, b) in enumerate(zip(found, expected, strict=False)):
            diff = first_difference(a, b, f"{where}[{i}]")
            if diff is not None:
                return diff
        if len(found) != len(expected):
            return f"{where}.length", len(found), len(expected)
        return None
    same = type(found) is type(expected) and found == expected
    return None if same else (where, found, expected)


def _refuse(file: Path, where: str, found: Any, expected: Any, line: int | None = None
            ) -> ArenaGenError:
    at = f"{file}:{line}" if line is not None else str(file)
    return ArenaGenError(
        f"{at}, at {where}: {_shown(found)} is not what the judge's replay of the run gives "
        f"({_shown(expected)}); the file was edited after `arena-gen score`, or written by "
        f"another version: refused (run `arena-gen score {file.parent}` to rewrite it from "
        f"the replay)")


def check_summary(file: Path, recorded: dict[str, Any], summary: dict[str, Any]) -> None:
    """Refuse a summary.json that differs from the replay's, naming its first differing field."""
    expected = json.loads(summary_text(summary))
    diff = first_difference(recorded, expected)
    if diff is not None:
        raise _refuse(file, *diff)


def check_findings(file: Path, lines: list[dict[str, Any]]) -> None:
    """Refuse a findings.jsonl that is not the replay's lines, naming its first differing line
    and field; read one capped line at a time, and refused from its size when it is larger
    than the replay's text by more than one line's cap (a 2 GB sparse file is never read)."""
    expected = findings_text(lines).encode("utf-8")
    _check_size(file, len(expected) + max_line_bytes(), len(expected))
    want = expected.splitlines(keepends=True)
    count = 0
    for lineno, raw in iter_lines(file, max_file=len(expected) + max_line_bytes(),
                                  what="findings.jsonl"):
        count = lineno
        if lineno <= len(want) and raw == want[lineno - 1]:
            continue
        if lineno > len(want):
            raise _count_refused(file, f"a line {lineno}", len(want))
        found = loads(raw, file=str(file), line=lineno)
        diff = first_difference(found, lines[lineno - 1])
        if diff is None:  # the same values in other bytes
            raise _refuse(file, "$", "a line not in canonical JSON", "canonical JSON", lineno)
        raise _refuse(file, *diff, line=lineno)
    if count < len(want):
        raise _count_refused(file, f"{count} line(s)", len(want))


def _count_refused(file: Path, found: str, expected: int) -> ArenaGenError:
    return ArenaGenError(f"{file}: {found}, where the judge's replay of the run gives "
                         f"{expected} line(s): lines were added or removed after `arena-gen "
                         f"score`: refused (run `arena-gen score {file.parent}` to rewrite it)")


def _check_size(file: Path, limit: int, expected: int | None = None) -> None:
    """Refuse a findings.jsonl that is missing, not a regular file, or larger than ``limit``
    (from its size: it is not read)."""
    try:
        with open_regular(file, "findings.jsonl") as fh:
            size = os.fstat(fh.fileno()).st_size
    except FileNotFoundError:
        raise ArenaGenError(f"{file}: missing beside summary.json (removed after `arena-gen "
                            f"score`): refused (run `arena-gen score {file.parent}` to rewrite "
                            f"it)") from None
    except OSError as exc:
        raise ArenaGenError(f"{file}: cannot read: {exc.strerror or exc}") from None
    if size > limit:
        gives = (f"the judge's replay of the run gives {expected}" if expected is not None
                 else f"a findings file is at most {limit} (${FILE_ENV})")
        raise ArenaGenError(f"{file}: {size} bytes, where {gives}: refused unread (edited "
                            f"after `arena-gen score`; run `arena-gen score {file.parent}` to "
                            f"rewrite it)")


def check_run(run_dir: str | Path, public_key: str | os.PathLike[str] | None = None
              ) -> CheckedRun:
    """The run's figures from the judge's replay: scored now (files written) when summary.json
    is missing or stale, else proved equal to summary.json and findings.jsonl, or refused
    (``public_key``: a run that key did not sign is refused, :func:`~.score.check_signed`)."""
    path = Path(run_dir)
    file = path / "summary.json"
    if _stale(path):
        recorded = None
        if file.is_file():  # stale: keep the scoring choices it records
            try:
                recorded = read_json(file, "summary")
            except (SchemaError, OSError):
                recorded = None
        strict, unchained, prices = _options(recorded)
        read: dict[str, Suite] = {}
        summary, lines = judge_run(path, strict=strict, allow_unchained=unchained,
                                   public_key=public_key, read=read)
        write_scores(path, summary, lines)
        if prices is not None:
            summary = record_prices(path, summary, prices)
        return CheckedRun(path, summary, lines, True, read.get("suite"))
    try:
        recorded = read_json(file, "summary")
    except OSError as exc:
        raise ArenaGenError(f"{file}: cannot read: {exc.strerror or exc}") from None
    findings = path / "findings.jsonl"
    _check_size(findings, max_file_bytes())  # before the replay: a huge file costs nothing
    strict, unchained, prices = _options(recorded)
    suites: dict[str, Suite] = {}
    summary, lines = judge_run(path, strict=strict, allow_unchained=unchained,
                               public_key=public_key, read=suites)
    if prices is not None:
        summary = {**summary, "prices": prices}
    check_summary(file, recorded, summary)
    check_findings(path / "findings.jsonl", lines)
    return CheckedRun(path, summary, lines, False, suites.get("suite"))
