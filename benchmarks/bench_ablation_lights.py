"""Lights v3: the model-free sweep against the version-space learner and its ablation variants.

Builds lights v3 tasks of the given suite and seeds the way ``build`` draws them (sample, verify,
accept; the ladder's per-task random/planner filters are not applied), plays every agent through
the game on the state line it observes (agent rng seeded 0), and prints each agent's success
rate per seed and pooled, with Wilson 95 % intervals, and the pooled margin of the best inductive
agent over the best model-free one (#25's target on Lite: >= 15 points). Every task of both
suites has at most 12 bulbs, so every version-space variant plays its own version space (above
``max_exact_n`` it would play the v2 decision-list learner, whose episodes are then reused).

    python benchmarks/bench_ablation_lights.py --suite lite --seeds 7 11 12 13
    python benchmarks/bench_ablation_lights.py --suite challenge --seeds 11 12 13
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena_gen.core.agent import TaskView  # noqa: E402
from arena_gen.core.calibration import wilson  # noqa: E402
from arena_gen.core.seeds import attempt_seed, task_seed  # noqa: E402
from arena_gen.core.task import Certificate, Draft  # noqa: E402
from arena_gen.envs.lights import V3  # noqa: E402
from arena_gen.envs.lights.agents.learner import LightsLearnerAgent  # noqa: E402
from arena_gen.envs.lights.agents.sweep import LightsSweepAgent  # noqa: E402
from arena_gen.envs.lights.agents.variants import (  # noqa: E402
    LightsSweepExploreAgent,
    LightsTieBreakAgent,
    LightsVersionSpaceK2Agent,
    LightsVersionSpaceRisk0Agent,
    LightsVersionSpaceRisk2Agent,
    LightsVersionSpaceRiskHalfAgent,
    LightsVersionSpaceUniformAgent,
)
from arena_gen.envs.lights.agents.version_space import LightsVersionSpaceAgent  # noqa: E402
from arena_gen.envs.lights.game_v1 import Rules, state_line  # noqa: E402
from arena_gen.envs.lights.sampler import accept, sample  # noqa: E402
from arena_gen.envs.lights.sampler_v3 import PRESETS  # noqa: E402
from arena_gen.envs.lights.verify import verify  # noqa: E402

#: name -> (kind, factory); the first inductive one is the ladder's heuristic rung.
AGENTS: dict[str, tuple[str, Callable[[], Any]]] = {
    "sweep": ("model_free", LightsSweepAgent),
    "heuristic: version space, risk 1": ("inductive", LightsVersionSpaceAgent),
    "vs risk 0 (optimistic)": ("inductive", LightsVersionSpaceRisk0Agent),
    "vs risk 0.5": ("inductive", LightsVersionSpaceRiskHalfAgent),
    "vs risk 2": ("inductive", LightsVersionSpaceRisk2Agent),
    "vs uniform prior": ("inductive", LightsVersionSpaceUniformAgent),
    "vs assumes 2 literals": ("inductive", LightsVersionSpaceK2Agent),
    "v2 decision-list learner": ("inductive", LightsLearnerAgent),
    "v2 learner, tie-break to cheapest test": ("inductive", LightsTieBreakAgent),
    "v2 learner, sweep-walk exploration": ("inductive", LightsSweepExploreAgent),
}
FALLBACK = "v2 decision-list learner"


def build(suite: str, seed: int, count: int | None) -> list[tuple[Draft, Certificate]]:
    """The accepted (draft, certificate) of each task, as ``build`` draws them (no ladder)."""
    config = PRESETS[suite]
    out = []
    for i in range(config.count if count is None else count):
        root = task_seed(seed, suite, V3.code, i)
        for a in range(config.max_attempts):
            draft = sample(config, attempt_seed(root, a))
            cert = verify(draft)
            if accept(draft, cert) is None:
                out.append((draft, cert))
                break
    return out


def play(draft: Draft, agent: Any) -> bool:
    """One episode on the observed state line; True when every bulb is lit within the budget."""
    rules = Rules(draft.world)
    view = TaskView(task_id="bench", env="lights", budget=draft.budget, public=draft.public,
                    env_version=V3.version)
    agent.reset(view, "inductive", np.random.default_rng(0))
    state = 0
    for _ in range(draft.budget):
        state = rules.step(state, int(agent.act(f"State: {state_line(state, rules.n)}")))
        if state == rules.goal:
            return True
    return False


def _falls_back(factory: Any, draft: Draft) -> bool:
    """A version-space variant above its exact size plays the v2 learner (played once)."""
    limit = getattr(factory, "max_exact_n", None)
    return limit is not None and int(draft.world["n"]) > limit


def pct(k: int, n: int) -> str:
    """``k/n`` as a rate with its Wilson interval."""
    lo, hi = wilson(k, n)
    return f"{k}/{n} {k / n:4.0%} [{lo:.0%}-{hi:.0%}]" if n else "-"


def main() -> None:
    """Print the table for one suite over the given seeds."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default="lite", choices=sorted(PRESETS))
    parser.add_argument("--seeds", type=int, nargs="+", default=[7])
    parser.add_argument("--count", type=int, default=None, help="tasks per seed (default: preset)")
    parser.add_argument("--agents", nargs="+", default=None, metavar="NAME",
                        help="play only the agents whose names start with one of these")
    args = parser.parse_args()
    agents = {name: v for name, v in AGENTS.items()
              if args.agents is None or name == FALLBACK
              or any(name.startswith(a) for a in args.agents)}
    start = time.perf_counter()
    wins: dict[str, dict[int, int]] = {name: {} for name in agents}
    sizes: dict[int, int] = {}
    for seed in args.seeds:
        tasks = build(args.suite, seed, args.count)
        sizes[seed] = len(tasks)
        results = {name: [play(d, factory()) if not _falls_back(factory, d) else None
                          for d, _ in tasks] for name, (_, factory) in agents.items()}
        for name in agents:
            wins[name][seed] = sum(results[FALLBACK][i] if r is None else r
                                   for i, r in enumerate(results[name]))
    total = sum(sizes.values())
    print(f"lights v3 {args.suite}, seeds {args.seeds} ({total} tasks)")
    print("| agent | kind | " + " | ".join(f"seed {s}" for s in args.seeds) + " | pooled |")
    print("|---|---|" + "---|" * (len(args.seeds) + 1))
    pooled = {}
    for name, (kind, _) in agents.items():
        pooled[name] = sum(wins[name].values())
        cells = " | ".join(pct(wins[name][s], sizes[s]) for s in args.seeds)
        print(f"| {name} | {kind} | {cells} | {pct(pooled[name], total)} |")
    best_ind = max((n for n, (k, _) in agents.items() if k == "inductive"), key=pooled.get)
    best_free = max((n for n, (k, _) in agents.items() if k == "model_free"),
                    key=pooled.get, default=None)
    free = pooled[best_free] if best_free else 0
    margin = (pooled[best_ind] - free) / total if total else 0.0
    print(f"best inductive ({best_ind}) - best model-free ({best_free}): {margin:+.0%} "
          f"(#25 Lite target: >= +15 %); {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
