"""Env steps/s per core per env: the text API alone, then Gymnasium vector envs over it.

Every row plays the same policy, the current task's certified witness (then empty actions if
an episode outlives it), so every episode ends in success and resets are part of the figure:

- ``text``: one :class:`~arena_gen.core.game_env.GameEnv` per task of the suite, played in
  turn (the env built, reset and stepped; one core);
- ``sync``: ``make_vec(env, N, suite=SUITE)`` in sync mode (one process, one core);
- ``async``: the same in async mode, one worker process per sub-env (figures per core: the
  steps over the seconds, divided by min(N, cores));
- ``stream``: sync mode over the level's certified stream instead of a suite, so each reset
  draws, proves and replays a fresh task (the draw's cost is in the figure).

Reproduce: ``nice -n 10 python benchmarks/bench_vector.py [--seconds S] [--envs lights,...]
[--num-envs N] [--suite lite]`` from the repository root. The cores are shared: the 1-minute
load average is printed with each row; a second of text-API play warms each env up first.
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

from arena_gen.core import registry
from arena_gen.core.suite_io import read_suite, resolve_suite
from arena_gen.core.task import Task
from arena_gen.train.vector import make_vec


def load() -> str:
    """The 1-minute load average (the 2 cores are shared)."""
    return f"{os.getloadavg()[0]:.2f}"


def text_api(tasks: list[Task], seconds: float) -> tuple[int, float]:
    """Steps and seconds playing the tasks' witnesses in turn through the text env."""
    steps, start, i = 0, time.perf_counter(), 0
    while time.perf_counter() - start < seconds:
        task = tasks[i % len(tasks)]
        i += 1
        env = registry.make_env(task)
        env.reset()
        plan = list(task.certificate.witness)
        done = False
        while not done:
            action = plan[env.turn] if env.turn < len(plan) else ""
            _, _, terminated, truncated, _ = env.step(action)
            steps += 1
            done = terminated or truncated
    return steps, time.perf_counter() - start


def vector(envs: Any, seconds: float, known: dict[str, Task]) -> tuple[int, float]:
    """Steps (sub-env steps) and seconds playing each sub-env's current witness."""
    n = envs.num_envs
    _, info = envs.reset(seed=list(range(n)))
    current = list(info["task_id"])
    turn, ending = [0] * n, [False] * n
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        missing = [tid for tid in current if tid not in known]
        if missing:  # a stream task: fetch it once
            for task in envs.get_attr("task"):
                known[task.id] = task
        actions = []
        for k in range(n):
            plan = known[current[k]].certificate.witness
            actions.append("" if ending[k] or turn[k] >= len(plan) else plan[turn[k]])
            turn[k] += 0 if ending[k] else 1
        _, _, terminated, truncated, info = envs.step(tuple(actions))
        steps += n
        fresh = info.get("_task_id")
        for k in range(n):
            if fresh is not None and fresh[k]:
                current[k], turn[k] = str(info["task_id"][k]), 0
        ending = [bool(a or b) for a, b in zip(terminated, truncated, strict=True)]
    seconds_taken = time.perf_counter() - start
    envs.close()
    return steps, seconds_taken


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="Seconds per row.")
    parser.add_argument("--envs", default="lights,trading,energy,repo")
    parser.add_argument("--num-envs", type=int, default=8, help="Sub-envs of the sync row.")
    parser.add_argument("--suite", default="lite")
    parser.add_argument("--level", default="lite", help="The stream row's level.")
    args = parser.parse_args()
    cores = len(os.sched_getaffinity(0))
    suite = read_suite(resolve_suite(args.suite))
    print(f"steps/s per core, witness policy, {args.seconds:g} s a row, {cores} cores "
          f"(sync: {args.num_envs} sub-envs; async: {cores} sub-envs, one process each)")
    print(f"{'env':8} {'row':7} {'steps':>8} {'seconds':>8} {'steps/s/core':>13} {'load':>6}")
    for env in args.envs.split(","):
        tasks = suite.tasks[env]
        known = {t.id: t for t in tasks}
        text_api(tasks, min(1.0, args.seconds))  # warm-up: imports, first compiles, caches
        rows = [("text", text_api(tasks, args.seconds), 1),
                ("sync", vector(make_vec(env, args.num_envs, suite=args.suite),
                                args.seconds, known), 1),
                ("async", vector(make_vec(env, cores, suite=args.suite, mode="async"),
                                 args.seconds, known), cores),
                ("stream", vector(make_vec(env, 2, level=args.level), args.seconds,
                                  dict(known)), 1)]
        for name, (steps, seconds), used in rows:
            print(f"{env:8} {name:7} {steps:8d} {seconds:8.2f} {steps / seconds / used:13.0f} "
                  f"{load():>6}", flush=True)


if __name__ == "__main__":
    main()
