"""What knowledge curves cost a build, and what they say: a Lite build with each env's
newest version at its own ladder format, or moved to format 3 (every rung's attempt answers
the world-model probes at each milestone), and the pooled curve of every rung.

    python benchmarks/bench_probes.py --ladder 3 [--env lights] [--suite lite] [--seed 7]
                                      [--count N]

It prints the build's wall seconds and, with ``--ladder 3``, per env and rung the probe
accuracy pooled over every task and attempt at each milestone (25/50/75/100 % of the budget;
a milestone after the episode's end is asked at its end). Time two runs side by side with
any process timer (``/usr/bin/time -v``) to get the ratio; the suite bytes other than the
ladder's ``probes`` are the same.
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from collections import defaultdict

from arena_gen.core import registry
from arena_gen.suite.build import build_suite


def _move_to(ladder: int, envs: list[str]) -> None:
    """Re-register each env's newest version with ladder format ``ladder`` (this process)."""
    for env in envs:
        spec = registry.get(env)
        if spec.ladder_version != ladder:
            registry.unregister(env, spec.version)
            registry.register(dataclasses.replace(spec, ladder_version=ladder))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ladder", type=int, choices=(2, 3), default=3)
    parser.add_argument("--env", action="append", help="env(s) to build (default: all)")
    parser.add_argument("--suite", default="lite")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--count", type=int, help="tasks per env (default: the preset's)")
    args = parser.parse_args()
    envs = args.env or registry.suite_envs(args.suite)
    _move_to(args.ladder, envs)
    start = time.perf_counter()
    counts = {env: args.count for env in envs} if args.count else None
    result = build_suite(args.suite, args.seed, envs, jobs=1, counts=counts)
    print(f"build {args.suite} seed {args.seed} {','.join(envs)} ladder {args.ladder}: "
          f"{time.perf_counter() - start:.1f} s")
    curves: dict[tuple[str, str], list[list[int]]] = defaultdict(list)
    for task in (t for ts in result.tasks.values() for t in ts):
        for rung, record in task.certificate.facts.get("ladder", {}).items():
            for attempt in record["results"]:
                for m, point in enumerate(attempt.get("probes", [])):
                    acc = curves[(task.env, rung)]
                    while len(acc) <= m:
                        acc.append([0, 0])
                    acc[m][0] += point["correct"]
                    acc[m][1] += point["asked"]
    for (env, rung), acc in sorted(curves.items()):
        shown = " ".join(f"{c / a:.3f}" for c, a in acc)
        print(f"{env:8} {rung:16} {shown}  ({acc[0][1]} probes a milestone)")


if __name__ == "__main__":
    main()
