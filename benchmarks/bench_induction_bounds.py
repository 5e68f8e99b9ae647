"""Lights Lite: certified induction bounds per released task (issue 39), and how tight they are.

Per task of ``suites/lite/lights.jsonl`` it prints the with-rules minimum, the adversary's
``lower`` (certified for every agent: the exact worst-case cost of a pool of accepted worlds of
the task's class, ``arena_gen.suite.induction_bounds``), the ``upper`` end (the prior-aware
learner's mean steps over sampled accepted worlds of the class, its budget lifted to ``--cap``,
with the 95 % interval of that mean and its worst), width / lower, the method and seconds; then
the share of tasks whose width is at most 50 % of the lower end (the issue's target: 80 %).

A task's class depends only on its N and budget, so each N's sample and learner runs are shared
by its tasks (their seconds are printed once, per N); each task's pool and adversary are its
own. Every search is bounded (``--seconds``); a task whose search stops keeps the pool's largest
with-rules minimum as its lower end and says so.

    python benchmarks/bench_induction_bounds.py                      # all 30 tasks
    python benchmarks/bench_induction_bounds.py --worlds 10 --tasks 0 16
    python benchmarks/bench_induction_bounds.py --worlds 20 --tasks 16 --agent prior_particles
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
    Estimate,
    adversary_for,
    class_sample,
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
    ap.add_argument("--agent", default="prior_aware",
                    help="the upper end's learner: an agent name, or prior_particles")
    ap.add_argument("--tasks", type=int, nargs="*", help="task indices (default: all)")
    args = ap.parse_args()
    tasks = read_suite(ROOT / "suites" / "lite", envs=["lights"]).all_tasks()
    if args.tasks:
        tasks = [tasks[i] for i in args.tasks]
    print(f"# {' '.join(sys.argv)}")
    per_n: dict[int, tuple[list[dict[str, Any]], Estimate, float]] = {}
    rows = []
    for task in tasks:
        n = int(task.public["n"])
        if n not in per_n:
            t0 = time.perf_counter()
            sample = class_sample(task, args.worlds, 0)
            est = learner_steps(task, lambda: learner(args.agent), sample, args.cap, 0)
            per_n[n] = (sample, est, time.perf_counter() - t0)
            told = sorted(int(bfs(w, explore_all=False).min_steps or 0) for w in sample)
            print(f"# N {n}: {len(sample)} sampled worlds (told minima {told[0]}-{told[-1]}, "
                  f"mean {sum(told) / len(told):.2f}); {args.agent} mean {est.mean:.1f} "
                  f"[{est.low:.1f}, {est.high:.1f}], worst {est.worst}, "
                  f"{est.failures} failed at cap {args.cap}; {per_n[n][2]:.0f} s")
        sample, est, _ = per_n[n]
        t0 = time.perf_counter()
        pool = pool_for(task, sample, relabel=args.relabel, hardest=args.hardest, seed=0)
        try:
            lower = adversary_for(pool, task.budget, seconds=args.seconds).lower
            how = f"adversary W* of {len(pool.worlds)} worlds"
        except InductionLimit as exc:
            lower = max(int(bfs(w, explore_all=False).min_steps or 0) for w in pool.worlds)
            how = f"largest told minimum of {len(pool.worlds)} worlds ({exc})"
        width = est.mean - lower
        rows.append(width <= 0.5 * lower)
        print(f"{task.id}  N {n}  min {task.certificate.min_steps}  lower {lower}  "
              f"upper {est.mean:.1f} [{est.low:.1f}, {est.high:.1f}]  "
              f"width/lower {width / lower:.2f}  {how}, refused {pool.refused}; "
              f"{args.agent} over {est.episodes} worlds, cap {args.cap}  "
              f"{time.perf_counter() - t0:.1f} s")
    share = sum(rows) / len(rows)
    print(f"tasks with width <= 50 % of lower: {sum(rows)}/{len(rows)} ({share:.0%}; target 80 %)")


if __name__ == "__main__":
    main()
