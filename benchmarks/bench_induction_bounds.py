"""Lights Lite: induction bounds per released task (issue 39), per reference, and how tight.

Each reference gets an interval of its own (``docs/induction.md``, certified bounds):

- the **expected** cost E* (no horizon): lower end the mean over H of the exact expected cost
  of each world's cell (its accepted relabellings by a fixed group of ``--swaps`` label swaps:
  a learner told the cell pays no more than one that is not), at least T = the class's mean
  with-rules minimum; upper end a learner's mean steps (the best learner pays at most what
  this one does); all estimated over the same sampled accepted worlds of the N's class, each
  with its 95 % interval;
- the **worst-case** cost W* (within the budget): lower end the adversary's (certified for every
  agent: the exact worst case of a pool of accepted worlds of the task's class,
  ``arena_gen.suite.induction_bounds``); no learner's worst case is proven at these sizes, so its
  upper end is open (the learner's worst over the sample is printed, as an estimate only).

Per task it prints the with-rules minimum, both intervals, E*'s width / lower, methods and
seconds; then the share of tasks whose E* width is at most 50 % of its lower end (the issue's
target: 80 %). A task's class depends only on its N and budget, so each N's sample and learner
runs are shared by its tasks (their seconds are printed once, per N); each task's pool and
adversary are its own. Every search is bounded (``--seconds``); a task whose search stops keeps
the pool's largest with-rules minimum as its W* lower end and says so.

    python benchmarks/bench_induction_bounds.py                      # all 30 tasks
    python benchmarks/bench_induction_bounds.py --worlds 20 --tasks 16 0
    python benchmarks/bench_induction_bounds.py --worlds 20 --tasks 16 0 --agent prior_aware
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena_gen.agents.registry import make_agent  # noqa: E402
from arena_gen.core.induction import InductionLimit  # noqa: E402
from arena_gen.core.suite_io import read_suite  # noqa: E402
from arena_gen.envs.lights.agents.particles import LightsParticleAgent  # noqa: E402
from arena_gen.envs.lights.bfs import bfs  # noqa: E402
from arena_gen.suite.induction_bounds import (  # noqa: E402
    CELL_SWAPS,
    Estimate,
    adversary_for,
    cell,
    class_sample,
    estimate,
    expected_cost,
    learner_steps,
    pool_for,
)

ROOT = Path(__file__).resolve().parents[1]


def learner(name: str) -> Any:
    """A fresh learner: a registered agent, or the particle planner (offered by no name)."""
    if name == "prior_particles":
        return LightsParticleAgent()
    return make_agent(name, "lights", version=4)


def main() -> None:
    """Print the per-task table and the share of tight intervals."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--worlds", type=int, default=30, help="sampled worlds of each N's class")
    ap.add_argument("--relabel", type=int, default=15, help="relabellings per pool base world")
    ap.add_argument("--hardest", type=int, default=2, help="hardest sampled worlds in a pool")
    ap.add_argument("--cap", type=int, default=200, help="the learner's lifted budget")
    ap.add_argument("--seconds", type=float, default=60.0, help="bound of each search")
    ap.add_argument("--agent", default="prior_sequential",
                    help="the upper end's learner: an agent name, or prior_particles")
    ap.add_argument("--swaps", type=int, default=CELL_SWAPS,
                    help="label swaps generating the cells' group (0: cells of one world, T)")
    ap.add_argument("--tasks", type=int, nargs="*", help="task indices (default: all)")
    args = ap.parse_args()
    tasks = read_suite(ROOT / "suites" / "lite", envs=["lights"]).all_tasks()
    if args.tasks:
        tasks = [tasks[i] for i in args.tasks]
    print(f"# {' '.join(sys.argv)}")
    per_n: dict[int, tuple[list[dict[str, Any]], Estimate, Estimate, Estimate]] = {}
    rows = []
    for task in tasks:
        n = int(task.public["n"])
        if n not in per_n:
            per_n[n] = _class_figures(task, args)
        sample, told, cells, est = per_n[n]
        t0 = time.perf_counter()
        pool = pool_for(task, sample, relabel=args.relabel, hardest=args.hardest, seed=0)
        try:
            lower = adversary_for(pool, task.budget, seconds=args.seconds).lower
            how = f"adversary W* of {len(pool.worlds)} worlds"
        except InductionLimit as exc:
            lower = max(int(bfs(w, explore_all=False).min_steps or 0) for w in pool.worlds)
            how = f"largest told minimum of {len(pool.worlds)} worlds ({exc})"
        width = (est.mean - cells.mean) / cells.mean
        rows.append(width <= 0.5)
        print(f"{task.id}  N {n}  min {task.certificate.min_steps}  "
              f"E*: [{cells.mean:.2f}, {est.mean:.1f}] width/lower {width:.2f}  "
              f"W*: lower {lower} ({how}, refused {pool.refused}), upper not proven "
              f"({args.agent}'s worst of {est.episodes} worlds: {est.worst:.0f})  "
              f"{time.perf_counter() - t0:.1f} s")
    share = sum(rows) / len(rows)
    print(f"E*: tasks with width <= 50 % of lower: {sum(rows)}/{len(rows)} ({share:.0%}; "
          f"target 80 %)")
    print(f"W*: no proven upper end at these sizes: 0/{len(rows)}")


def _class_figures(task: Any, args: argparse.Namespace
                   ) -> tuple[list[dict[str, Any]], Estimate, Estimate, Estimate]:
    """An N's sampled worlds, their with-rules minima (T's estimate), their cells' exact
    expected costs (the lower end's) and the learner's steps on them, printed with the seconds
    they took."""
    n = int(task.public["n"])
    t0 = time.perf_counter()
    sample = class_sample(task, args.worlds, 0)
    t1 = time.perf_counter()
    minima = [int(bfs(w, explore_all=False).min_steps or 0) for w in sample]
    told = estimate(minima)
    costs, sizes = [], []
    for world, least in zip(sample, minima, strict=True):
        members = cell(task, world, args.swaps)
        sizes.append(len(members))
        try:
            costs.append(expected_cost(task, members, seconds=args.seconds))
        except InductionLimit:  # the cell's own T: every relabelling has the world's minimum
            costs.append(float(least))
    cells = estimate(costs)
    t2 = time.perf_counter()
    est = learner_steps(task, lambda: learner(args.agent), sample, args.cap, 0)
    print(f"# N {n}: {len(sample)} sampled worlds ({t1 - t0:.0f} s); T (told minima "
          f"{told.best:.0f}-{told.worst:.0f}) {told.mean:.2f} [{told.low:.2f}, {told.high:.2f}]; "
          f"cells of {min(sizes)}-{max(sizes)} accepted worlds, expected cost {cells.mean:.2f} "
          f"[{cells.low:.2f}, {cells.high:.2f}] ({t2 - t1:.0f} s); {args.agent} mean "
          f"{est.mean:.1f} [{est.low:.1f}, {est.high:.1f}], worst {est.worst:.0f}, "
          f"{est.failures} failed at cap {args.cap} ({time.perf_counter() - t2:.0f} s)")
    return sample, told, cells, est

if __name__ == "__main__":
    main()
