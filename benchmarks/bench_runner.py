"""Runner figures: scripted-agent throughput (turns/s on one core) and success rates per env.

Reproduce: ``python benchmarks/bench_runner.py [--quick] [--suite DIR]`` from the repository
root (default: build the Lite suite with seed 7 in a temporary folder).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from arena_gen.core import registry
from arena_gen.core.suite_io import write_suite
from arena_gen.runner.run import RunConfig, run_suite, summarize
from arena_gen.suite.build import build_suite


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="5 tasks per env")
    parser.add_argument("--suite", default=None, help="suite folder (default: build lite 7)")
    parser.add_argument("--attempts", type=int, default=1)
    args = parser.parse_args()
    print("command: python benchmarks/bench_runner.py"
          + (f" --suite {args.suite}" if args.suite else "") + (" --quick" if args.quick else "")
          + (f" --attempts {args.attempts}" if args.attempts != 1 else ""))
    with tempfile.TemporaryDirectory() as tmp:
        if args.suite:
            suite_path = Path(args.suite)
        else:
            counts = {env: 5 for env in registry.names()} if args.quick else None
            built = build_suite("lite", 7, counts=counts)
            suite_path = write_suite(Path(tmp) / "suite", built.manifest, built.tasks)
        print(f"{'env':<9}{'agent':<11}{'episodes':>9}{'success %':>11}{'turns':>9}"
              f"{'turns/s':>10}")
        for agent in ("oracle", "random", "heuristic"):
            for env in registry.names():
                if agent == "heuristic" and registry.get(env).heuristic is None:
                    print(f"{env:<9}{agent:<11}{'(no heuristic registered)':>39}")
                    continue
                start = time.perf_counter()
                rundir = run_suite(RunConfig(suite=str(suite_path), agent=agent, envs=[env],
                                             attempts=args.attempts,
                                             out=str(Path(tmp) / f"{agent}-{env}")))
                seconds = time.perf_counter() - start
                c = summarize(rundir.records())[env]
                print(f"{env:<9}{agent:<11}{c['episodes']:>9}"
                      f"{100 * c['success'] / c['episodes']:>11.1f}{c['turns']:>9}"
                      f"{c['turns'] / seconds:>10.0f}", flush=True)


if __name__ == "__main__":
    main()
