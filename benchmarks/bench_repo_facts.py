"""Repo's text env on error-driven repair sequences: the facts' per-script status remembered
per configuration (``RepoGameV2.scripts_ok``) against recomputing it every step (#41).

The sequences are the repo heuristic's (error-driven repair) actions on every repo task of the
released suites named; each pass plays them through fresh text envs (cold memos), the two
variants alternating round by round in one process, and every step's output is compared
first. Prints CPU steps/s of each variant and the median within-round ratio.

    python benchmarks/bench_repo_facts.py [--suites odyssey-lite,lite] [--repeat 5] [--quick]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any

from arena_gen.core import registry
from arena_gen.core.episode import run_episode
from arena_gen.core.suite_io import read_suite
from arena_gen.envs.repo.game_v2 import RepoGameV2

REMEMBERED = RepoGameV2.scripts_ok


def recomputed(self: RepoGameV2, installed: tuple[int, ...]) -> dict[str, bool]:
    """The status as computed before the memo: every script, every step."""
    return {p: self.script_failure(installed, p) is None for p in self.rules.entrypoints}


def sequences(suite: str) -> list[tuple[Any, list[str]]]:
    """Each repo task of ``suite`` with the heuristic's actions on it."""
    out = []
    for task in read_suite(suite, envs=["repo"]).tasks["repo"]:
        record = run_episode(task, registry.for_task(task).load("heuristic")())
        out.append((task, [turn["action"] for turn in record["turns"]]))
    return out


def play(seqs: list[tuple[Any, list[str]]], trace: bool = False) -> tuple[float, list[str]]:
    """CPU seconds of one pass through fresh envs, and every step's output when ``trace``."""
    envs = [(registry.for_task(task).make(task), actions) for task, actions in seqs]
    start, out = time.process_time(), []
    for env, actions in envs:
        env.reset()
        for action in actions:
            step = env.step(action)
            if trace:
                out.append(json.dumps(step, sort_keys=True, default=str))
    return time.process_time() - start, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suites", default="odyssey-lite,lite")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="odyssey-lite, 2 rounds")
    args = parser.parse_args()
    if args.quick:
        args.suites, args.repeat = "odyssey-lite", 2
    for suite in args.suites.split(","):
        seqs = sequences(suite)
        texts = sum(len(actions) for _, actions in seqs)
        RepoGameV2.scripts_ok = recomputed  # type: ignore[method-assign]
        before = play(seqs, trace=True)[1]
        RepoGameV2.scripts_ok = REMEMBERED  # type: ignore[method-assign]
        assert play(seqs, trace=True)[1] == before, f"{suite}: outputs differ"
        ratios, rates = [], []
        for _ in range(args.repeat):
            RepoGameV2.scripts_ok = recomputed  # type: ignore[method-assign]
            old = play(seqs)[0]
            RepoGameV2.scripts_ok = REMEMBERED  # type: ignore[method-assign]
            new = play(seqs)[0]
            ratios.append(old / new)
            rates.append((texts / old, texts / new))
        print(f"{suite}: {texts} texts, outputs identical; CPU steps/s recomputed "
              f"{statistics.median(r[0] for r in rates):,.0f}, remembered "
              f"{statistics.median(r[1] for r in rates):,.0f}; ratio median "
              f"{statistics.median(ratios):.2f} (rounds {', '.join(f'{r:.2f}' for r in ratios)})")


if __name__ == "__main__":
    main()
