"""Pool ``bench_levels.py --json`` runs: each level's heuristic rate with its Wilson 95 % interval.

    python benchmarks/pool_levels.py RUN.repo.json [RUN2.repo.json ...] [--rung heuristic]

Rows of every file are pooled by level (give the runs of several seeds, or of one seed's
``--start`` extensions; a file made with ``--set`` stands for the level with those knobs).
For each level, easiest first, it prints the tasks the rung solved per file and pooled, the
pooled rate with its Wilson 95 % interval, and the step from the level before: the difference
of the two rates with Newcombe's 95 % interval for it (the step is beyond noise when that
interval excludes 0).
"""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

Z = 1.96  # two-sided 95 %


def wilson(solved: int, tasks: int) -> tuple[float, float]:
    """Wilson score interval of a rate: sound near 0 and 1, where the levels' rates sit."""
    rate, z2 = solved / tasks, Z * Z
    centre = (rate + z2 / (2 * tasks)) / (1 + z2 / tasks)
    half = Z * math.sqrt(rate * (1 - rate) / tasks + z2 / (4 * tasks * tasks)) / (1 + z2 / tasks)
    return max(0.0, centre - half), min(1.0, centre + half)  # no -0.0 from rounding


def newcombe(a: tuple[int, int], b: tuple[int, int]) -> tuple[float, float]:
    """Interval of rate(a) - rate(b) from the two Wilson intervals (Newcombe 1998, method 10)."""
    pa, pb = a[0] / a[1], b[0] / b[1]
    (la, ua), (lb, ub) = wilson(*a), wilson(*b)
    diff = pa - pb
    return (diff - math.sqrt((pa - la) ** 2 + (ub - pb) ** 2),
            diff + math.sqrt((ua - pa) ** 2 + (pb - lb) ** 2))


def pooled(files: list[str], rung: str) -> dict[str, list[tuple[int, int]]]:
    """Per level, the (solved, tasks) of each file that has it."""
    out: dict[str, list[tuple[int, int]]] = {}
    for name in files:
        with open(name, encoding="utf-8") as handle:
            rows: list[dict[str, Any]] = json.load(handle)
        for level in sorted({r["level"] for r in rows}):
            mine = [r for r in rows if r["level"] == level]
            out.setdefault(level, []).append(
                (sum(r["rates"][rung] > 0 for r in mine), len(mine)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--rung", default="heuristic")
    args = parser.parse_args()
    previous: tuple[int, int] | None = None
    for level, parts in sorted(pooled(args.files, args.rung).items()):
        total = (sum(p[0] for p in parts), sum(p[1] for p in parts))
        low, high = wilson(*total)
        step = ""
        if previous is not None:
            a, b = newcombe(previous, total)
            diff = 100 * (previous[0] / previous[1] - total[0] / total[1])
            step = f"  step {diff:5.1f} [{100 * a:5.1f}, {100 * b:5.1f}]"
        each = " ".join(f"{s}/{n}" for s, n in parts)
        print(f"{level:4} {each:>24}  {total[0]}/{total[1]} = {100 * total[0] / total[1]:5.1f} % "
              f"[{100 * low:4.1f}, {100 * high:4.1f}]{step}")
        previous = total


if __name__ == "__main__":
    main()
