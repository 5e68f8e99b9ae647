"""Certified detectability of energy's pattern shifts on the released suites (issue 39): per
task the certified minimum detection day of every shift, the heuristic rung's detection delay
over it, and the time to certify.

    python benchmarks/bench_detectability.py [--suites lite challenge-moderate challenge]
        [--no-witness] [--per-task]

For every energy task of each suite (read from ``suites/``, unchanged): ``certify`` (its CPU
seconds), then the ladder's ``heuristic`` rung (the CUSUM change-point learner) played as the
ladder plays it, recording the days it declares a shift. A shift's detection is the first
declaration after it, up to the next shift's day; the other declarations are false alarms; a
shift with no such declaration is missed (the episode may have collapsed before it). Where a
minimum is later than the day after the shift, the unshifted witness of the day before it
(``detectability.witness``) is played by the with-rules planner, the one acceptance check that
reads the rules text (``--no-witness`` skips it). A v7-v8 task (site worlds) is certified per
(site, shift) by ``detectability_v7.certify_sites`` and each site's shifts are matched with
that site's declarations (its CUSUM); its witness is ``detectability_v7.site_witness``.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time
from collections import Counter
from pathlib import Path
from typing import Any

from arena_gen.core import registry
from arena_gen.core.episode import Episode
from arena_gen.core.suite_io import read_suite
from arena_gen.core.task import Task
from arena_gen.envs.energy.detectability import ShiftBound, certify, declarations, witness
from arena_gen.envs.energy.detectability_v7 import certify_sites, site_declarations, site_witness
from arena_gen.envs.energy.sampler_v3 import rules_text_v3
from arena_gen.envs.energy.sampler_v7 import rules_text

ROOT = Path(__file__).resolve().parents[1]


def planner_solves(task: Task, world: dict[str, Any]) -> bool:
    """Whether the with-rules planner succeeds on ``task`` with ``world`` and its rules text."""
    text = rules_text(world) if "sites" in world else rules_text_v3(world)
    other = dataclasses.replace(task, world=world, rules_text=text)
    agent = registry.get("energy", task.env_version).load("planner")()
    episode = Episode(other, agent, mode="with-rules", attempt=0, run_seed=0)
    while not episode.over:
        episode.step(agent.act(episode.obs), 0.0)
    return bool(episode.env.success)


def detections(cert: list[ShiftBound], said: list[int], horizon: int
               ) -> tuple[list[int | None], int]:
    """Per shift its detection day (None: missed), and the count of false alarms."""
    ends = [c.day for c in cert[1:]] + [horizon] if cert else []
    found = [next((d for d in said if c.day < d <= end), None)
             for c, end in zip(cert, ends, strict=True)]
    return found, len(said) - sum(d is not None for d in found)


def certified(task: Task, bound: float | None) -> dict[str, list[ShiftBound]]:
    """The task's shifts with their minima, per site (v3-v6: one key, ``""``, for the world)."""
    if "sites" in task.world:
        return certify_sites(task.world, task.params, bound=bound)
    return {"": certify(task.world, task.params, bound=bound)}


def declared(task: Task) -> tuple[dict[str, list[int]], int]:
    """The heuristic rung's declaration days, per site as :func:`certified` keys them."""
    agent = registry.get("energy", task.env_version).load("heuristic")()
    if "sites" in task.world:
        return site_declarations(task, agent)
    said, played = declarations(task, agent)
    return {"": said}, played


def quartiles(values: list[int]) -> str:
    """Median and quartiles, as ``median [q1, q3]``."""
    if not values:
        return "-"
    if len(values) == 1:
        return f"{values[0]} [{values[0]}, {values[0]}]"
    q1, q2, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return f"{q2:g} [{q1:g}, {q3:g}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suites", nargs="+",
                        default=["lite", "challenge-moderate", "challenge"])
    parser.add_argument("--no-witness", action="store_true")
    parser.add_argument("--per-task", action="store_true")
    parser.add_argument("--bound", type=float, default=None,
                        help="a fixed deviation bound D (default: each world's own)")
    args = parser.parse_args()
    print("command: python benchmarks/bench_detectability.py --suites "
          + " ".join(args.suites) + (" --no-witness" if args.no_witness else "")
          + (" --per-task" if args.per_task else "")
          + (f" --bound {args.bound:g}" if args.bound is not None else ""))
    for suite in args.suites:
        tasks = read_suite(ROOT / "suites" / suite, envs=["energy"]).tasks["energy"]
        lags: Counter[int] = Counter()
        methods: Counter[str] = Counter()
        over: list[int] = []
        missed = unplayed = alarms = early = shifts = never = 0
        certify_s: list[float] = []
        play_s: list[float] = []
        witnesses: list[bool] = []
        for task in tasks:
            start = time.process_time()
            certs = certified(task, args.bound)
            certify_s.append(time.process_time() - start)
            start = time.process_time()
            said, played = declared(task)
            play_s.append(time.process_time() - start)
            for key, cert in certs.items():
                found, false = detections(cert, said[key], int(task.world["horizon"]))
                alarms += false
                shifts += len(cert)
                for c, day in zip(cert, found, strict=True):
                    if c.method == "never":
                        never += 1
                    else:
                        lags[c.delay] += 1
                    methods[c.method] += 1
                    if day is None and played < c.minimum:
                        unplayed += 1
                    elif day is None:
                        missed += 1
                    else:
                        over.append(day - c.minimum)
                        early += day < c.minimum
                    if c.minimum > c.day + 1 and not args.no_witness:
                        world = (site_witness if key else witness)(task.world, task.params, c)
                        witnesses.append(world is not None and planner_solves(task, world))
            if args.per_task:
                for key, cert in certs.items():
                    print(f"  {task.id}{' ' + key if key else ''}: shifts "
                          f"{[c.day for c in cert]}, minima {[c.minimum for c in cert]}")
        print(f"{suite}: {len(tasks)} tasks (v{tasks[0].env_version}), {shifts} shifts")
        if shifts:
            print("  certified minimum delay (d* - shift day): "
                  + ", ".join(f"{k} day{'s' if k > 1 else ''}: {n}"
                              for k, n in sorted(lags.items()))
                  + (f", never within the horizon: {never}" if never else "")
                  + f"; decided by {dict(sorted(methods.items()))}")
            print(f"  heuristic: detected {len(over)}, missed {missed}, episode over before the "
                  f"minimum {unplayed}; delay over the minimum "
                  f"median [quartiles] {quartiles(over)} days, max {max(over, default=0)}, on it "
                  f"{sum(x == 0 for x in over)}; "
                  f"declared before the minimum {early}")
        print(f"  heuristic false alarms {alarms}")
        if witnesses:
            print(f"  witnesses of minima later than the next day: {sum(witnesses)} of "
                  f"{len(witnesses)} solved by the with-rules planner")
        print(f"  CPU seconds: certify median {statistics.median(certify_s):.4f}, max "
              f"{max(certify_s):.4f} per task; heuristic episode median "
              f"{statistics.median(play_s):.2f}, total {sum(play_s):.1f}; certify / episode "
              f"{sum(certify_s) / sum(play_s):.4f}")


if __name__ == "__main__":
    main()
