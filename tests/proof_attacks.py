"""Attacks on stored proofs shared by the decomposed-proof tests (lights v5 parts, repo v6
groups), and the proved suites they attack: edit a suite's proof files and manifest the way
a forger could, then read the checker's refusal."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from arena_gen.core.canon import sha256_hex
from arena_gen.core.suite_io import write_suite
from arena_gen.core.task import Task
from arena_gen.proofs import store
from arena_gen.proofs.check import check_task
from arena_gen.proofs.drup import ProofError
from arena_gen.proofs.produce import prove_suite
from arena_gen.suite.build import build_suite


def refusal(suite: Path, task: Task, entry: dict[str, Any] | None = None) -> str:
    """The checker's message refusing ``task``'s proof (the test fails if it is accepted)."""
    with pytest.raises(ProofError) as info:
        check_task(suite, task, entry or store.read_manifest(suite)[task.id])
    return str(info.value)


def lines_of(suite: Path, task_id: str) -> list[str]:
    """A stored proof's lines, decompressed."""
    return store.decompress(store.read_proof(suite, store.read_manifest(suite)[task_id]))


def rewrite(suite: Path, task_id: str, lines: list[str], **entry: Any) -> None:
    """Store ``lines`` as the task's proof and list its hash (only the checker can refuse)."""
    entries = store.read_manifest(suite)
    data = store.compress(lines)
    store.write_proof(suite, entries[task_id]["file"], data)
    entries[task_id] = {**entries[task_id], "proof_sha256": sha256_hex(data),
                        "bytes": len(data), "lines": len(lines), **entry}
    store.write_manifest(suite, entries)


def corrupted_refusals(suite: Path, task: Task) -> tuple[str, str]:
    """The refusals of a lemma with a literal dropped (hash relisted) and of a flipped byte."""
    lines = lines_of(suite, task.id)
    at = next(i for i, line in enumerate(lines) if line[:1] not in ("c", "d")
              and len(line.split()) > 2)
    lines[at] = " ".join(lines[at].split()[1:])
    rewrite(suite, task.id, lines)
    dropped = refusal(suite, task)
    path = suite / "proofs" / store.file_name(task.id)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x40
    path.write_bytes(bytes(data))
    return dropped, refusal(suite, task)


def another_tasks_refusals(suite: Path, mine: Task, other: Task) -> tuple[str, str]:
    """The refusals of ``other``'s proof stored for ``mine``: listed with ``other``'s parts
    and minima (bound to ``mine``), then with ``mine``'s own listing."""
    entries = store.read_manifest(suite)
    rewrite(suite, mine.id, lines_of(suite, other.id))
    listed = refusal(suite, mine, {**entries[other.id], "task_sha256": mine.sha256,
                                   "min_steps": mine.certificate.min_steps,
                                   "file": entries[mine.id]["file"],
                                   "proof_sha256": store.read_manifest(suite)[mine.id][
                                       "proof_sha256"]})
    return listed, refusal(suite, mine)


def proved_suite(tmp: Path, env: str, version: int) -> Path:
    """Two Challenge tasks of ``env`` at ``version`` (seed 7), built into ``tmp`` and proved."""
    result = build_suite("challenge", 7, [env], counts={env: 2}, versions={env: version})
    out = tmp / "challenge"
    write_suite(out, result.manifest, result.tasks)
    assert len(prove_suite(out)) == 2
    return out


def copied(proved: Path, tmp: Path) -> Path:
    """A copy of a proved suite that one test may forge in."""
    shutil.copytree(proved, tmp / "challenge")
    return tmp / "challenge"


def forged_parts(suite: Path, task: Task, claimed: Task, claims: list[dict[str, Any]],
                 key: str, **entry: Any) -> None:
    """Store ``task``'s proof re-headed to claim the parts ``claims`` of ``claimed`` (their
    ``key`` lists the bulbs or packages): a forger's header and part sections that say so,
    over the old lemmas (only the checker can refuse)."""
    lines = lines_of(suite, task.id)
    encs = [store.part_claim(claimed, p[key], p["min_steps"]) for p in claims]
    lines[:len(store.HEADER_KEYS) + 1] = store.header(claimed, encs, "forged")
    for i, (p, enc) in enumerate(zip(claims, encs, strict=True)):
        at = next(j for j, line in enumerate(lines) if line.startswith(f"c part {i} "))
        lines[at] = store.part_line(i, p[key], p["min_steps"], enc, key)
    rewrite(suite, task.id, lines, **entry)
