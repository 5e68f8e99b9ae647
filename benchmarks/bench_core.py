"""Core figures: suite build and verify throughput for every registered env (Lite preset).

Reproduce: ``python benchmarks/bench_core.py [--quick]`` from the repository root.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from arena_gen.core import registry
from arena_gen.core.suite_io import write_suite
from arena_gen.suite.build import build_suite
from arena_gen.suite.verify import verify_suite


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="5 tasks per env instead of all")
    parser.add_argument("--suite", default="lite", choices=["lite", "challenge"])
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    print(f"command: python benchmarks/bench_core.py --suite {args.suite} --seed {args.seed}"
          + (" --quick" if args.quick else ""))
    print(f"{'env':<10}{'tasks':>6}{'build s':>10}{'tasks/s':>10}{'verify s':>10}")
    for env in registry.names():
        counts = {env: 5} if args.quick else None
        start = time.perf_counter()
        built = build_suite(args.suite, args.seed, [env], counts=counts)
        build_s = time.perf_counter() - start
        with tempfile.TemporaryDirectory() as tmp:
            out = write_suite(Path(tmp) / "s", built.manifest, built.tasks)
            start = time.perf_counter()
            report = verify_suite(out)
            verify_s = time.perf_counter() - start
        n = len(built.tasks[env])
        assert report.ok, [c.problem for c in report.checks if not c.ok]
        print(f"{env:<10}{n:>6}{build_s:>10.2f}{n / build_s:>10.1f}{verify_s:>10.2f}")


if __name__ == "__main__":
    main()
