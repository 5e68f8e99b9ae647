"""Repo v4 ablation: the inductive learner's simple variants beside the ladder's rungs.

Builds the repo v4 Lite and Challenge suites of the given seeds (verified and calibrated, as
``arena-gen build`` does), then plays every variant of the learner
(:class:`~arena_gen.envs.repo.agents.heuristic_v3.RepoV3HeuristicAgent`: how it ranks by the
consistency hypothesis, its depth per suspect, blame, memory context, drift repair) and the
model-free rungs once per task, as the ladder does (attempt 0, run seed 0), and prints per suite
the success rate pooled over the seeds with its Wilson 95 % interval, and per seed.

With ``--version 5`` it builds repo v5 (issue 38: messages that give nothing away) and plays
v5's variants instead: the v5 learner (:class:`~.heuristic_v5.RepoV5HeuristicAgent`) with and
without its memory of the visible state graph, and every model-free rung with its knobs
(:mod:`~arena_gen.envs.repo.agents.climb`: the hill climb without naming or novelty, the
optimist; the v4 rungs).

Run: nice -n 10 python benchmarks/bench_ablation_repo.py [--seeds 7,11,12,13]
     [--suites lite,challenge] [--tasks-from DIR] (DIR: pickles written by an earlier run)
     [--version 5]
"""

from __future__ import annotations

import argparse
import pickle
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arena_gen.core.calibration import wilson
from arena_gen.core.episode import Episode
from arena_gen.envs.repo.agents.climb import RepoClimbAgent, RepoOptimistAgent
from arena_gen.envs.repo.agents.heuristic_v3 import RepoV3HeuristicAgent
from arena_gen.envs.repo.agents.heuristic_v5 import RepoV5HeuristicAgent
from arena_gen.envs.repo.agents.sweep import RepoNamedLoopAgent, RepoSweepAgent
from arena_gen.suite.build import build_suite

#: (name, kind, factory): the rung first, then one knob changed at a time.
VARIANTS: list[tuple[str, str, Callable[[], Any]]] = [
    ("heuristic (rung)", "inductive", RepoV3HeuristicAgent),
    ("align=off", "inductive", lambda: RepoV3HeuristicAgent(align="off")),
    ("align=step", "inductive", lambda: RepoV3HeuristicAgent(align="step")),
    ("align=step, importer first", "inductive",
     lambda: RepoV3HeuristicAgent(align="step", anchor_first=False)),
    ("depth=2", "inductive", lambda: RepoV3HeuristicAgent(depth=2)),
    ("depth=4", "inductive", lambda: RepoV3HeuristicAgent(depth=4)),
    ("blame=off", "inductive", lambda: RepoV3HeuristicAgent(blame=False)),
    ("revert first", "inductive", lambda: RepoV3HeuristicAgent(revert_first=True)),
    ("context=off", "inductive", lambda: RepoV3HeuristicAgent(context=False)),
    ("protect cures", "inductive", lambda: RepoV3HeuristicAgent(protect=True)),
    ("redo=0", "inductive", lambda: RepoV3HeuristicAgent(redo=0)),
    ("redo=2", "inductive", lambda: RepoV3HeuristicAgent(redo=2)),
    ("redo=8", "inductive", lambda: RepoV3HeuristicAgent(redo=8)),
    ("redo any cure", "inductive", lambda: RepoV3HeuristicAgent(redo_any=True)),
    ("forget cures", "inductive", lambda: RepoV3HeuristicAgent(forget_cures=True)),
    ("named_loop", "model_free", RepoNamedLoopAgent),
    ("sweep", "model_free", RepoSweepAgent),
]

#: repo v5's variants: the rung first, then its knobs, then every model-free rung.
V5_VARIANTS: list[tuple[str, str, Callable[[], Any]]] = [
    ("heuristic v5 (rung)", "inductive", RepoV5HeuristicAgent),
    ("no_repeat=off (the v4 learner)", "inductive",
     lambda: RepoV5HeuristicAgent(no_repeat=False)),
    ("depth=4", "inductive", lambda: RepoV5HeuristicAgent(depth=4)),
    ("blame=off", "inductive", lambda: RepoV5HeuristicAgent(blame=False)),
    ("climb (rung)", "model_free", RepoClimbAgent),
    ("climb, named_first=off", "model_free", lambda: RepoClimbAgent(named_first=False)),
    ("climb, novelty=off", "model_free", lambda: RepoClimbAgent(novelty=False)),
    ("climb, pairs=on", "model_free", lambda: RepoClimbAgent(pairs=True)),
    ("optimist (rung)", "model_free", RepoOptimistAgent),
    ("named_loop (rung)", "model_free", RepoNamedLoopAgent),
    ("sweep", "model_free", RepoSweepAgent),
]


def play(task: Any, agent: Any) -> bool:
    """One inductive attempt, as the ladder plays it."""
    episode = Episode(task, agent, mode="inductive", attempt=0, run_seed=0)
    while not episode.over:
        episode.step(agent.act(episode.obs), 0.0)
    return bool(episode.env.success)


def tasks_for(suite: str, seed: int, cache: Path | None, version: int = 4) -> list[Any]:
    """The built tasks of one suite, seed and repo version (read from ``cache`` when it holds
    them)."""
    name = f"{suite}-{seed}.pkl" if version == 4 else f"{suite}-{seed}-v{version}.pkl"
    path = cache / name if cache is not None else None
    if path is not None and path.is_file():
        return list(pickle.loads(path.read_bytes()))
    tasks = build_suite(suite, seed, ["repo"], versions={"repo": version},
                        jobs=1).tasks["repo"]
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(pickle.dumps(tasks))
    return tasks


def main(argv: list[str] | None = None) -> int:
    """Print the ablation table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--seeds", default="7,11,12,13")
    ap.add_argument("--suites", default="lite,challenge")
    ap.add_argument("--tasks-from", type=Path, default=None,
                    help="a folder of built-task pickles (written there when missing)")
    ap.add_argument("--version", type=int, default=4, choices=(4, 5))
    args = ap.parse_args(argv)
    variants = V5_VARIANTS if args.version == 5 else VARIANTS
    seeds = [int(s) for s in args.seeds.split(",")]
    suites = args.suites.split(",")
    start = time.perf_counter()
    table: dict[str, dict[str, list[int]]] = {}
    sizes: dict[str, int] = {}
    for suite in suites:
        for seed in seeds:
            tasks = tasks_for(suite, seed, args.tasks_from, args.version)
            sizes[suite] = sizes.get(suite, 0) + len(tasks)
            for name, _, factory in variants:
                wins = sum(play(t, factory()) for t in tasks)
                table.setdefault(name, {}).setdefault(suite, []).append(wins)
    per = {suite: sizes[suite] // len(seeds) for suite in suites}
    head = "| variant | kind | " + " | ".join(
        f"{s} pooled (95 % CI) | {s} per seed ({', '.join(map(str, seeds))})" for s in suites)
    print(head + " |")
    print("|" + "---|" * (2 + 2 * len(suites)))
    for name, kind, _ in variants:
        cells = []
        for suite in suites:
            wins = table[name][suite]
            lo, hi = wilson(sum(wins), sizes[suite])
            cells.append(f"{sum(wins) / sizes[suite]:.1%} ({lo:.0%}-{hi:.0%})")
            cells.append(", ".join(f"{w}/{per[suite]}" for w in wins))
        print(f"| {name} | {kind} | " + " | ".join(cells) + " |")
    print(f"\n{sum(sizes.values())} tasks, {time.perf_counter() - start:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
