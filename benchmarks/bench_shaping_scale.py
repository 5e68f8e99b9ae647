"""Certified dense rewards at the paper-scale Challenge: building the exact potential per task.

    python benchmarks/bench_shaping_scale.py [--suite challenge] [--bmc-seconds 60] [--quick]

For every lights and repo task of the suite (the paper-scale Challenge: lights 36-40 bulbs,
repo 95-125 packages), the seconds to build its exact potential part by part (lights: one 2^n
distance table per closed part; repo v6: one backward search per group), whether Phi at the
start is minus the certificate's minimum, and the microseconds per potential call along the
witness. Then, for the first repo task, the whole-world BMC search that shapes repo below v6
(:class:`arena_gen.envs.repo.potential.RepoDistance`), run in a child process stopped after
``--bmc-seconds``: the horizons (package commands) it had proven unreachable and when, against
the certificate's minimum it would have to reach. Lights' whole 2^N table is refused above
N = 20 (2^36-2^40 entries), so it has no such row. ``--quick``: the BMC stopped after 10 s.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import platform
import statistics
import time
from typing import Any


def witness_calls(task: Any) -> tuple[float, float, int]:
    """Seconds to build the task's potential, microseconds per call along its witness, and
    minus Phi at the start."""
    from arena_gen.core import registry

    spec = registry.for_task(task)
    game = spec.load("game")(task)
    start = time.perf_counter()
    phi = spec.load("potential")(game)
    built = time.perf_counter() - start
    state = game.initial()
    states = [state]
    for action in task.certificate.witness:
        state = game.step(state, game.parse(action))[0]
        states.append(state)
    start = time.perf_counter()
    first = phi(states[0])
    for s in states[1:]:
        phi(s)
    per_call = (time.perf_counter() - start) / len(states)
    return built, 1e6 * per_call, int(-first)


def bmc_horizons(task: Any, out: Any) -> None:
    """Child process: the BMC searcher of the whole world, each extra layer reported."""
    from arena_gen.core import registry
    from arena_gen.envs.repo import potential, verify_v2

    game = registry.for_task(task).load("game")(task)
    start = time.perf_counter()
    extend = verify_v2.Bmc.extend

    def timed(self: Any) -> None:
        extend(self)
        out.put((self.layers, time.perf_counter() - start))

    verify_v2.Bmc.extend = timed  # type: ignore[method-assign]
    potential.RepoDistance(game)
    out.put(("done", time.perf_counter() - start))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default="challenge")
    parser.add_argument("--bmc-seconds", type=float, default=60.0)
    parser.add_argument("--quick", action="store_true", help="the BMC stopped after 10 s")
    args = parser.parse_args()
    if args.quick:
        args.bmc_seconds = 10.0

    from arena_gen.core.suite_io import read_suite, resolve_suite

    print(f"python benchmarks/bench_shaping_scale.py --suite {args.suite} "
          f"--bmc-seconds {args.bmc_seconds:g}")
    print(f"{platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.1f}")
    suite = read_suite(resolve_suite(args.suite), envs=["lights", "repo"]).tasks
    print(f"\n{'env':7} {'tasks':>5} {'size':>8} {'build ms median':>15} {'build ms max':>12} "
          f"{'phi us/call':>11} {'Phi(start) = -min':>17}")
    for env in ("lights", "repo"):
        tasks = suite[env]
        rows = [witness_calls(t) for t in tasks]
        sizes = [int(t.world["n"]) if env == "lights" else len(t.world["package_order"])
                 for t in tasks]
        exact = all(first == t.certificate.min_steps for t, (_, _, first) in zip(tasks, rows,
                                                                                   strict=True))
        print(f"{env:7} {len(tasks):5d} {min(sizes):>3}-{max(sizes):<4} "
              f"{1e3 * statistics.median(r[0] for r in rows):15.1f} "
              f"{1e3 * max(r[0] for r in rows):12.1f} "
              f"{statistics.median(r[1] for r in rows):11.1f} {str(exact):>17}", flush=True)

    task = suite["repo"][0]
    out: Any = multiprocessing.get_context("spawn").Queue()
    child = multiprocessing.get_context("spawn").Process(target=bmc_horizons, args=(task, out))
    child.start()
    child.join(args.bmc_seconds)
    if child.is_alive():
        child.terminate()
        child.join()
    reports = []
    while not out.empty():
        reports.append(out.get())
    done = [s for layer, s in reports if layer == "done"]
    layers = [(layer, s) for layer, s in reports if layer != "done"]
    last = layers[-1] if layers else (0, 0.0)
    print(f"\nrepo whole-world BMC on {task.id} ({len(task.world['package_order'])} packages, "
          f"minimum {task.certificate.min_steps}): "
          + (f"built in {done[0]:.1f} s" if done else
             f"stopped after {args.bmc_seconds:g} s at horizon {last[0]} "
             f"(reached at {last[1]:.1f} s)"))
    print("  horizon: seconds  " + "  ".join(f"{layer}: {s:.1f}" for layer, s in layers
                                              if layer % 10 == 0))


if __name__ == "__main__":
    main()
