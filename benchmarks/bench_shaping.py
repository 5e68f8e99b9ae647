"""Certified dense rewards: microseconds per step of the shaped reward against the plain step.

    python benchmarks/bench_shaping.py [--steps 20000] [--suite lite,challenge] [--env lights]
        [--seed 7] [--quick]

For each env with a certified potential and each suite, every released task is played through
the plain text env and through ``arena_gen.train.shaped`` of it on the same random actions (the
env's random agent, seeded; an episode that ends is reset), ``--steps`` steps in all, spread
evenly over the tasks. Printed: microseconds per step of each (the same action texts, so the
difference is the shaping's cost, within the noise of shared cores), the microseconds of the
potential's own calls per step of the shaped run (timed inside it: less noisy than the
difference), and the one-off potential build per world (the first ``shaped`` of a world in the
process, less the plain env's construction: for lights the backward BFS over the 2^N states;
for repo the search from the empty configuration; for trading and energy the hash of the world
and witness and the witness's replay through the game).
``--quick``: 2,000 steps on Lite.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from typing import Any

import numpy as np
from numpy.random import SeedSequence


def actions_for(env: Any, count: int, seed: SeedSequence) -> list[str]:
    """``count`` random actions drawn by the env's random agent."""
    rng = np.random.default_rng(seed)
    return [env.sample_action(rng) for _ in range(count)]


def play(env: Any, actions: list[str]) -> float:
    """Seconds to play ``actions`` (reset at each episode end, resets included)."""
    env.reset()
    start = time.perf_counter()
    for action in actions:
        _, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            env.reset()
    return time.perf_counter() - start


class Timed:
    """A potential whose calls are timed (seconds summed in ``spent``)."""

    def __init__(self, phi: Any) -> None:
        self.phi = phi
        self.spent = 0.0

    def __call__(self, state: Any) -> float:
        start = time.perf_counter()
        out = self.phi(state)
        self.spent += time.perf_counter() - start
        return float(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--suite", default="lite,challenge")
    parser.add_argument("--env", default="")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="2,000 steps on Lite")
    args = parser.parse_args()
    if args.quick:
        args.steps, args.suite = 2_000, "lite"

    from arena_gen.core import registry
    from arena_gen.core.suite_io import read_suite, resolve_suite
    from arena_gen.train.shaping import shaped

    envs = args.env.split(",") if args.env else [
        s.name for s in registry.specs() if s.potential is not None]
    print(f"python benchmarks/bench_shaping.py --steps {args.steps} --suite {args.suite} "
          f"--env {','.join(envs)} --seed {args.seed}")
    print(f"{platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.1f}")
    print(f"\n{'env':8} {'suite':10} {'tasks':>5} {'steps':>6} {'plain us':>9} {'shaped us':>9} "
          f"{'extra us':>8} {'phi us':>7} {'build ms median':>15} {'build ms max':>12}")
    seeds = iter(SeedSequence(args.seed).spawn(10_000))
    for name in envs:
        for suite in args.suite.split(","):
            tasks = read_suite(resolve_suite(suite), envs=[name]).tasks[name]
            per_task = max(1, args.steps // len(tasks))
            plain_s = shaped_s = phi_s = 0.0
            builds = []
            for task in tasks:
                plain = registry.make_env(task)
                start = time.perf_counter()
                registry.make_env(task)
                made = time.perf_counter() - start
                start = time.perf_counter()
                env = shaped(registry.make_env(task))
                builds.append(time.perf_counter() - start - made)
                env.phi = timed = Timed(env.phi)
                actions = actions_for(plain, per_task, next(seeds))
                plain_s += play(plain, actions)
                shaped_s += play(env, actions)
                phi_s += timed.spent
            steps = per_task * len(tasks)
            plain_us, shaped_us = 1e6 * plain_s / steps, 1e6 * shaped_s / steps
            print(f"{name:8} {suite:10} {len(tasks):5d} {steps:6d} {plain_us:9.1f} "
                  f"{shaped_us:9.1f} {shaped_us - plain_us:8.1f} {1e6 * phi_s / steps:7.1f} "
                  f"{1e3 * statistics.median(builds):15.2f} {1e3 * max(builds):12.2f}",
                  flush=True)


if __name__ == "__main__":
    main()
