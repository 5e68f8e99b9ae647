"""Repo verifier speed: seconds per verified world by package count, and the Lite suite build.

Run: python benchmarks/bench_repo.py [--sizes 6,9,12,16,20] [--per-size 3]
     [--lite] (the --lite flag also times building and verifying the 30-task Lite preset)
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

from arena_gen.core.task import Draft
from arena_gen.envs.repo.sampler_v1 import PRESETS, sample
from arena_gen.envs.repo.verify_v1 import verify


def bench_size(n: int, per_size: int) -> dict[str, float]:
    """Verify ``per_size`` sampled worlds with exactly ``n`` packages."""
    base = PRESETS["challenge" if n >= 20 else "lite"]
    config = base.replace(n_min=n, n_max=n)
    seconds, steps, exact = [], [], 0
    for i in range(per_size):
        draft: Draft = sample(config, np.random.SeedSequence([2026, n, i]))
        start = time.perf_counter()
        cert = verify(draft)
        seconds.append(time.perf_counter() - start)
        steps.append(cert.min_steps or 0)
        exact += bool(cert.facts.get("exact"))
    return {"n": n, "mean_s": statistics.mean(seconds), "max_s": max(seconds),
            "mean_min_steps": statistics.mean(steps), "exact": exact, "count": per_size}


def bench_lite() -> tuple[float, int]:
    """Build and re-verify the Lite preset (30 tasks), single process."""
    from arena_gen.suite.build import build_suite

    start = time.perf_counter()
    result = build_suite("lite", 7, ["repo"])
    tasks = result.tasks["repo"]
    for task in tasks:
        verify(task)
    return time.perf_counter() - start, len(tasks)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="6,9,12,16,20")
    parser.add_argument("--per-size", type=int, default=3)
    parser.add_argument("--lite", action="store_true")
    args = parser.parse_args(argv)
    print("command: python benchmarks/bench_repo.py " + " ".join(
        sys.argv[1:] if argv is None else argv))
    print(f"{'packages':>8} {'mean s':>8} {'max s':>8} {'min steps':>9} {'exact':>7}")
    for n in (int(x) for x in args.sizes.split(",")):
        row = bench_size(n, args.per_size)
        print(f"{n:>8} {row['mean_s']:>8.2f} {row['max_s']:>8.2f} "
              f"{row['mean_min_steps']:>9.1f} {row['exact']:>3}/{row['count']:<3}", flush=True)
    if args.lite:
        seconds, count = bench_lite()
        print(f"lite preset: {count} tasks built + re-verified in {seconds:.1f} s "
              f"({seconds / count:.2f} s per task)")


if __name__ == "__main__":
    main()
