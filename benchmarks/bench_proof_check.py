"""Trimmed proofs and the faster checker (#42), side by side on the same solver proofs.

Run: python benchmarks/bench_proof_check.py [--against REV] [--quick] [--suites S,...]
     [--envs repo] [--tasks ID,...] [--limit S] [--no-full-new]

For every claim a suite's proofs refute (one per task, one per part of a decomposed task), the
env's first solver refutes it once; then, in one process and one after the other on that
proof: the checker of commit REV (``git show REV:arena_gen/proofs/drup.py``) on the solver's
proof (before), the current checker on the same proof (the checker alone), the trimmer, and the
current checker on the trimmed proof (after). Seconds are CPU seconds of this process (shared
load cancels better than in wall time); a check past ``--limit`` counts as the limit ("≥").
Sizes are xz bytes and lines of the proof text without the header.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from arena_gen.core.paths import suites_dir
from arena_gen.core.suite_io import read_suite
from arena_gen.proofs import drup, store
from arena_gen.proofs.produce import refute
from arena_gen.proofs.trim import trim

ROOT = Path(__file__).resolve().parent.parent
#: The last commit before trimmed proofs and this checker (its checker is "before").
BASE = "73e4f16"


def old_checker(rev: str, folder: Path) -> ModuleType:
    """The checker module as of commit ``rev``, loaded from ``git show``."""
    text = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:arena_gen/proofs/drup.py"],
                          check=True, capture_output=True, text=True).stdout
    path = folder / "drup_before.py"
    path.write_text(text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("drup_before", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["drup_before"] = module
    spec.loader.exec_module(module)
    return module


def claims(suite: str, envs: set[str], tasks: set[str]) -> list[tuple[str, str, Any]]:
    """(task id, env, encoding) of every claim the suite's proofs of ``envs`` refute (of the
    tasks named, when ``tasks`` names any)."""
    out = []
    for task in read_suite(suites_dir() / suite, envs=envs).all_tasks():
        if store.unprovable(task) is not None or (tasks and task.id not in tasks):
            continue
        parts = store.decomposition(task)
        if parts is None:
            out.append((task.id, task.env, store.claim(task)))
        else:
            out += [(task.id, task.env, store.part_claim(task, bulbs, k)) for bulbs, k in parts]
    return out


def timed(checker: ModuleType, enc: Any, proof: list[str], limit: float) -> float:
    """CPU seconds of one check by ``checker`` (``limit`` when it stopped there)."""
    start = time.process_time()
    try:
        checker.check_refutation(enc.variables, enc.clauses, proof,
                                 checker.Limits(seconds=limit))
    except checker.ProofError as exc:
        if "time limit" not in str(exc):
            raise
        return limit
    return time.process_time() - start


def xz(lines: Sequence[str]) -> int:
    return len(store.compress(list(lines)))


def row(values: list[float], unit: str = "s") -> str:
    if not values:
        return "-"
    return f"median {statistics.median(values):.2f} {unit}, max {max(values):.2f} {unit}"


def bench(suite: str, envs: set[str], tasks: set[str], old: ModuleType, limit: float,
          full_new: bool) -> None:
    """Print one suite's figures per env (sums per task over its parts)."""
    per: dict[tuple[str, str], dict[str, float]] = {}
    for task_id, env, enc in claims(suite, envs, tasks):
        body = refute(enc.clauses, store.ENCODERS[env].solvers[0])
        start = time.process_time()
        trimmed = trim(enc.variables, enc.clauses, body)
        trim_s = time.process_time() - start
        figures = {
            "before": timed(old, enc, body, limit),
            "same": timed(drup, enc, body, limit) if full_new else 0.0,
            "trim": trim_s,
            "after": timed(drup, enc, trimmed, limit),
            "xz_before": xz(body), "xz_after": xz(trimmed),
            "lines_before": len(body), "lines_after": len(trimmed)}
        mine = per.setdefault((env, task_id), dict.fromkeys(figures, 0.0))
        for key, value in figures.items():
            mine[key] += value
        print(f"    {task_id}: " + ", ".join(f"{k} {v:.2f}" for k, v in figures.items()),
              flush=True)
    for env in sorted(envs):
        rows = [v for (e, _), v in per.items() if e == env]
        if not rows:
            continue

        def col(key: str) -> list[float]:
            return [r[key] for r in rows]  # noqa: B023 (used at once)

        print(f"  {suite} {env}: {len(rows)} tasks")
        print(f"    xz KiB before {row([b / 1024 for b in col('xz_before')], 'KiB')} "
              f"(sum {sum(col('xz_before')) / 1024:.1f}); after "
              f"{row([b / 1024 for b in col('xz_after')], 'KiB')} "
              f"(sum {sum(col('xz_after')) / 1024:.1f})")
        print(f"    lines before {row(col('lines_before'), '')}; after "
              f"{row(col('lines_after'), '')}")
        print(f"    check CPU before (checker of the base, solver proof) {row(col('before'))}; "
              f"after (this checker, trimmed proof) {row(col('after'))}; trim {row(col('trim'))}")
        if full_new:
            ratios = [b / s for b, s in zip(col("before"), col("same"), strict=True) if s > 0]
            print(f"    the checker alone (same solver proofs): this checker {row(col('same'))}, "
                  f"base / this per task {row(ratios, 'x')}, sums "
                  f"{sum(col('before')):.1f} / {sum(col('same')):.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", default=BASE, help="the commit whose checker is 'before'")
    parser.add_argument("--quick", action="store_true", help="odyssey-lite's repo tasks only")
    parser.add_argument("--suites", default="odyssey-lite,challenge")
    parser.add_argument("--envs", default="repo")
    parser.add_argument("--limit", type=float, default=900.0, help="seconds per check")
    parser.add_argument("--tasks", default="", help="only these task ids (comma-separated)")
    parser.add_argument("--no-full-new", action="store_true",
                        help="skip this checker on the untrimmed proofs")
    args = parser.parse_args()
    envs = {e for e in args.envs.split(",") if e}
    print("Proof checks, CPU seconds of one process (before: base checker on the solver's "
          "proof; after: this checker on the trimmed proof)")
    with tempfile.TemporaryDirectory() as tmp:
        old = old_checker(args.against, Path(tmp))
        for suite in ["odyssey-lite"] if args.quick else [s for s in args.suites.split(",")
                                                            if s]:
            bench(suite, envs, {t for t in args.tasks.split(",") if t}, old, args.limit,
                  not args.no_full_new)
    print("command: python " + " ".join(["benchmarks/bench_proof_check.py", *sys.argv[1:]]))


if __name__ == "__main__":
    main()
