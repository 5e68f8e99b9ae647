"""Start-up figures (#17): ``arena-gen --help``, ``import arena_gen.cli``, ``arena-gen show ID``
and whole-suite reads (validation + hashing) of the released suites; medians of a few runs.

Reproduce: ``python benchmarks/bench_startup.py [--quick]`` from the repository root.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

CLI = "import sys; from arena_gen.cli import main; sys.argv[0] = 'arena-gen'; main()"
READ = ("import time; from arena_gen.core.suite_io import read_suite; "
        "t = time.perf_counter(); read_suite({name!r}); print(time.perf_counter() - t)")


def wall(args: list[str], runs: int) -> float:
    """Median wall-clock seconds of a fresh interpreter running ``args``."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, *args], check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="one run each instead of five")
    args = parser.parse_args()
    runs = 1 if args.quick else 5
    print("command: python benchmarks/bench_startup.py" + (" --quick" if args.quick else ""))
    rows = [
        ("arena-gen --help", wall(["-c", CLI, "--help"], runs)),
        ("import arena_gen.cli", wall(["-c", "import arena_gen.cli"], runs)),
        ("python -c pass (interpreter alone)", wall(["-c", "pass"], runs)),
        ("arena-gen show lights-lite-7-0003",
         wall(["-c", CLI, "show", "lights-lite-7-0003"], runs)),
        ("arena-gen show repo-challenge-7-0009 --reveal",
         wall(["-c", CLI, "show", "repo-challenge-7-0009", "--reveal"], runs)),
    ]
    for name in ("lite", "challenge"):
        out = [float(subprocess.run([sys.executable, "-c", READ.format(name=name)], check=True,
                                    capture_output=True, text=True).stdout)
               for _ in range(max(1, runs // 2))]
        rows.append((f"read_suite({name!r}) in process", statistics.median(out)))
    for what, seconds in rows:
        print(f"{what:<48}{seconds:>8.3f} s")


if __name__ == "__main__":
    main()
