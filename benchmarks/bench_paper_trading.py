"""Paper-scale Challenge (preview), trading: the build time and the ladder of trading v6's
Challenge (1,000 days, 2-4 hidden regimes), per seed.

    python benchmarks/bench_paper_trading.py [--seeds 7 8 9] [--jobs 2]

For each seed, builds the trading half of ``build --suite challenge`` at version 6 (the
preview: ``versions={"trading": 6}``, no build cache, so every task is sampled, verified,
witness-replayed, resistance-checked and laddered), and prints the wall time, the attempts and
rejections, each rung's success rate over the seed's tasks, the ladder targets the manifest
records as missed (none: the suite is calibrated), the largest random bound, the planner's
knowledge and the ridge-detect rung's rate (the rung that detects the map's changes). Run it
from the repository root; the machine's other load enters the wall time, so report the
command's figures with the cores it had. The CPU seconds (this process and its finished
workers) do not depend on the shared load: divided by the jobs, they are the wall time on idle
cores.
"""

from __future__ import annotations

import argparse
import statistics
import time

from paper_scale import cpu_seconds

from arena_gen.core.calibration import wilson
from arena_gen.suite.build import build_suite


def main() -> None:
    """Build each seed's v6 Challenge and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[7])
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    pooled: dict[str, list[int]] = {}
    for seed in args.seeds:
        start, cpu = time.perf_counter(), cpu_seconds()
        result = build_suite("challenge", seed, ["trading"], jobs=args.jobs,
                             versions={"trading": 6})
        wall, cpu = time.perf_counter() - start, cpu_seconds() - cpu
        tasks = result.tasks["trading"]
        facts = result.manifest["build"]["trading"]
        cal = result.manifest.get("calibration", {}).get("trading", {})
        print(f"seed {seed}: {len(tasks)} tasks in {wall:.0f} s wall (--jobs {args.jobs}), "
              f"{cpu:.0f} s CPU (this process and its workers: {cpu / args.jobs:.0f} s on "
              f"{args.jobs} idle cores), "
              f"{facts['attempts']} attempts, rejections {facts['rejections']}, "
              f"missed targets {cal.get('missed')}")
        ladders = [t.certificate.facts["ladder"] for t in tasks]
        for rung in ladders[0]:
            wins = [int(lad[rung]["successes"] > 0) for lad in ladders]
            pooled.setdefault(rung, []).extend(wins)
            print(f"  {rung:15s} {sum(wins)}/{len(wins)}")
        bounds = [t.certificate.facts["resistance"]["random"]["bound"] for t in tasks]
        knowledge = [t.certificate.facts["planner_knowledge"] for t in tasks]
        regimes = [len(t.certificate.facts.get("regime_days", [0])) for t in tasks]
        print(f"  random bound max {max(bounds):.4f}; planner knowledge min {min(knowledge):.4f}"
              f"; regimes per task {sorted(regimes)}; median task "
              f"{statistics.median(g.seconds for g in result.generated['trading']):.1f} s "
              f"wall in its worker")
    if len(args.seeds) > 1:
        print(f"pooled over seeds {args.seeds} (Wilson 95 %):")
        for rung, wins in pooled.items():
            lo, hi = wilson(sum(wins), len(wins))
            print(f"  {rung:15s} {sum(wins)}/{len(wins)} = {sum(wins) / len(wins):.0%} "
                  f"[{lo:.0%}-{hi:.0%}]")


if __name__ == "__main__":
    main()
