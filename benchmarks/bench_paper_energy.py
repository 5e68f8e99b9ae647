"""Paper-scale Challenge (preview), energy: the build time, the ladder and the knowledge curves
of energy v6's Challenge (1,000 days, 4-7 hidden pattern shifts) or v7's and v8's (the same on
2-3 wind and 2-3 solar sites, each with its own shifts), per seed.

    python benchmarks/bench_paper_energy.py [--seeds 7 8 9] [--jobs 2] [--v5-curves]
    python benchmarks/bench_paper_energy.py --version 7 [--seeds 7 8 9] [--jobs 2]
    python benchmarks/bench_paper_energy.py --version 8 --seeds 11 12 13 14 15 16 --jobs 2

For each seed, builds the energy half of ``build --suite challenge`` at ``--version`` (a
preview: ``versions={"energy": 6}`` by default, no build cache, so every task is sampled, verified,
witness-replayed, resistance-checked and laddered) and prints the wall and CPU time, the
attempts and rejections, each rung's tasks solved, the ladder targets the manifest records as
missed, and each rung's knowledge curve (probe accuracy at 25 / 50 / 75 / 100 % of the budget,
pooled over the seed's tasks and attempts, from the certificates). With ``--v5-curves`` the
change-point learner is played again on the same tasks labelled version 5, whose questions are
drawn from the whole horizon (regimes not yet begun included), for its curve there. The CPU
seconds (this process and its finished workers) do not depend on the shared load: divided by
the jobs, they are the wall time on idle cores.
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from typing import Any

from bench_validity import knowledge_curves
from paper_scale import cpu_seconds

from arena_gen.core import registry
from arena_gen.core.calibration import wilson
from arena_gen.suite import ladder
from arena_gen.suite.build import build_suite


def _shifts(params: dict[str, Any]) -> int:
    """A task's shifts: v6 lists its days, v7 lists them per site too (summed over sites)."""
    if "site_shifts" in params:
        return sum(len(d) for d in params["site_shifts"].values())
    return len(params.get("shift_days") or [])


def show(acc: list[tuple[int, int]]) -> str:
    """A curve as percentages."""
    return " ".join(f"{100 * c / n:5.1f}" for c, n in acc)


def main() -> None:
    """Build each seed's Challenge at the version asked and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[7])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--v5-curves", action="store_true")
    parser.add_argument("--version", type=int, default=6)
    args = parser.parse_args()
    pooled: dict[str, list[int]] = {}
    ladders: list[dict[str, Any]] = []  # the certificates' (and the v5 replays') ladders
    for seed in args.seeds:
        start, cpu = time.perf_counter(), cpu_seconds()
        result = build_suite("challenge", seed, ["energy"], jobs=args.jobs,
                             versions={"energy": args.version})
        wall, cpu = time.perf_counter() - start, cpu_seconds() - cpu
        tasks = result.tasks["energy"]
        facts = result.manifest["build"]["energy"]
        cal = result.manifest.get("calibration", {}).get("energy", {})
        print(f"seed {seed}: {len(tasks)} tasks in {wall:.0f} s wall (--jobs {args.jobs}), "
              f"{cpu:.0f} s CPU ({cpu / args.jobs:.0f} s on {args.jobs} idle cores), "
              f"{facts['attempts']} attempts, rejections {facts['rejections']}, "
              f"missed targets {cal.get('missed')}")
        shifts = sorted(_shifts(t.params) for t in tasks)
        print(f"  shifts per task {shifts}")
        ladders += [t.certificate.facts["ladder"] for t in tasks]
        for rung in tasks[0].certificate.facts["ladder"]:
            rows = [t.certificate.facts["ladder"][rung] for t in tasks]
            wins = [int(row["successes"] > 0) for row in rows]
            pooled.setdefault(rung, []).extend(wins)
            print(f"  {rung:15s} {sum(wins)}/{len(wins)}")
        if args.v5_curves:
            spec = registry.get("energy", 5)
            v5_cal = spec.load("calibration")["challenge"]
            for task in tasks:
                v5 = dataclasses.replace(task, env_version=5)
                row = ladder.climb(v5, v5_cal, only=["heuristic"])["heuristic"]
                ladders.append({"heuristic on v5 probes": row})
    print(f"pooled over seeds {args.seeds} (tasks solved, Wilson 95 %):")
    for rung, wins in pooled.items():
        lo, hi = wilson(sum(wins), len(wins))
        print(f"  {rung:15s} {sum(wins)}/{len(wins)} = {sum(wins) / len(wins):.0%} "
              f"[{lo:.0%}-{hi:.0%}]")
    print("knowledge curves (accuracy % at 25/50/75/100 % of the budget, pooled):")
    for rung, acc in knowledge_curves(ladders).items():
        print(f"  {rung:24s} {show(acc)}")


if __name__ == "__main__":
    main()
