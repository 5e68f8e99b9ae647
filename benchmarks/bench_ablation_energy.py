"""Energy v3 ablation: simple variants of the inductive dispatcher on Lite and Challenge tasks.

Each variant changes one thing of the v3 ``heuristic`` rung (:class:`EnergyChangePointPlanner`):
how and when it declares a pattern shift (v2's "k large misses in a row", the CUSUM's drift and
threshold, pooled or per-source evidence), its pessimism (sigmas the LP plans under), how many
lag pairs a period estimate needs, and how many days it estimates from. The table gives each
variant's success rate on the v3 Lite and Challenge tasks of the given seeds (built with the
Python API, planner-checked as ``build`` accepts them), with Wilson 95 % intervals; the rung is
the best variant, and Challenge must stay below Lite for every one.

Reproduce: ``nice -n 10 python benchmarks/bench_ablation_energy.py --seeds 7,11,12,13`` from the
repository root (``--tasks DIR`` reads ``energy-<suite>-<seed>.jsonl`` task files from DIR and
writes the ones it builds there; ``--variants a,b`` runs a subset, ``--variants ''`` none;
``--jobs N`` plays the variant x suite x seed cells in N processes; ``--ladder`` also prints
each seed's build check (the targets ``build`` refuses a suite on) and the certified ladder
pooled over the seeds, the table ``bench_validity.py --seeds`` prints, from the same tasks).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from arena_gen.core import registry
from arena_gen.core.calibration import calibration_for, rung_rates, suite_problems, wilson
from arena_gen.core.episode import Episode
from arena_gen.core.task import Task
from arena_gen.envs.energy.agents.changepoint import (
    EnergyChangePointPlanner,
    EnergyPeriodGreedy,
    EnergyPersistencePlanner,
    variant,
)
from arena_gen.envs.energy.agents.planner import EnergyInductivePlanner
from arena_gen.suite.build import build_suite

CP = EnergyChangePointPlanner
#: name -> (agent factory, what it changes).
VARIANTS: dict[str, tuple[Callable[[], Any], str]] = {
    "rung": (CP, "CUSUM pooled over wind and solar, drift 3, threshold 6, z 2.5 (the v3 rung)"),
    "v2-3-misses": (EnergyInductivePlanner, "v2's rule: 3 large misses in a row (the v2 rung)"),
    "v2-2-misses": (variant(EnergyInductivePlanner, shift_misses=2), "2 large misses in a row"),
    "v2-1-miss": (variant(EnergyInductivePlanner, shift_misses=1), "1 large miss (one line)"),
    "per-source": (variant(CP, pooled=False), "CUSUM per renewable, not pooled"),
    "threshold-3": (variant(CP, threshold=3.0), "CUSUM threshold 3 (quicker, more alarms)"),
    "threshold-12": (variant(CP, threshold=12.0), "CUSUM threshold 12 (slower)"),
    "drift-2": (variant(CP, drift=2.0), "CUSUM drift 2"),
    "drift-5": (variant(CP, drift=5.0), "CUSUM drift 5"),
    "z-2": (variant(CP, z=2.0), "pessimism 2 sigma (v2's, the rung before the ablation)"),
    "z-3": (variant(CP, z=3.0), "pessimism 3 sigma"),
    "pairs-4": (variant(CP, min_pairs=4), "a period estimate from 4 lag pairs (v2: 8)"),
    "memory-90": (variant(CP, memory=90), "periods estimated from the last 90 days (150)"),
    "period_greedy": (EnergyPeriodGreedy, "v3 period_greedy rung (v1 heuristic, periods <= 70)"),
    "persistence": (EnergyPersistencePlanner, "v3 model-free rung (yesterday's efficiencies)"),
}


def play(task: Task, agent: Any) -> bool:
    """One inductive attempt as the ladder plays it (run seed 0, attempt 0)."""
    episode = Episode(task, agent, mode="inductive", attempt=0, run_seed=0)
    while not episode.over:
        episode.step(agent.act(episode.obs), 0.0)
    return bool(episode.env is not None and episode.env.success)


def tasks_of(suite: str, seed: int, folder: Path | None) -> list[Task]:
    """The v3 energy tasks of one suite and seed (read from ``folder`` when there)."""
    path = folder / f"energy-{suite}-{seed}.jsonl" if folder else None
    if path is not None and path.exists():
        return [Task.from_dict(json.loads(line)) for line in path.read_text().splitlines()]
    built = build_suite(suite, seed, ["energy"], versions={"energy": 3}, jobs=1)
    tasks = built.tasks["energy"]
    if path is not None:
        path.write_text("".join(json.dumps(t.to_dict()) + "\n" for t in tasks))
    return tasks


def _cell(job: tuple[str, list[Task]]) -> int:
    """Successes of one variant over one pool of tasks (one worker's job)."""
    name, tasks = job
    return sum(play(t, VARIANTS[name][0]()) for t in tasks)


def cell(wins: int, n: int) -> str:
    lo, hi = wilson(wins, n)
    return f"{wins / n:.0%} [{lo:.0%}-{hi:.0%}] ({wins}/{n})" if n else "-"


def ladder(pools: dict[tuple[str, int], list[Task]], suites: list[str], seeds: list[int]
           ) -> None:
    """Each seed's build check and the certified ladder pooled over seeds, per suite."""
    spec = registry.get("energy", 3)
    print("| suite | rung | kind | tasks | attempts | success | 95 % CI |")
    print("|---|---|---|---|---|---|---|")
    for suite in suites:
        cal = calibration_for(spec, suite)
        for seed in seeds:
            rates = rung_rates([t.certificate.facts["ladder"] for t in pools[(suite, seed)]])
            missed = suite_problems(cal, rates) if cal is not None else []
            print(f"<!-- {suite} seed {seed}: heuristic {rates['heuristic']['rate']:.0%}, "
                  f"build check: {'; '.join(missed) or 'ok'} -->")
        pooled = rung_rates([t.certificate.facts["ladder"] for seed in seeds
                             for t in pools[(suite, seed)]])
        for rung, row in pooled.items():
            lo, hi = row["ci95"]
            print(f"| {suite} | {rung} | {row.get('kind', '-')} | {row['tasks']} | "
                  f"{row['attempts']} | {row['rate']:.1%} | {lo:.0%}-{hi:.0%} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", default="7,11,12,13")
    ap.add_argument("--suites", default="lite,challenge")
    ap.add_argument("--tasks", type=Path, default=None, help="folder of task files")
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--jobs", type=int, default=1, help="worker processes")
    ap.add_argument("--ladder", action="store_true", help="print build checks, pooled ladder")
    args = ap.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    suites = args.suites.split(",")
    names = [n for n in args.variants.split(",") if n]
    if args.tasks is not None:
        args.tasks.mkdir(parents=True, exist_ok=True)
    pools = {(s, seed): tasks_of(s, seed, args.tasks) for s in suites for seed in seeds}
    if args.ladder:
        ladder(pools, suites, seeds)
    keys = [(name, suite, seed) for name in names for suite in suites for seed in seeds]
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        done = pool.map(_cell, [(name, pools[(suite, seed)]) for name, suite, seed in keys])
        wins = dict(zip(keys, done, strict=True))
    if not names:
        return
    print("| variant | " + " | ".join(suites) + " | what it changes |")
    print("|---|" + "---|" * len(suites) + "---|")
    for name in names:
        row = [cell(sum(wins[(name, s, seed)] for seed in seeds),
                    sum(len(pools[(s, seed)]) for seed in seeds)) for s in suites]
        print(f"| {name} | " + " | ".join(row) + f" | {VARIANTS[name][1]} |", flush=True)


if __name__ == "__main__":
    main()
