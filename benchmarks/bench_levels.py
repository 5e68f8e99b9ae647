"""Curriculum levels: each level's knobs, median exact minimum and measured baseline ladder.

    python benchmarks/bench_levels.py [--count 10] [--jobs 2] [--seed 7] [--env lights,repo]
        [--level L1,L3] [--set budget=80,min_len=6] [--rungs heuristic,planner] [--start 0]

For each env and each of its curriculum levels (``arena_gen.train.levels``), draws ``--count``
certified stream tasks and plays the ladder's rungs on each as a build's ladder does
(``arena_gen.suite.ladder.climb``: random 4 attempts, the model-free rungs, the inductive
heuristic and the env's other inductive baselines, the with-rules planner; run seed 0). Prints
per env: the level, the knobs that differ from Lite, the median exact minimum, the success rate
per rung, and the seconds per task (draw + ladder, inside the workers). The levels are ordered
so that the inductive rung's success falls with the level; the last column says where it does
not.
``--set`` replaces knobs of each level's preset (an ablation on the level's own seed tree: the
tasks are those a level with these knobs would draw); ``--rungs`` plays only the named rungs;
``--start`` draws stream indices from that index on (to add tasks to an earlier run's).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from typing import Any

Job = tuple[str, str, int, int, dict[str, Any], list[str] | None]


def measure(job: Job) -> dict[str, Any]:
    """Draw one stream task and climb its ladder: the per-task facts the table aggregates."""
    from arena_gen.core import registry
    from arena_gen.core.calibration import Calibration
    from arena_gen.suite.ladder import climb
    from arena_gen.train.levels import level_preset
    from arena_gen.train.released import released_fingerprints
    from arena_gen.train.stream import StreamJob, draw

    env, level, seed, index, overrides, rungs = job
    start = time.perf_counter()
    spec = registry.get(env)
    config = {**level_preset(level, env), **overrides} if overrides else None
    drawn = draw(StreamJob(env, spec.version, level, seed, index, False,
                           released_fingerprints(env)), config)
    ladder = climb(drawn.task, Calibration(), rungs)
    rates = {rung: r["successes"] / r["attempts"] for rung, r in ladder.items()}
    kinds = {rung: r.get("kind", "") for rung, r in ladder.items()}
    steps = {rung: [a["steps"] for a in r["results"]] for rung, r in ladder.items()}
    return {"level": level, "index": index, "min_steps": drawn.task.certificate.min_steps,
            "rates": rates, "kinds": kinds, "steps": steps, "attempts": drawn.attempts,
            "seconds": time.perf_counter() - start}


def _overrides(text: str | None) -> dict[str, Any]:
    """``budget=80,min_len=6`` as knobs (values read as JSON numbers, else kept as text)."""
    out: dict[str, Any] = {}
    for item in (text or "").split(","):
        if not item:
            continue
        key, _, value = item.partition("=")
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out


def _cell(values: list[float]) -> str:
    return f"{100 * sum(values) / len(values):3.0f}%"


def table(env: str, levels: list[str], results: list[dict[str, Any]],
          overrides: dict[str, Any]) -> None:
    """Print one env's table (rungs in ladder order; inductive = the ``heuristic`` rung)."""
    from arena_gen.train.levels import level_knobs

    rungs = list(results[0]["rates"])
    kinds = results[0]["kinds"]
    print(f"\n{env}: rungs " + ", ".join(f"{r} ({kinds[r]})" for r in rungs))
    print(f"{'level':5} {'n':>3} {'med min':>7} " + " ".join(f"{r[:12]:>12}" for r in rungs)
          + f" {'heur steps':>10} {'s/task':>7}  knobs (vs lite)")
    previous = None
    for level in levels:
        rows = [r for r in results if r["level"] == level]
        rate = sum(r["rates"].get("heuristic", 0.0) for r in rows) / len(rows)
        note = "" if previous is None or rate <= previous else "  <- inductive rises"
        previous = rate
        minima = [r["min_steps"] for r in rows if r["min_steps"] is not None]
        median = statistics.median(minima) if minima else "-"  # trading has no exact minimum
        cells = " ".join(f"{_cell([r['rates'][rung] for r in rows]):>12}" for rung in rungs)
        knobs = ", ".join(f"{k}={v}" for k, v in {**level_knobs(level, env), **overrides}.items())
        seconds = statistics.mean(r["seconds"] for r in rows)
        won = [s for r in rows if "heuristic" in r["steps"] and r["rates"]["heuristic"] > 0
               for s in r["steps"]["heuristic"]]
        solved = f"{statistics.median(won):.0f}" if won else "-"  # median steps of its wins
        print(f"{level:5} {len(rows):3d} {median!s:>7} {cells} {solved:>10} {seconds:7.2f}  "
              f"{knobs or '= lite'}{note}")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--count", type=int, default=10)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--env", default="lights,trading,energy,repo")
    parser.add_argument("--level", default=None, help="default: every level of the env")
    parser.add_argument("--set", default=None,
                        help="knobs replacing each level's, e.g. budget=80,min_len=6")
    parser.add_argument("--rungs", default=None, help="default: every rung of the ladder")
    parser.add_argument("--start", type=int, default=0, help="the first stream index drawn")
    parser.add_argument("--json", default=None,
                        help="also write the per-task facts to JSON.<env>.json")
    args = parser.parse_args()

    from arena_gen.core.parallel import map_unordered
    from arena_gen.train.levels import curriculum_levels
    from arena_gen.train.released import released_fingerprints

    print(f"python benchmarks/bench_levels.py --count {args.count} --jobs {args.jobs} "
          f"--seed {args.seed} --env {args.env}"
          + (f" --level {args.level}" if args.level else "")
          + (f" --set {args.set}" if args.set else "")
          + (f" --rungs {args.rungs}" if args.rungs else "")
          + (f" --start {args.start}" if args.start else ""))
    overrides = _overrides(args.set)
    rungs = args.rungs.split(",") if args.rungs else None
    print(f"{platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.1f}", flush=True)
    for env in args.env.split(","):
        levels = args.level.split(",") if args.level else curriculum_levels(env)
        released_fingerprints(env)  # once, before the clock (the worker processes redo it)
        jobs: list[Job] = [(env, level, args.seed, i, overrides, rungs) for level in levels
                           for i in range(args.start, args.start + args.count)]
        start = time.perf_counter()
        results = list(map_unordered(measure, jobs, jobs=args.jobs))
        print(f"{env}: {len(results)} tasks in {time.perf_counter() - start:.0f} s wall",
              flush=True)
        if args.json:
            with open(f"{args.json}.{env}.json", "w", encoding="utf-8") as out:
                json.dump(sorted(results, key=lambda r: (r["level"], r["index"])), out)
        table(env, levels, results, overrides)


if __name__ == "__main__":
    main()
