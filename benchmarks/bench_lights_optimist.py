"""The lights optimist at the paper-scale Challenge: the released v6 tasks (36-40 bulbs) played
for their whole budget by the optimist that plans without a table above 30 bulbs, beside the
climber (the other memory-only rung) in the same run, so the time ratio cancels shared load.

Reproduce: ``python benchmarks/bench_lights_optimist.py [--tasks K] [--seed S]`` from the
repository root.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from arena_gen.core import registry
from arena_gen.core.agent import TaskView
from arena_gen.core.suite_io import read_suite
from arena_gen.core.task import Task
from arena_gen.envs.lights.agents.optimist import LightsClimberAgent, LightsOptimistAgent


def episode(task: Task, agent: Any, seed: int) -> tuple[bool, int, int, float]:
    """(lit, turns, bulbs on at the end, seconds) of one inductive episode."""
    env = registry.make_env(task)
    obs, _ = env.reset()
    agent.reset(TaskView.of(task, "inductive"), "inductive", np.random.default_rng(seed))
    start = time.perf_counter()
    turns = 0
    while True:
        obs, _, terminated, truncated, _ = env.step(agent.act(obs))
        turns += 1
        if terminated or truncated:
            break
    return bool(env.success), turns, int(agent.state).bit_count(), time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tasks", type=int, default=10, help="first K released tasks")
    parser.add_argument("--seed", type=int, default=0, help="the agents' RNG seed")
    args = parser.parse_args()
    print(f"command: python benchmarks/bench_lights_optimist.py --tasks {args.tasks} "
          f"--seed {args.seed}")
    tasks = read_suite("challenge", envs=["lights"]).all_tasks()[:args.tasks]
    print(f"{'task':<26}{'n':>4}{'optimist lit':>14}{'on':>4}{'s':>7}"
          f"{'climber lit':>13}{'on':>4}{'s':>7}")
    total = {"optimist": 0.0, "climber": 0.0}
    lit = {"optimist": 0, "climber": 0}
    for task in tasks:
        row = f"{task.id:<26}{task.public['n']:>4}"
        for name, agent in (("optimist", LightsOptimistAgent()),
                            ("climber", LightsClimberAgent())):
            success, turns, on, seconds = episode(task, agent, args.seed)
            total[name] += seconds
            lit[name] += success
            width = 14 if name == "optimist" else 13
            row += f"{f'{success} ({turns})':>{width}}{on:>4}{seconds:>7.2f}"
        print(row)
    print(f"lit: optimist {lit['optimist']}/{len(tasks)}, climber {lit['climber']}/{len(tasks)}; "
          f"seconds: optimist {total['optimist']:.1f}, climber {total['climber']:.1f}, "
          f"ratio {total['optimist'] / total['climber']:.2f}")
    print("lit (turns): success and turns played; on: bulbs on at the end; s: seconds of the "
          "episode (agent and env)")


if __name__ == "__main__":
    main()
