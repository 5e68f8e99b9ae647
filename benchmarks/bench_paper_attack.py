"""Attack on the paper-scale lights Challenge (issue 42's rule): a stronger prior-aware learner.

    python benchmarks/bench_paper_attack.py [--seeds 41..43] [--lift 20000]

The ladder's inductive rung on lights v5 (``LightsChainLearnerAgent``) already knows the
generator's law; it grows one hidden order at a time, trying about half the unknown bulbs per
position. This baseline (``ParallelChainLearner``, now lights v6's ``parallel`` rung) uses the law
further: it holds every unfinished order at its frontier at once (its last bulb on, the three
before it off), so one pass over the unknown bulbs finds the next bulb of every order (each
undone as found and turned on again after the pass, so a pass finds only next bulbs), and
tells which order a found bulb extends by walking the orders one at a time to a state the
order passes through anyway and in which its next bulb refuses, then toggling the found
bulbs: the one that refuses is that order's. An order shorter than the smallest part walks to
its next frontier (its last bulb off); one that may be complete keeps its last bulb on and
turns on the two before it, a state both its next frontier and its all-on state are reached
through, so no walk is wasted on a complete order. An order at the largest part size is
complete without a pass. Its exploration costs about one pass over the unknown bulbs per
position, not one per order and position; its walking is the chain learner's.

For each seed it generates the lights v5 Challenge tasks (as ``build --suite challenge
--versions lights=5`` does, task by task) and plays both learners, budget as built and with the
budget lifted to ``--lift`` turns (their turns and refused toggles when they finish), then
prints the tasks each lights, pooled with Wilson 95 % intervals, and whether this baseline
beats the ladder's rung by more than 15 points.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
import time
from statistics import median
from typing import Any

from bench_paper_ladder import seed_list

from arena_gen.core.calibration import wilson
from arena_gen.envs.lights.agents.chains import LightsChainLearnerAgent
from arena_gen.envs.lights.agents.parallel import ParallelChainLearner
from arena_gen.suite.build import generate_task
from arena_gen.suite.catalog import preset
from arena_gen.suite.ladder import _attempt


class _Counting:
    """A learner wrapped to count the toggles the env refused."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.refused = inner, 0
        self.name, self.privileged = inner.name, False

    def reset(self, view: Any, mode: str, rng: Any) -> None:
        self.inner.reset(view, mode, rng)

    def act(self, observation: str) -> str:
        self.refused += "remains inactive" in observation
        return str(self.inner.act(observation))

    def answer_probes(self, probes: Any) -> list[str]:
        return list(self.inner.answer_probes(probes))


def sign_test(a: int, b: int) -> float:
    """Exact two-sided sign test of ``a`` against ``b`` discordant pairs."""
    n, k = a + b, min(a, b)
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n) if n else 1.0


def main() -> int:
    """Play both learners on each seed's lights v5 Challenge tasks and compare."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", nargs="+", default=["41..43"])
    parser.add_argument("--lift", type=int, default=20_000)
    args = parser.parse_args()
    config = preset("challenge", "lights", 5)
    sizes = (int(config["part_size"][0]), int(config["part_size"][1]))
    learners = {"chain (ladder)": LightsChainLearnerAgent,
                "parallel (attack)": lambda: ParallelChainLearner(sizes)}
    solved: dict[str, list[int]] = {name: [] for name in learners}
    turns: dict[str, list[int]] = {name: [] for name in learners}
    start, budget, agree = time.perf_counter(), 0, 0
    print("| task | min | " + " | ".join(f"{n}: lit, turns lifted (refused)" for n in learners)
          + " |")
    print("|---|---|" + "---|" * len(learners))
    for seed in seed_list(args.seeds):
        for index in range(int(config["count"])):
            task = generate_task("lights", "challenge", seed, index, version=5).task
            budget = task.budget
            cells = []
            for name, make in learners.items():
                won = _attempt(task, make(), "inductive", 0)["success"]
                agent = _Counting(make())
                lifted = _attempt(dataclasses.replace(task, budget=args.lift), agent,
                                  "inductive", 0)
                if name == "chain (ladder)":  # the certificate's rung, played again
                    agree += won == (task.certificate.facts["ladder"]["heuristic"]
                                     ["successes"] > 0)
                solved[name].append(int(won))
                turns[name].append(int(lifted["steps"]))
                cells.append(f"{'yes' if won else 'no'}, {lifted['steps']} ({agent.refused})")
            print(f"| {task.id} | {task.certificate.min_steps} | " + " | ".join(cells) + " |",
                  flush=True)
    print(f"\nseeds {' '.join(args.seeds)}, {time.perf_counter() - start:.0f} s; the ladder's "
          f"rung agrees with the certificates on {agree} of {len(solved['chain (ladder)'])} "
          f"tasks; budget as built ({budget:,}), tasks lit:")
    for name, wins in solved.items():
        lo, hi = wilson(sum(wins), len(wins))
        print(f"  {name:18s} {sum(wins)}/{len(wins)} = {sum(wins) / len(wins):.0%} "
              f"[{lo:.0%}-{hi:.0%}]; turns with the budget lifted: median "
              f"{median(turns[name]):.0f}, range {min(turns[name])}-{max(turns[name])}")
    names = list(learners)
    only = [sum(a > b for a, b in zip(solved[x], solved[y], strict=True))
            for x, y in ((names[1], names[0]), (names[0], names[1]))]
    print(f"paired: lit by the attack only {only[0]}, by the ladder's rung only {only[1]} "
          f"(exact two-sided sign test p = {sign_test(*only):.2g})")
    gap = (sum(solved[names[1]]) - sum(solved[names[0]])) / len(solved[names[0]])
    print(f"difference {100 * gap:+.0f} points: "
          f"{'beats' if gap > 0.15 else 'does not beat'} the ladder's rung by > 15 points")
    return 0


if __name__ == "__main__":
    sys.exit(main())
