"""Proof production: ask a proof-logging SAT solver (python-sat) to refute each claim.

Only the prover uses a SAT library. Each proof is checked by :mod:`arena_gen.proofs.drup`
before it is stored (a solver whose proof the checker refuses, e.g. one using a non-RUP
inference, gives way to the next in ``SOLVERS``), so ``prove`` never writes a proof that
``verify --proofs`` would refuse, and a solver bug can cost a proof, never a wrong acceptance.
The proof stored is the solver's trimmed to the lemmas its refutation uses
(:mod:`arena_gen.proofs.trim`, checked like any other proof).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pysat.solvers import Solver

from arena_gen.core.canon import sha256_hex
from arena_gen.core.parallel import map_unordered
from arena_gen.core.suite_io import read_suite
from arena_gen.core.task import Task
from arena_gen.proofs import store
from arena_gen.proofs.drup import DEFAULT_LIMITS, Limits, ProofError, check_refutation
from arena_gen.proofs.trim import trim

#: The solvers of an env's encoder (``store.Encoder.solvers``) are tried in order. For lights,
#: CaDiCaL's proofs check 2-3x faster than Glucose's (smaller); Glucose logs plain DRUP (no
#: extended resolution), the fallback.
SOLVERS = None


@dataclass(frozen=True)
class Proved:
    """One stored proof: its manifest entry, the seconds spent solving and trimming
    (``prove_seconds``) and checking."""

    task_id: str
    entry: dict[str, Any]
    prove_seconds: float
    check_seconds: float


def refute(clauses: Sequence[Sequence[int]], solver: str) -> list[str]:
    """The solver's clausal proof that ``clauses`` are unsatisfiable (text lines)."""
    with Solver(name=solver, bootstrap_with=[list(c) for c in clauses],
                with_proof=True) as sat:
        if sat.solve():
            raise ProofError("the formula is satisfiable: a shorter completion exists, so the "
                             "certificate's minimum is wrong")
        proof = [str(line) for line in sat.get_proof() or ()]
    # A formula refuted while the solver loads it (unit propagation alone) gets no lemma:
    # the empty clause then follows at once.
    return proof or ["0"]


def _checked(variables: int, clauses: Sequence[Sequence[int]], solvers: Sequence[str],
             limits: Limits, trimmed: bool = True) -> tuple[list[str], str, float, float]:
    """The first solver's proof the checker accepts (trimmed to the lemmas its refutation
    uses, :mod:`arena_gen.proofs.trim`, unless ``trimmed`` is False), its solver, the seconds
    spent solving and trimming, and the check's seconds."""
    refusals = []
    for solver in solvers:
        start = time.perf_counter()
        body = refute(clauses, solver)
        try:
            if trimmed:
                body = trim(variables, clauses, body)
            proved = time.perf_counter() - start
            stats = check_refutation(variables, clauses, body, limits)
        except ProofError as exc:
            refusals.append(f"{solver}: {exc}")
            continue
        return body, solver, proved, stats.seconds
    raise ProofError("no solver's proof checks: " + "; ".join(refusals))


def prove_task(task: Task, solvers: Sequence[str] | None = SOLVERS,
               limits: Limits = DEFAULT_LIMITS, trimmed: bool = True) -> tuple[Proved, bytes]:
    """A checked, compressed proof of ``task``'s minimum and its manifest entry (decomposed:
    one refutation per part, :mod:`arena_gen.proofs.parts`, when the task lists parts);
    ``solvers`` None: the env's encoder's own solvers."""
    solvers = solvers or store.ENCODERS[task.env].solvers
    parts = store.decomposition(task)
    if parts is not None:
        return _prove_parts(task, parts, solvers, limits, trimmed)
    enc = store.claim(task)
    try:
        body, solver, proved, checked = _checked(enc.variables, enc.clauses, solvers, limits,
                                                 trimmed)
    except ProofError as exc:
        raise ProofError(f"task {task.id}: {exc}") from None
    lines = store.header(task, enc, solver) + body
    data = store.compress(lines)
    entry = {"task_sha256": task.sha256, "min_steps": task.certificate.min_steps,
             "encoder": store.ENCODERS[task.env].name, "cnf_sha256": enc.sha256(),
             "file": store.file_name(task.id), "proof_sha256": sha256_hex(data),
             "bytes": len(data), "lines": len(lines), "solver": solver}
    return Proved(task.id, entry, proved, checked), data


def _prove_parts(task: Task, parts: list[tuple[list[int], int]], solvers: Sequence[str],
                 limits: Limits, trimmed: bool) -> tuple[Proved, bytes]:
    """The decomposed proof: per part, a checked refutation of its ``k_P - 1`` turns."""
    reason = store.unprovable(task)  # provable at all: encoder, version, exact minimum
    if reason is not None:
        raise ProofError(f"task {task.id}: {reason}")
    encs = [store.part_claim(task, bulbs, k) for bulbs, k in parts]
    key = store.ENCODERS[task.env].parts.key
    sections: list[str] = []
    rows: list[dict[str, Any]] = []
    used: list[str] = []
    proved = checked = 0.0
    for index, ((bulbs, k), enc) in enumerate(zip(parts, encs, strict=True)):
        try:
            body, solver, p_s, c_s = _checked(enc.variables, enc.clauses, solvers, limits,
                                              trimmed)
        except ProofError as exc:
            raise ProofError(f"task {task.id}, part {index}: {exc}") from None
        proved += p_s
        checked += c_s
        used.append(solver)
        sections += [store.part_line(index, bulbs, k, enc, key), *body]
        rows.append({key: bulbs, "min_steps": k, "cnf_sha256": enc.sha256(),
                     "lines": len(body) + 1})
    solver = ",".join(sorted(set(used)))
    lines = store.header(task, encs, solver) + sections
    data = store.compress(lines)
    entry = {"task_sha256": task.sha256, "min_steps": task.certificate.min_steps,
             "encoder": store.ENCODERS[task.env].name, "cnf_sha256": store.parts_sha256(encs),
             "file": store.file_name(task.id), "proof_sha256": sha256_hex(data),
             "bytes": len(data), "lines": len(lines), "solver": solver, "parts": rows}
    return Proved(task.id, entry, proved, checked), data


def _prove_job(job: tuple[Task, Sequence[str] | None, Limits, bool]) -> tuple[Proved, bytes]:
    """One task's proof in a worker process (a top-level function, so it pickles)."""
    task, solvers, limits, trimmed = job
    return prove_task(task, solvers, limits, trimmed)


def prove_suite(path: str | Path, solvers: Sequence[str] | None = SOLVERS,
                on_task: Callable[[Proved | None, Task], None] | None = None,
                envs: Collection[str] | None = None,
                limits: Limits = DEFAULT_LIMITS, trimmed: bool = True,
                jobs: int = 1) -> list[Proved]:
    """Write ``proofs/`` for every provable task of a suite (``on_task`` after each task,
    with None for a task not covered), ``jobs`` tasks at a time; the manifest is written last.
    With ``envs``, only those envs' tasks are proved and the listed proofs of the others are
    kept as they are. The files do not depend on ``jobs``."""
    suite_dir = Path(path)
    suite = read_suite(suite_dir, envs=set(store.ENCODERS))
    store.proofs_dir(suite_dir).mkdir(exist_ok=True)
    kept: dict[str, dict[str, Any]] = {}
    covered: set[str] = set()
    if envs is not None and (store.proofs_dir(suite_dir) / store.MANIFEST).is_file():
        others = {t.id for t in suite.all_tasks() if t.env not in envs}
        kept = {i: e for i, e in store.read_manifest(suite_dir).items() if i in others}
        covered = store.proved_envs(suite_dir) - set(envs)
    todo: list[Task] = []
    for task in suite.all_tasks():
        if envs is not None and task.env not in envs:
            continue
        covered.add(task.env)
        if store.unprovable(task) is not None:
            if on_task is not None:
                on_task(None, task)
            continue
        todo.append(task)
    order = {task.id: n for n, task in enumerate(todo)}
    by_id = {task.id: task for task in todo}
    done: list[Proved] = []
    # the longest claims first, so no worker is left with a big one at the end
    jobs_in = sorted(((t, solvers, limits, trimmed) for t in todo),
                     key=lambda job: -(job[0].certificate.min_steps or 0))
    for proved, data in map_unordered(_prove_job, jobs_in, jobs=jobs):
        store.write_proof(suite_dir, proved.entry["file"], data)
        done.append(proved)
        if on_task is not None:
            on_task(proved, by_id[proved.task_id])
    done.sort(key=lambda p: order[p.task_id])
    store.write_manifest(suite_dir, {**kept, **{p.task_id: p.entry for p in done}}, covered)
    written = {p.entry["file"] for p in done} | {e["file"] for e in kept.values()}
    for stale in store.proofs_dir(suite_dir).glob("*" + store.SUFFIX):
        if stale.name not in written:  # a proof of a task this suite no longer holds
            stale.unlink()
    return done
