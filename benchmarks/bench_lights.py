"""Lights verifier speed: BFS and SAT seconds per verified task by N, SAT at N = 40, presets.

Run: python benchmarks/bench_lights.py [--quick] [--sat-limit SECONDS]
Worlds come from the Challenge sampler with N pinned and a fixed seed per N, so figures are
reproducible up to machine speed (the printed timings are wall-clock on this machine).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from arena_gen.envs.lights.bfs import bfs
from arena_gen.envs.lights.sampler import PRESETS, sample
from arena_gen.envs.lights.sat import solve
from arena_gen.suite.build import generate_task

SEED = 2026


def world(n: int, index: int = 0) -> dict:
    """The benchmark world of size n (Challenge knobs, N pinned)."""
    config = PRESETS["challenge"].replace(n_values=(n,), n_weights=(1,))
    return sample(config, np.random.SeedSequence([SEED, n, index])).world


def bench_bfs(sizes: range) -> None:
    print("BFS: seconds per verified task by N")
    for n in sizes:
        w = world(n)
        start = time.perf_counter()
        result = bfs(w, explore_all=False)
        print(f"  N={n:2d}  min_steps={result.min_steps:3d}  {time.perf_counter() - start:7.2f} s")


def bench_sat(limit: float, max_n: int, bfs_prefix: int, label: str) -> None:
    print(f"SAT ({label}): exact minimum within {limit:.0f} s, by N")
    largest = None
    for n in range(8, max_n + 1, 2):
        w = world(n)
        start = time.perf_counter()
        result = solve(w, max_conflicts=None, time_limit=limit, bfs_prefix=bfs_prefix,
                       plan_time=limit)
        seconds = time.perf_counter() - start
        status = (f"min_steps={result.min_steps}" if result.exact
                  else f"bounds [{result.lower}, {result.upper}]")
        print(f"  N={n:2d}  {status:22s} {seconds:7.2f} s  calls={result.solver_calls} "
              f"conflicts={result.conflicts} lower by {result.lower_method}")
        if not result.exact:
            break
        largest = n
    print(f"  largest N proved exactly within {limit:.0f} s ({label}): {largest}")


def bench_plan40(limit: float) -> None:
    w = world(40)
    start = time.perf_counter()
    result = solve(w, max_conflicts=None, time_limit=limit / 2, plan_time=limit / 2)
    seconds = time.perf_counter() - start
    ok = result.upper is not None and seconds < limit
    print(f"SAT plan for N=40: {'found' if ok else 'NOT found'} in {seconds:.2f} s, bounds "
          f"[{result.lower}, {result.upper}] (lower by {result.lower_method})")


def bench_preset(suite: str) -> None:
    count = PRESETS[suite].count
    start = time.perf_counter()
    attempts = 0
    for i in range(count):
        attempts += generate_task("lights", suite, 7, i).attempts
    seconds = time.perf_counter() - start
    print(f"{suite}: {count} tasks built+verified+replayed in {seconds:.2f} s "
          f"({count / seconds:.2f} tasks/s, {attempts} candidates)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="BFS to N=22, SAT limit 10 s.")
    parser.add_argument("--sat-limit", type=float, default=None, help="Seconds per SAT task.")
    args = parser.parse_args(argv)
    limit = args.sat_limit or (10.0 if args.quick else 60.0)
    bench_preset("lite")
    bench_preset("challenge")
    bench_bfs(range(8, (22 if args.quick else 26) + 1))
    bench_sat(limit, 40, 0, "pure SAT, no BFS prefix")
    bench_sat(limit, 40, 18, "SAT with exact BFS on prefixes <= 18")
    bench_plan40(limit)
    print("reproduce: python benchmarks/bench_lights.py"
          + (" --quick" if args.quick else "")
          + (f" --sat-limit {args.sat_limit}" if args.sat_limit else ""))


if __name__ == "__main__":
    sys.exit(main())
