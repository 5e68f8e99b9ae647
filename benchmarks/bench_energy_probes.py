"""Energy v5's probes against v4's on the released Lite worlds: what drawing them costs, how
many are dispatch questions, and the ladder's knowledge curves on v5.

    python benchmarks/bench_energy_probes.py [--tasks 30] [--attempts 3] [--no-ladder]

Draw cost: at each milestone state of each task's witness, attempts 0..A-1, v4's and v5's
draws alternate in one process (so shared load falls on both alike); it prints the CPU
seconds of each and their ratio. Knowledge curves: every rung of the format-3 ladder played
on the tasks labelled version 5 (the same worlds), accuracy pooled over tasks and attempts at
25 / 50 / 75 / 100 % of the budget. The guessers' scores are the test's
(``tests/test_probe_guessers.py``).
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from collections import Counter, defaultdict
from pathlib import Path

from arena_gen.core import registry
from arena_gen.core.probes import draw, milestone_turns
from arena_gen.core.suite_io import read_suite
from arena_gen.envs.energy.game_v1 import EnergyGame
from arena_gen.envs.energy.game_v5 import EnergyGameV5
from arena_gen.suite import ladder

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=30)
    parser.add_argument("--attempts", type=int, default=3)
    parser.add_argument("--no-ladder", action="store_true")
    args = parser.parse_args()
    tasks = read_suite(ROOT / "suites" / "lite", envs=["energy"]).tasks["energy"][:args.tasks]
    seconds: Counter[str] = Counter()
    kinds: dict[str, Counter[str]] = defaultdict(Counter)
    for task in tasks:
        games = {"v4": EnergyGame(task), "v5": EnergyGameV5(task)}
        game = games["v4"]
        state = game.initial()
        visited = [state]
        for action in task.certificate.witness:
            state = game.act(state, action)[0]
            visited.append(state)
        for m, turn in enumerate(milestone_turns(task.budget)):
            at = visited[min(turn, len(visited) - 1)]
            for attempt in range(args.attempts):
                for name, played in games.items():
                    start = time.process_time()
                    probes = draw(played, at, visited, task.sha256, attempt, m)
                    seconds[name] += time.process_time() - start
                    kinds[name].update(p.kind for p in probes)
    draws = len(tasks) * len(milestone_turns(tasks[0].budget)) * args.attempts
    print(f"draws: {draws} per version ({len(tasks)} Lite tasks x 4 milestones x "
          f"{args.attempts} attempts)")
    for name in ("v4", "v5"):
        total = sum(kinds[name].values())
        print(f"  {name}: {seconds[name]:.2f} CPU s ({1000 * seconds[name] / draws:.1f} ms a "
              f"draw), dispatch_ok {kinds[name]['dispatch_ok'] / total:.1%} of the probes")
    print(f"  v5 / v4 CPU: {seconds['v5'] / seconds['v4']:.2f}")
    if args.no_ladder:
        return
    spec = registry.get("energy", 5)
    cal = spec.load("calibration")["lite"]
    curves: dict[str, list[list[int]]] = defaultdict(list)
    for task in tasks:
        v5 = dataclasses.replace(task, env_version=5)
        for rung, record in ladder.climb(v5, cal).items():
            for result in record["results"]:
                for m, point in enumerate(result.get("probes", [])):
                    acc = curves[rung]
                    while len(acc) <= m:
                        acc.append([0, 0])
                    acc[m][0] += point["correct"]
                    acc[m][1] += point["asked"]
    print("knowledge curves on v5 (accuracy % at 25/50/75/100 % of the budget):")
    for rung, acc in sorted(curves.items()):
        print(f"  {rung:14s} " + " ".join(f"{100 * c / n:5.1f}" for c, n in acc))


if __name__ == "__main__":
    main()
