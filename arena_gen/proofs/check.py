"""The independent check of a suite's proofs: re-encode each claim, bind, check by RUP.

For every task with an exact minimum ``k`` (and a second encoder of its env), the task read
from the suite (its hash checked against the suite manifest, as ``verify`` reads it) is encoded
again with its env's second encoder (:mod:`arena_gen.proofs.lights_cnf`,
:mod:`arena_gen.proofs.repo_cnf`) at ``k - 1`` turns (a decomposed proof: each part's own
world at ``k_P - 1``, the partition checked closed); the proof file must be the
one ``proofs/manifest.json`` lists (sha256), its header must name this task, hash, ``k``,
encoder and formula, and :func:`arena_gen.proofs.drup.check_refutation` must accept it. Nothing
here imports a SAT library or the env packages that found the minima.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena_gen.core.errors import ArenaGenError
from arena_gen.core.suite_io import read_suite
from arena_gen.core.task import Task
from arena_gen.proofs import store
from arena_gen.proofs.drup import (
    DEFAULT_LIMITS,
    CheckStats,
    Limits,
    ProofError,
    check_refutation,
)
from arena_gen.proofs.parts import read_parts


@dataclass(frozen=True)
class TaskProof:
    """One task's outcome: checked (with stats), refused (with the problem), or not covered."""

    task_id: str
    env: str
    file: str
    ok: bool
    problem: str | None = None
    stats: CheckStats | None = None
    bytes: int = 0


@dataclass
class ProofReport:
    """Every task's outcome, and problems of the manifest as a whole."""

    suite: Path
    checked: list[TaskProof] = field(default_factory=list)
    not_covered: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems and all(p.ok for p in self.checked)


def check_task(suite: Path, task: Task, entry: dict[str, Any] | None,
               limits: Limits = DEFAULT_LIMITS) -> CheckStats:
    """Check one task's proof; a ProofError names the file and the task."""
    where = f"{store.proofs_dir(suite) / store.file_name(task.id)} (task {task.id})"
    try:
        if entry is None:
            raise ProofError("no proof listed in the proofs manifest")
        k = task.certificate.min_steps
        if entry["task_sha256"] != task.sha256 or entry["min_steps"] != k:
            raise ProofError("the manifest binds this proof to another task content or minimum")
        where = f"{store.proofs_dir(suite) / entry['file']} (task {task.id})"
        lines = store.decompress(store.read_proof(suite, entry))
        if "parts" in entry:
            reason = store.unprovable(task)
            if reason is not None:
                raise ProofError(reason)
            return _check_parts(task, entry["parts"], lines, limits)
        enc = store.claim(task)
        _check_header(task, lines, enc.sha256())
        return check_refutation(enc.variables, enc.clauses, lines, limits)
    except ArenaGenError as exc:
        raise ProofError(f"{where}: {exc}") from None


def _check_header(task: Task, lines: list[str], cnf_sha256: str) -> None:
    """Refuse a proof whose header names another task, content, minimum or formula."""
    wanted = dict(zip(store.HEADER_KEYS, (task.id, task.sha256, str(task.certificate.min_steps),
                                          store.ENCODERS[task.env].name, cnf_sha256),
                      strict=False))
    found = store.read_header(lines)
    for key, value in wanted.items():
        if found.get(key) != value:
            raise ProofError(f"the proof's header says {key} {found.get(key)!r}, this task "
                             f"needs {value!r}: a proof of another task or formula")


def _check_parts(task: Task, listed: Any, lines: list[str], limits: Limits) -> CheckStats:
    """A decomposed proof: the listed parts partition the bulbs (packages), no rule crosses a
    part, the parts' minima give the certificate's (lights: their sum; repo: their sum less
    the Python selection and run each counts, :mod:`.repo_parts`), and each part's section
    refutes its claim."""
    split = store.ENCODERS[task.env].parts
    found = read_parts(listed, split.count(task.world), "the manifest's parts", split.key)
    split.check_closed(task.world, [bulbs for bulbs, _ in found])
    total = split.total([k for _, k in found])
    if total != task.certificate.min_steps:
        raise ProofError(f"the parts' minima sum to {sum(k for _, k in found)} (a world "
                         f"minimum of {total}), the certificate says "
                         f"{task.certificate.min_steps}")
    encs = [store.part_claim(task, bulbs, k) for bulbs, k in found]
    _check_header(task, lines, store.parts_sha256(encs))
    starts = [i for i, line in enumerate(lines) if line.startswith(store.PART_LINE + " ")]
    if len(starts) != len(found):
        raise ProofError(f"the proof has {len(starts)} part sections, the manifest lists "
                         f"{len(found)} parts")
    stats = []
    for index, ((bulbs, k), enc) in enumerate(zip(found, encs, strict=True)):
        begin = starts[index]
        end = starts[index + 1] if index + 1 < len(starts) else len(lines)
        if lines[begin] != store.part_line(index, bulbs, k, enc, split.key):
            raise ProofError(f"part {index}: the section says {lines[begin][:120]!r}, the "
                             f"manifest's part and its formula need another")
        try:
            stats.append(check_refutation(enc.variables, enc.clauses, lines[begin + 1:end],
                                          limits))
        except ProofError as exc:
            raise ProofError(f"part {index}: {exc}") from None
    return CheckStats(lemmas=sum(s.lemmas for s in stats),
                      deletions=sum(s.deletions for s in stats),
                      ignored_deletions=sum(s.ignored_deletions for s in stats),
                      seconds=sum(s.seconds for s in stats))


def check_suite(path: str | Path, limits: Limits = DEFAULT_LIMITS,
                on_task: Callable[[TaskProof], None] | None = None) -> ProofReport:
    """Check every proof a suite needs; the report holds each refusal with file and task id."""
    suite_dir = Path(path)
    suite = read_suite(suite_dir, envs=set(store.ENCODERS))  # hashes checked
    report = ProofReport(suite_dir)
    provable = []
    for task in suite.all_tasks():
        reason = store.unprovable(task)
        if reason is None:
            provable.append(task)
        else:
            report.not_covered[task.id] = reason
    if not provable:
        return report  # nothing to prove: no manifest needed
    try:
        entries = store.read_manifest(suite_dir)
        envs = store.proved_envs(suite_dir)
    except ArenaGenError as exc:
        report.problems.append(str(exc))
        return report
    for task in [t for t in provable if t.env not in envs]:
        report.not_covered[task.id] = (f"no {task.env} proofs were made for this suite "
                                       f"(arena-gen prove SUITE --env {task.env})")
    provable = [t for t in provable if t.env in envs]
    known = {t.id for t in suite.all_tasks()}
    for task_id in sorted(set(entries) - known):
        report.problems.append(f"{store.proofs_dir(suite_dir) / store.MANIFEST}: lists a proof "
                               f"for {task_id[:80]!r}, no task of this suite")
    for task in provable:
        entry = entries.get(task.id)
        try:
            stats = check_task(suite_dir, task, entry, limits)
            result = TaskProof(task.id, task.env, str(entry and entry["file"]), True,
                               stats=stats, bytes=int(entry["bytes"]) if entry else 0)
        except ProofError as exc:
            result = TaskProof(task.id, task.env, str(entry and entry["file"]), False,
                               problem=str(exc))
        report.checked.append(result)
        if on_task is not None:
            on_task(result)
    return report

