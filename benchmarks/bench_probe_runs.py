"""What world-model probes cost a scripted run: time with and without ``--probes``.

The same tasks, the same agent and seed, played without and with probes in pairs. Each pair is
four whole runs in the order off, on, on, off (so a machine speed drifting during the pair hits
both alike) and its ratio is the probes' runs' time over the others'; one warm-up pair is not
counted, and the collector runs before each run (every run starts from the same heap). Times
are this process's CPU seconds (user + system), steadier than wall time on a shared machine;
wall seconds are printed beside them. Per env (only envs whose game offers probes): the median
pair ratio, every pair's ratio and the largest, and the ratio of the fastest runs (noise only
adds time, so the fastest of each kind is its steadiest reading). The run includes what
``arena-gen run`` does besides playing (reading the suite, compiling every task's game, writing
the run directory), as a user would time it.

With ``--parts`` the probe runs' CPU seconds are also split into the game's draw
(:func:`arena_gen.core.probes.draw`), the task's probe key (worked out when the task is read,
so about nothing here), the agent's replies (:func:`arena_gen.core.probe_ask.ask`) and the
milestones' records (:func:`arena_gen.core.probe_ask.milestone_record`), medians over the
pairs, with the share they make of the probe runs (measured inside those runs, so the
machine's load scales both sides alike); the rest of the difference is the trajectories' bigger
records. The split times each call through the episode module's names, so it adds a little to
the probe runs.

With ``--whole`` a last row ``all`` times one run over every listed env together (a whole
suite's scripted run, as ``arena-gen run --suite lite --agent heuristic`` plays it);
``--whole-only`` times that row alone.

Reproduce: ``python benchmarks/bench_probe_runs.py [--suite lite] [--envs lights,trading]
[--agent heuristic] [--pairs 5] [--per-milestone 8] [--parts] [--whole]
[--whole-only]`` from the repository root.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from arena_gen.core import episode, registry
from arena_gen.core.probes import PROBES_PER_MILESTONE, offers_probes
from arena_gen.core.suite_io import read_suite
from arena_gen.runner.run import RunConfig, run_suite


def _play(suite: str, envs: list[str], agent: str, mode: str, probes: int, out: Path
          ) -> tuple[float, float]:
    """Wall and CPU seconds (this process's user + system) of one whole run of ``agent`` over
    the envs' tasks (``probes``: 0 for off); on a shared machine the CPU time is the steadier."""
    gc.collect()
    wall, cpu = time.perf_counter(), time.process_time()
    run_suite(RunConfig(suite=suite, agent=agent, mode=mode, envs=envs, out=str(out),
                        probes=probes))
    return time.perf_counter() - wall, time.process_time() - cpu


#: The probe steps ``--parts`` times: the episode module's name -> the label printed.
PARTS = {"draw": "draw", "probe_key": "key", "ask": "replies", "milestone_record": "records"}


@contextmanager
def split(seconds: dict[str, float]) -> Iterator[None]:
    """Add each probe step's CPU seconds to ``seconds`` while the block runs."""
    saved = {name: getattr(episode, name) for name in PARTS}

    def timed(name: str, call: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            start = time.process_time()
            try:
                return call(*args, **kwargs)
            finally:
                label = PARTS[name]
                seconds[label] = seconds.get(label, 0.0) + time.process_time() - start
        return run

    for name, call in saved.items():
        setattr(episode, name, timed(name, call))
    try:
        yield
    finally:
        for name, call in saved.items():
            setattr(episode, name, call)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--suite", default="lite")
    parser.add_argument("--envs", default=None, help="comma-separated (default: every env "
                                                     "whose game offers probes)")
    parser.add_argument("--agent", default="heuristic")
    parser.add_argument("--mode", default="inductive")
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--per-milestone", type=int, default=PROBES_PER_MILESTONE)
    parser.add_argument("--parts", action="store_true",
                        help="split the probe runs' CPU seconds into draw, key and replies")
    parser.add_argument("--whole", action="store_true",
                        help="also time one run over every listed env together (row 'all')")
    parser.add_argument("--whole-only", action="store_true",
                        help="time only the row 'all' (no row per env)")
    args = parser.parse_args()
    suite = read_suite(args.suite)
    envs = args.envs.split(",") if args.envs else [
        env for env in sorted(suite.tasks)
        if offers_probes(registry.make_game(suite.tasks[env][0]))]
    print(f"command: python benchmarks/bench_probe_runs.py --suite {args.suite} --envs "
          f"{','.join(envs)} --agent {args.agent} --mode {args.mode} --pairs {args.pairs} "
          f"--per-milestone {args.per_milestone}" + (" --parts" if args.parts else "")
          + (" --whole" if args.whole else "") + (" --whole-only" if args.whole_only else ""))
    groups = ([] if args.whole_only else [(env, [env]) for env in envs]) + (
        [("all", envs)] if args.whole or args.whole_only else [])
    print(f"{'env':<9}{'tasks':>6}{'off s':>8}{'on s':>8}{'wall x':>8}{'cpu off':>9}"
          f"{'cpu on':>8}{'cpu x':>7}{'max x':>7}{'fast x':>8}  cpu ratios per pair")
    with tempfile.TemporaryDirectory() as tmp:
        for env, members in groups:
            offs: list[tuple[float, float]] = []
            ons: list[tuple[float, float]] = []
            pairs: list[tuple[float, float]] = []  # per pair: wall ratio, CPU ratio
            parts: list[dict[str, float]] = []
            for n in range(args.pairs + 1):  # the first pair warms caches, not counted
                seconds: dict[str, float] = {}
                got: dict[int, list[tuple[float, float]]] = {0: [], 1: []}
                for k, on in enumerate((0, 1, 1, 0)):  # off, on, on, off
                    with split(seconds) if args.parts and on else _nothing():
                        got[on].append(_play(args.suite, members, args.agent, args.mode,
                                             args.per_milestone if on else 0,
                                             Path(tmp) / f"{env}-{n}-{k}"))
                if n:
                    offs += got[0]
                    ons += got[1]
                    pairs.append((sum(b[0] for b in got[1]) / sum(a[0] for a in got[0]),
                                  sum(b[1] for b in got[1]) / sum(a[1] for a in got[0])))
                    parts.append({label: s / 2 for label, s in seconds.items()}
                                 | {"on": sum(b[1] for b in got[1]) / 2})
            med = statistics.median
            cpu = [c for _, c in pairs]
            tasks = sum(len(suite.tasks[e]) for e in members)
            print(f"{env:<9}{tasks:>6}{med(a[0] for a in offs):>8.2f}"
                  f"{med(b[0] for b in ons):>8.2f}{med(w for w, _ in pairs):>8.3f}"
                  f"{med(a[1] for a in offs):>9.2f}{med(b[1] for b in ons):>8.2f}"
                  f"{med(cpu):>7.3f}{max(cpu):>7.3f}"
                  f"{min(b[1] for b in ons) / min(a[1] for a in offs):>8.3f}  "
                  + " ".join(f"{r:.3f}" for r in cpu), flush=True)
            if args.parts:
                labels = list(PARTS.values())
                shares = (f"{label} {med(p.get(label, 0.0) for p in parts):.3f}"
                          for label in labels)
                inside = [sum(p.get(label, 0.0) for label in labels) / p["on"] for p in parts]
                print(f"{'':<9}probe runs' CPU s (medians): " + ", ".join(shares)
                      + f"; their share of a probe run {med(inside):.3f} (pairs: "
                      + " ".join(f"{x:.3f}" for x in inside) + ")", flush=True)


@contextmanager
def _nothing() -> Iterator[None]:
    """No split (the probe runs as a user times them)."""
    yield


if __name__ == "__main__":
    main()
