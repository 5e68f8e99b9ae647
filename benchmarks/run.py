"""Run every benchmark script (or the ones named) and print their figures.

Reproduce: ``python benchmarks/run.py [--quick] [NAME ...]`` from the repository root.
"""

from __future__ import annotations

import argparse
import platform
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("names", nargs="*", help="benchmark names, e.g. core lights")
    parser.add_argument("--quick", action="store_true", help="pass --quick to each script")
    args = parser.parse_args()
    scripts = sorted(HERE.glob("bench_*.py"))
    if args.names:
        scripts = [s for s in scripts if s.stem.removeprefix("bench_") in args.names]
    print(f"# python {platform.python_version()} on {platform.machine()}, "
          f"{len(scripts)} benchmark(s)")
    failed = 0
    for script in scripts:
        cmd = [sys.executable, str(script.relative_to(HERE.parent))]
        if args.quick:
            cmd.append("--quick")
        print(f"\n## {script.stem}  (reproduce: {' '.join(['python', *cmd[1:]])})", flush=True)
        start = time.perf_counter()
        rc = subprocess.call(cmd, cwd=HERE.parent)
        print(f"(exit {rc}, {time.perf_counter() - start:.1f} s)")
        failed += rc != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
