"""Start-up figures (#17): ``arena-gen --help``, ``import arena_gen.cli``, ``arena-gen show ID``,
whole-suite reads (validation + hashing) of the released suites, the read of the one task a
``run --tasks ID`` plays, and that whole ``run`` (oracle, one 120-turn trading episode, so the
figure is almost all start-up, #24); medians of a few runs.

Reproduce: ``python benchmarks/bench_startup.py [--quick]`` from the repository root.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator

CLI = "import sys; from arena_gen.cli import main; sys.argv[0] = 'arena-gen'; main()"
READ = ("import time; from arena_gen.core.suite_io import read_suite; "
        "t = time.perf_counter(); read_suite({name!r}{only}); print(time.perf_counter() - t)")
#: The task ``run --tasks`` plays in the run figures (Lite's first trading task).
ONE = "trading-lite-7-0000"


def wall(args: list[str], runs: int, numbers: Iterator[int] | None = None) -> float:
    """Median wall-clock seconds of a fresh interpreter running ``args`` (``{n}`` in an
    argument takes the next of ``numbers``: a fresh ``--out`` per run)."""
    times = []
    for _ in range(runs):
        n = next(numbers) if numbers is not None else 0
        start = time.perf_counter()
        subprocess.run([sys.executable, *[a.replace("{n}", str(n)) for a in args]], check=True,
                       capture_output=True)
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
    reads = [(f"read_suite({name!r}) in process", name, "") for name in ("lite", "challenge")]
    reads.append((f"read_suite('lite', task_ids=[{ONE!r}])", "lite", f", task_ids=[{ONE!r}]"))
    for what, name, only in reads:
        out = [float(subprocess.run([sys.executable, "-c", READ.format(name=name, only=only)],
                                    check=True, capture_output=True, text=True).stdout)
               for _ in range(max(1, runs // 2))]
        rows.append((what, statistics.median(out)))
    with tempfile.TemporaryDirectory() as tmp:
        outs = iter(range(runs))
        rows.append((f"arena-gen run --agent oracle --tasks {ONE}", wall(
            ["-c", CLI, "run", "--suite", "lite", "--env", "trading", "--tasks", ONE, "--agent",
             "oracle", "--display", "none", "--out", f"{tmp}/run-{{n}}"], runs, outs)))
    for what, seconds in rows:
        print(f"{what:<48}{seconds:>8.3f} s")


if __name__ == "__main__":
    main()
