"""Per-task resistance to model-free play (issue 38): the ladder out of sample, and build time.

**Ladder** (default): builds ``--suite`` afresh for each of ``--seeds`` (never used for tuning)
with ``--env`` at ``--version``, pools every rung's certified ladder over the seeds' tasks
(Wilson 95 % intervals over attempts), and plays each model-free rung again on the accepted
tasks with attempt seeds 1..``--fresh`` (seeds the build never saw: rejection used attempt 0
only, so this is the rung's held-out rate). Prints one markdown table per version.
Reproduce: ``python benchmarks/bench_resistance.py --env lights --suite lite --version 3 4
--seeds 31 32 33 34 35 36 37 38 39 40``.

**Time** (``--time``): builds the suite at each version in turn, ``--repeat`` rounds
alternating the versions, and prints each build's seconds and the ratio of the medians.
Reproduce: ``python benchmarks/bench_resistance.py --time --env lights --suite lite --version 3
4 --seeds 7 --repeat 3``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from arena_gen.core import registry
from arena_gen.core.calibration import rung_kind, rung_rates, wilson
from arena_gen.core.task import Task
from arena_gen.suite.build import build_suite
from arena_gen.suite.ladder import play_attempt


def _cell(successes: int, n: int) -> str:
    lo, hi = wilson(successes, n)
    rate = successes / n if n else 0.0
    return f"{successes}/{n} {rate:.0%} [{lo:.0%}-{hi:.0%}]"


def held_out(tasks: list[Task], version: int, env: str, fresh: int) -> dict[str, list[int]]:
    """Per model-free rung: (successes, attempts) over ``tasks`` at attempt seeds 1..fresh."""
    out: dict[str, list[int]] = {}
    for name, factory in registry.get(env, version).load_model_free().items():
        wins = sum(bool(play_attempt(t, factory(), "inductive", a)["success"])
                   for t in tasks for a in range(1, fresh + 1))
        out[name] = [wins, len(tasks) * fresh]
    return out


def ladder(args: argparse.Namespace) -> None:
    for version in args.version:
        tasks: list[Task] = []
        fresh: dict[str, list[int]] = {}
        attempts = rejections = 0
        start = time.perf_counter()
        print(f"\n{args.env} v{version} {args.suite}, per seed (certified successes per rung; "
              f"held out: successes / attempts at attempt seeds 1-{args.fresh}):", flush=True)
        for seed in args.seeds:
            built = build_suite(args.suite, seed, [args.env], versions={args.env: version})
            done = built.tasks[args.env]
            tasks += done
            facts = built.manifest["build"][args.env]
            attempts += facts["attempts"]
            rejections += facts["rejections"].get("model_free", 0)
            held = held_out(done, version, args.env, args.fresh) if args.fresh else {}
            for rung, (wins, n) in held.items():
                row = fresh.setdefault(rung, [0, 0])
                row[0] += wins
                row[1] += n
            rates = rung_rates([t.certificate.facts["ladder"] for t in done])
            noted = built.manifest["calibration"][args.env].get("noted", [])
            print(f"- seed {seed}: " + ", ".join(f"{r} {row['successes']}/{row['attempts']}"
                                                 for r, row in rates.items())
                  + "".join(f"; {r} held out {w}/{n}" for r, (w, n) in held.items())
                  + f"; {facts['rejections'].get('model_free', 0)} model_free rejections"
                  + "".join(f"; noted: {n}" for n in noted), flush=True)
        seconds = time.perf_counter() - start
        rates = rung_rates([t.certificate.facts["ladder"] for t in tasks])
        print(f"\n{args.env} v{version} {args.suite}, seeds {args.seeds[0]}-{args.seeds[-1]}: "
              f"{len(tasks)} tasks, {attempts} candidates ({rejections} rejected as "
              f"model_free), {seconds:.0f} s")
        print(f"\n| rung | kind | certified (attempt seeds as the ladder) | held out "
              f"(attempt seeds 1-{args.fresh}) |\n|---|---|---|---|")
        for rung, row in rates.items():
            cell = _cell(*fresh[rung]) if rung in fresh else ""
            print(f"| {rung} | {rung_kind(rung, row)} | "
                  f"{_cell(row['successes'], row['attempts'])} | {cell} |", flush=True)


def timing(args: argparse.Namespace) -> None:
    seconds: dict[int, list[float]] = {v: [] for v in args.version}
    for _ in range(args.repeat):
        for version in args.version:
            start = time.perf_counter()
            for seed in args.seeds:
                build_suite(args.suite, seed, [args.env], versions={args.env: version})
            seconds[version].append(time.perf_counter() - start)
    base = statistics.median(seconds[args.version[0]])
    for version, runs in seconds.items():
        med = statistics.median(runs)
        print(f"{args.env} v{version} {args.suite} seeds {args.seeds}: "
              f"{' '.join(f'{s:.2f}' for s in runs)} s, median {med:.2f} s, "
              f"{med / base:.2f}x v{args.version[0]}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--env", required=True)
    parser.add_argument("--suite", default="lite")
    parser.add_argument("--version", type=int, nargs="+", required=True)
    parser.add_argument("--seeds", type=int, nargs="+", default=list(range(31, 41)))
    parser.add_argument("--fresh", type=int, default=4,
                        help="held-out attempt seeds per model-free rung and task (0: none)")
    parser.add_argument("--time", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    args: Any = parser.parse_args(argv)
    (timing if args.time else ladder)(args)


if __name__ == "__main__":
    main()
