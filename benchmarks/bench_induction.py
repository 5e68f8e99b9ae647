"""Lights: the prior-aware learner (knows the generator, not the world) against the heuristic rung.

Plays both agents through the game on the state line they observe (agent rng seeded 0) on the
released Lite tasks of seed 7 (``suites/lite/lights.jsonl``) and on Lite tasks of further seeds
drawn as ``build`` draws them (sample, verify, accept; out of sample: the learner was written
without looking at them), and prints per agent the success rate with its Wilson 95 % interval,
the mean turns on solved tasks, the mean turns on the tasks both solved, and seconds per
episode. The heuristic rung is lights v3's (the version-space learner, the released ladder's);
the prior-aware learner is on no ladder.

With ``--classes`` it prints instead the exact small classes of ``docs/induction.md``: per
class its worlds, W*, E*, the told mean T, the optimal success probability P* (fixed-horizon
envs), belief nodes and seconds; and on the lights classes, each learner's expected and
worst-case turns over the class's worlds (played deterministically, weighted by the prior),
against E* and W*.

    python benchmarks/bench_induction.py                      # seed 7's released Lite
    python benchmarks/bench_induction.py --seeds 11 12 --count 30
    python benchmarks/bench_induction.py --classes
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import binomtest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena_gen.core.agent import TaskView  # noqa: E402
from arena_gen.core.calibration import wilson  # noqa: E402
from arena_gen.core.game import WorldView  # noqa: E402
from arena_gen.core.induction import solve  # noqa: E402
from arena_gen.core.induction_games import GameClass, solve_games  # noqa: E402
from arena_gen.core.seeds import attempt_seed, task_seed  # noqa: E402
from arena_gen.envs.energy.induction import energy_class  # noqa: E402
from arena_gen.envs.lights import V3  # noqa: E402
from arena_gen.envs.lights.agents.prior import (  # noqa: E402
    LightsPosteriorSamplingAgent,
    LightsPriorAgent,
)
from arena_gen.envs.lights.agents.version_space import LightsVersionSpaceAgent  # noqa: E402
from arena_gen.envs.lights.game_v1 import LightsGame, Rules, state_line  # noqa: E402
from arena_gen.envs.lights.induction import lights_class  # noqa: E402
from arena_gen.envs.lights.sampler import accept, sample  # noqa: E402
from arena_gen.envs.lights.sampler_v3 import PRESETS  # noqa: E402
from arena_gen.envs.lights.verify import verify  # noqa: E402
from arena_gen.envs.repo.induction import repo_class  # noqa: E402
from arena_gen.envs.trading.induction import trading_class  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
AGENTS: dict[str, Callable[[], Any]] = {
    "heuristic (version space, v3 ladder)": LightsVersionSpaceAgent,
    "prior_aware (generator's posterior)": LightsPriorAgent,
    "posterior_sampling (same posterior, one drawn world)": LightsPosteriorSamplingAgent,
}
Task = tuple[dict[str, Any], dict[str, Any], int, int]  # world, public, budget, min_steps


def released(count: int | None) -> list[Task]:
    """Seed 7's released Lite lights tasks (the first ``count``)."""
    lines = (ROOT / "suites" / "lite" / "lights.jsonl").read_text().splitlines()
    tasks = [json.loads(line) for line in lines if line.strip()]
    if any(t["env_version"] != V3.version for t in tasks):
        raise SystemExit("suites/lite/lights.jsonl is no longer lights v3: update this script")
    return [(t["world"], t["public"], int(t["budget"]), int(t["certificate"]["min_steps"]))
            for t in tasks[:count]]


def drawn(seed: int, count: int | None) -> list[Task]:
    """Lite tasks of ``seed`` as ``build`` draws them (no ladder)."""
    config = PRESETS["lite"]
    out = []
    for i in range(config.count if count is None else count):
        root = task_seed(seed, "lite", V3.code, i)
        for a in range(config.max_attempts):
            draft = sample(config, attempt_seed(root, a))
            cert = verify(draft)
            if accept(draft, cert) is None:
                out.append((draft.world, draft.public, draft.budget, int(cert.min_steps or 0)))
                break
    return out


def play(task: Task, agent: Any) -> int | None:
    """Turns to light every bulb within the budget (None: not within it)."""
    world, public, budget, _ = task
    rules = Rules(world)
    view = TaskView(task_id="bench", env="lights", budget=budget, public=public,
                    env_version=V3.version)
    agent.reset(view, "inductive", np.random.default_rng(0))
    state = 0
    for turn in range(1, budget + 1):
        state = rules.step(state, int(agent.act(f"State: {state_line(state, rules.n)}")))
        if state == rules.goal:
            return turn
    return None


#: Per table, per agent: (solved, tasks, solved by it alone, by the heuristic alone) against
#: the heuristic rung, for the pooled lines.
pooled: dict[str, dict[str, tuple[int, int, int, int]]] = {}


def report(label: str, tasks: list[Task]) -> None:
    """One table: per agent, success, turns and time."""
    steps: dict[str, list[int | None]] = {}
    seconds: dict[str, float] = {}
    for name, factory in AGENTS.items():
        start = time.perf_counter()
        steps[name] = [play(t, factory()) for t in tasks]
        seconds[name] = (time.perf_counter() - start) / max(1, len(tasks))
    first = next(iter(AGENTS))
    print(f"\n{label}: {len(tasks)} tasks (mean exact minimum "
          f"{np.mean([t[3] for t in tasks]):.1f})")
    print("| agent | solved | mean turns (solved) | turns vs the heuristic on tasks both solved "
          "| s/episode |")
    print("|---|---|---:|---:|---:|")
    for name in AGENTS:
        won = [s for s in steps[name] if s is not None]
        lo, hi = wilson(len(won), len(tasks))
        both = [i for i, (a, b) in enumerate(zip(steps[first], steps[name], strict=True))
                if a is not None and b is not None]
        pair = (f"{np.mean([steps[name][i] for i in both]):.1f} vs "
                f"{np.mean([steps[first][i] for i in both]):.1f} ({len(both)} tasks)"
                if both else "-")
        print(f"| {name} | {len(won)}/{len(tasks)} {len(won) / len(tasks):.0%} "
              f"[{lo:.0%}-{hi:.0%}] | {f'{np.mean(won):.1f}' if won else '-'} | {pair} | "
              f"{seconds[name]:.2f} |")
    pooled[label] = {name: (sum(s is not None for s in steps[name]), len(tasks),
                            sum(a is None and b is not None
                                for a, b in zip(steps[first], steps[name], strict=True)),
                            sum(a is not None and b is None
                                for a, b in zip(steps[first], steps[name], strict=True)))
                     for name in AGENTS}


def _turns(world: dict[str, Any], agent: Any, budget: int) -> float:
    """Turns the agent takes to light ``world`` (inf: not within ``budget``)."""
    game = LightsGame(WorldView(world=world))
    state = game.initial()
    for turn in range(1, budget + 1):
        state, _event = game.step(state, game.parse(agent.act(game.render(state))))
        if game.success(state):
            return float(turn)
    return float("inf")


def lights_classes() -> None:
    """Exact lights classes: W*, E*, and each learner's expected and worst turns on them."""
    names = " | ".join(f"{name.split()[0]} E / W" for name in AGENTS)
    print(f"| lights class | behaviours | W* | E* | T | {names} | nodes | s |")
    print("|---|---:|---:|---:|---:|" + "---:|" * len(AGENTS) + "---:|---:|")
    for n, lits, floor, horizon in ((2, 1, 1, 40), (3, 1, 2, 40), (3, 2, 2, 40)):
        cls = lights_class(n, max_literals=lits, min_len=floor, budget=horizon, p_not=0.55,
                           p_and=0.6)
        start = time.perf_counter()
        got = solve(cls.world_class(), horizon)
        seconds = time.perf_counter() - start
        total = sum(cls.weights)
        cells = []
        for factory in AGENTS.values():
            turns = []
            for world in cls.worlds:
                agent = factory()
                agent.reset(TaskView(task_id="bench", env="lights", budget=horizon,
                                     public={"n": n}, env_version=V3.version), "inductive",
                            np.random.default_rng(0))
                if isinstance(agent, LightsPriorAgent):
                    agent.start(n, (lits, 0.55, 0.6))  # this class's generator
                turns.append(_turns(world, agent, horizon))
            mean = sum(w * t for w, t in zip(cls.weights, turns, strict=True)) / total
            cells.append(f"{mean:.3f} / {max(turns):.0f}")
        print(f"| N {n}, {lits} literal(s), floor {floor} | {len(cls.worlds)} | {got.worst:.0f} "
              f"| {got.expected:.3f} | {got.told:.3f} | {' | '.join(cells)} | {got.nodes:,} "
              f"| {seconds:.1f} |")


def game_classes() -> None:
    """Exact repo, trading and energy classes (sampled: see each env's induction module)."""
    print("\n| class | worlds | W* | E* | T | P* | P* told | nodes | s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    rows: list[tuple[str, GameClass, int]] = [
        ("repo v4, 2 packages x 2 versions, 200 draws (seed 39)",
         repo_class(200, 39).game_class(), 20),
        ("repo v4, 3 packages x 2 versions, 400 draws (seed 39)",
         repo_class(400, 39, packages=3).game_class(), 20),
        ("trading v4, 2 stocks, 1 factor, 3 days (seed 1)", trading_class(300, 1).game_class(), 3),
        ("trading v4, 2 stocks, 1 factor, 3 days (seed 3)", trading_class(300, 3).game_class(), 3),
        ("energy v3, 3 days (seed 3)", energy_class(40, 3).game_class(), 3),
        ("energy v3, 3 days (seed 4)", energy_class(40, 4).game_class(), 3),
    ]
    for label, cls, horizon in rows:
        start = time.perf_counter()
        got = solve_games(cls, horizon, seconds=300)
        seconds = time.perf_counter() - start
        alone = [solve_games(GameClass(games=[g], weights=[1.0], actions=cls.actions,
                                       key=cls.key), horizon).success for g in cls.games]
        print(f"| {label} | {len(cls.games)} | {got.worst:g} | {got.expected:.3f} | "
              f"{got.told:.3f} | {got.success:.3f} | {np.mean(alone):.3f} | {got.nodes:,} | "
              f"{seconds:.1f} |")


def main() -> None:
    """Print the tables for seed 7's released Lite and the given out-of-sample seeds."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="*", default=[],
                        help="out-of-sample Lite seeds, drawn as build draws them")
    parser.add_argument("--count", type=int, default=None, help="tasks per seed (default: all)")
    parser.add_argument("--classes", action="store_true",
                        help="print the exact small classes instead")
    args = parser.parse_args()
    start = time.perf_counter()
    if args.classes:
        lights_classes()
        game_classes()
        print(f"\n{time.perf_counter() - start:.0f} s; command: python "
              f"benchmarks/bench_induction.py --classes")
        return
    report("lights v3 Lite, seed 7 (released)", released(args.count))
    for seed in args.seeds:
        report(f"lights v3 Lite, seed {seed} (out of sample)", drawn(seed, args.count))
    if args.seeds:
        print("\nout of sample, pooled (tasks solved by it alone / by the heuristic alone, "
              "exact two-sided sign test on them):")
        for name in AGENTS:
            won, total, mine, theirs = (sum(pooled[t][name][i] for t in pooled
                                            if "out of sample" in t) for i in range(4))
            lo, hi = wilson(won, total)
            sign = binomtest(mine, mine + theirs).pvalue if mine + theirs else 1.0
            print(f"- {name}: {won}/{total} {won / total:.0%} [{lo:.0%}-{hi:.0%}]; alone "
                  f"{mine} / {theirs}, p = {sign:.3f}")
    print(f"\n{time.perf_counter() - start:.0f} s; command: python benchmarks/bench_induction.py "
          + " ".join(sys.argv[1:]))


if __name__ == "__main__":
    main()
