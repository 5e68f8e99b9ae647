"""What a game's probe drawing costs alone: the draws of a scripted run, replayed and timed.

A run with ``--probes`` draws each milestone's questions from the state it reached
(:func:`arena_gen.core.probes.draw`); ``bench_probe_runs.py --parts`` reports their CPU seconds
inside whole runs, where the run's other work and the machine's load blur them. Here the draws
of one run (its states, visited states and probe keys) are recorded once, then replayed on
fresh games (one per task, as an episode has, so each draw's per-game tables start as a run's
do) ``--rounds`` times; the median CPU seconds of a round, and a digest of every question with
its answer (equal digests: the same questions), are printed per env.

Reproduce: ``python benchmarks/bench_probe_draws.py [--suite lite] [--envs repo]
[--agent heuristic] [--rounds 5] [--per-milestone 8]`` from the repository root.
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from arena_gen.core import episode, registry
from arena_gen.core.canon import canonical_json
from arena_gen.core.probes import PROBES_PER_MILESTONE, draw, offers_probes
from arena_gen.core.suite_io import read_suite
from arena_gen.core.task import Task
from arena_gen.runner.run import RunConfig, run_suite


def recorded_draws(suite: str, env: str, agent: str, per_milestone: int, out: Path
                   ) -> list[tuple[Any, ...]]:
    """Every draw of one run with probes: (task, state, visited, key, attempt, milestone,
    count), in the order the run drew them."""
    calls: list[tuple[Any, ...]] = []
    playing: list[Task] = []
    original_draw, original_init = episode.draw, episode.Episode.__init__

    def init(self: Any, task: Task, *args: Any, **kwargs: Any) -> None:
        playing[:] = [task]
        original_init(self, task, *args, **kwargs)

    def kept(game: Any, state: Any, visited: Any, key: str, attempt: int, milestone: int,
             count: int) -> Any:
        calls.append((playing[0], state, list(visited), key, attempt, milestone, count))
        return original_draw(game, state, visited, key, attempt, milestone, count)

    # the episode module's names (what a run calls), patched while the run plays
    patched = [(episode, "draw", kept, original_draw),
               (episode.Episode, "__init__", init, original_init)]
    for owner, name, ours, _ in patched:
        setattr(owner, name, ours)
    try:
        run_suite(RunConfig(suite=suite, agent=agent, envs=[env], out=str(out),
                            probes=per_milestone))
    finally:
        for owner, name, _, theirs in patched:
            setattr(owner, name, theirs)
    return calls


def replay(calls: list[tuple[Any, ...]]) -> tuple[float, str]:
    """CPU seconds of drawing every recorded milestone again on fresh games, and the digest of
    the questions with their answers."""
    games: dict[str, Any] = {}
    seconds, drawn = 0.0, []
    for task, state, visited, key, attempt, milestone, count in calls:
        game = games.get(task.id)
        if game is None:
            game = games[task.id] = registry.make_game(task)
        start = time.process_time()
        probes = draw(game, state, visited, key, attempt, milestone, count)
        seconds += time.process_time() - start
        drawn.append([{**p.to_dict(), "answer": game.probe_answer(state, p)} for p in probes])
    return seconds, hashlib.sha256(canonical_json(drawn).encode("utf-8")).hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--suite", default="lite")
    parser.add_argument("--envs", default="repo", help="comma-separated")
    parser.add_argument("--agent", default="heuristic")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--per-milestone", type=int, default=PROBES_PER_MILESTONE)
    args = parser.parse_args()
    envs = args.envs.split(",")
    suite = read_suite(args.suite, envs=envs)
    print(f"command: python benchmarks/bench_probe_draws.py --suite {args.suite} --envs "
          f"{args.envs} --agent {args.agent} --rounds {args.rounds} --per-milestone "
          f"{args.per_milestone}")
    print(f"{'env':<9}{'draws':>6}{'median s':>10}{'min s':>8}  rounds (CPU s) | questions digest")
    with tempfile.TemporaryDirectory() as tmp:
        for env in envs:
            if not offers_probes(registry.make_game(suite.tasks[env][0])):
                continue
            calls = recorded_draws(args.suite, env, args.agent, args.per_milestone,
                                   Path(tmp) / env)
            rounds = [replay(calls) for _ in range(args.rounds + 1)][1:]  # first one warms
            digests = {digest for _, digest in rounds}
            assert len(digests) == 1, "a replay drew other questions"
            times = [s for s, _ in rounds]
            print(f"{env:<9}{len(calls):>6}{statistics.median(times):>10.3f}{min(times):>8.3f}"
                  f"  " + " ".join(f"{s:.3f}" for s in times) + f" | {digests.pop()[:16]}",
                  flush=True)


if __name__ == "__main__":
    main()
