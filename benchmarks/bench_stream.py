"""Training-stream throughput: certified tasks per second per env and level.

    python benchmarks/bench_stream.py [--count 50] [--jobs 2] [--seed 7] [--env lights,repo]
        [--level lite,challenge] [--ladder] [--quick]

For each env and level, draws ``--count`` tasks with ``arena_gen.train.stream`` (the same
sampler, verifier, acceptance and witness replay as a build, plus the released-world screen)
and prints wall seconds, tasks/s, the mean seconds per task inside the workers, and the
rejections by kind (``--quick``: 5 Lite tasks per env). The one-off start-up (reading the
released suites and fingerprinting their worlds, once per process and env) is timed on its own
line and kept out of tasks/s.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=50)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--env", default="lights,trading,energy,repo")
    parser.add_argument("--level", default="lite,challenge")
    parser.add_argument("--ladder", action="store_true")
    parser.add_argument("--quick", action="store_true", help="5 Lite tasks per env")
    args = parser.parse_args()
    if args.quick:
        args.count, args.level = 5, "lite"

    from arena_gen.train.released import released_fingerprints
    from arena_gen.train.stream import stream

    print(f"python benchmarks/bench_stream.py --count {args.count} --jobs {args.jobs} "
          f"--seed {args.seed} --env {args.env} --level {args.level}"
          + (" --ladder" if args.ladder else ""))
    print(f"{platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.1f}")
    rows = []
    for env in args.env.split(","):
        start = time.perf_counter()
        excluded = released_fingerprints(env)
        print(f"{env}: released fingerprints ({len(excluded)}) in "
              f"{time.perf_counter() - start:.2f} s", flush=True)
        for level in args.level.split(","):
            tasks = stream(env, level, args.seed, count=args.count, jobs=args.jobs,
                           ladder=args.ladder)
            start = time.perf_counter()
            drawn = list(tasks.draws())
            wall = time.perf_counter() - start
            inside = sum(d.seconds for d in drawn) / len(drawn)
            rej = ", ".join(f"{k} {v}" for k, v in sorted(tasks.rejections.items())) or "-"
            rows.append((env, level, len(drawn), wall, len(drawn) / wall, inside, rej))
            print(f"  {level}: {len(drawn)} tasks in {wall:.1f} s", flush=True)
    print(f"\n{'env':8} {'level':10} {'tasks':>5} {'wall s':>8} {'tasks/s':>8} "
          f"{'s/task/core':>11}  rejections")
    for env, level, n, wall, rate, inside, rej in rows:
        print(f"{env:8} {level:10} {n:5d} {wall:8.1f} {rate:8.2f} {inside:11.3f}  {rej}")
    print(f"load at the end {os.getloadavg()[0]:.1f}", file=sys.stderr)


if __name__ == "__main__":
    main()
