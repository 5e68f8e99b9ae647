"""What world-model probes cost a scripted run: wall time with and without ``--probes``.

The same tasks, the same agent and seed, played alternately without and with probes (A B A B
...) so a drifting machine speed hits both alike; each pair's ratio and the median over pairs
are printed per env (only envs whose game offers probes are timed). The run includes what
``arena-gen run`` does besides playing (reading the suite, compiling every task's game, writing
the run directory), as a user would time it.

Reproduce: ``python benchmarks/bench_probe_runs.py [--suite lite] [--envs lights,trading]
[--agent heuristic] [--pairs 5] [--per-milestone 8]`` from the repository root.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from arena_gen.core import registry
from arena_gen.core.probes import PROBES_PER_MILESTONE, offers_probes
from arena_gen.core.suite_io import read_suite
from arena_gen.runner.run import RunConfig, run_suite


def _play(suite: str, env: str, agent: str, mode: str, probes: int, out: Path
          ) -> tuple[float, float]:
    """Wall and CPU seconds (this process's user + system) of one whole run of ``agent`` over
    the env's tasks (``probes``: 0 for off); on a shared machine the CPU time is the steadier."""
    wall, cpu = time.perf_counter(), time.process_time()
    run_suite(RunConfig(suite=suite, agent=agent, mode=mode, envs=[env], out=str(out),
                        probes=probes))
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--suite", default="lite")
    parser.add_argument("--envs", default=None, help="comma-separated (default: every env "
                                                     "whose game offers probes)")
    parser.add_argument("--agent", default="heuristic")
    parser.add_argument("--mode", default="inductive")
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--per-milestone", type=int, default=PROBES_PER_MILESTONE)
    args = parser.parse_args()
    suite = read_suite(args.suite)
    envs = args.envs.split(",") if args.envs else [
        env for env in sorted(suite.tasks)
        if offers_probes(registry.make_game(suite.tasks[env][0]))]
    print(f"command: python benchmarks/bench_probe_runs.py --suite {args.suite} --envs "
          f"{','.join(envs)} --agent {args.agent} --mode {args.mode} --pairs {args.pairs} "
          f"--per-milestone {args.per_milestone}")
    print(f"{'env':<9}{'tasks':>6}{'off s':>8}{'on s':>8}{'wall x':>8}{'cpu off':>9}"
          f"{'cpu on':>8}{'cpu x':>7}  wall ratios per pair | cpu ratios per pair")
    with tempfile.TemporaryDirectory() as tmp:
        for env in envs:
            offs, ons = [], []
            for n in range(args.pairs + 1):  # the first pair warms caches, not counted
                off = _play(args.suite, env, args.agent, args.mode, 0,
                            Path(tmp) / f"{env}-off-{n}")
                on = _play(args.suite, env, args.agent, args.mode, args.per_milestone,
                           Path(tmp) / f"{env}-on-{n}")
                if n:
                    offs.append(off)
                    ons.append(on)
            wall = [b[0] / a[0] for a, b in zip(offs, ons, strict=True)]
            cpu = [b[1] / a[1] for a, b in zip(offs, ons, strict=True)]
            med = statistics.median
            print(f"{env:<9}{len(suite.tasks[env]):>6}{med(a[0] for a in offs):>8.2f}"
                  f"{med(b[0] for b in ons):>8.2f}{med(wall):>8.3f}"
                  f"{med(a[1] for a in offs):>9.2f}{med(b[1] for b in ons):>8.2f}"
                  f"{med(cpu):>7.3f}  " + " ".join(f"{r:.3f}" for r in wall) + " | "
                  + " ".join(f"{r:.3f}" for r in cpu), flush=True)


if __name__ == "__main__":
    main()
