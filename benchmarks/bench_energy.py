"""Energy figures: seconds per verified task (sample + 4 LPs + witness replay) per preset, the
split of one verify into its linear programs, and the released Lite configs.

Reproduce: ``python benchmarks/bench_energy.py [--lite N] [--challenge N] [--released]`` from
the repository root (defaults: 10 Lite tasks, 2 Challenge tasks, seed 7).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from arena_gen.core.seeds import attempt_seed, task_seed
from arena_gen.envs.energy import verify_v1 as lp
from arena_gen.envs.energy.game_v1 import Rules
from arena_gen.envs.energy.sampler_v1 import PRESETS, sample
from arena_gen.suite.build import generate_task

RELEASED = (Path(__file__).resolve().parents[2] / "shared/reference-data/odyssey-arena/energy"
            / "test_energy_lite_251207.json")


def per_task(suite: str, count: int, seed: int) -> None:
    """Generate-verify-replay ``count`` tasks of a preset; print seconds per accepted task."""
    times, attempts = [], 0
    for i in range(count):
        start = time.perf_counter()
        gen = generate_task("energy", suite, seed, i)
        times.append(time.perf_counter() - start)
        attempts += gen.attempts
    print(f"{suite:<10}{count:>6}{attempts:>9}{statistics.mean(times):>12.2f}"
          f"{max(times):>10.2f}")


def lp_split(suite: str, seed: int) -> None:
    """Time each linear program of one task's verification."""
    draft = sample(PRESETS[suite], attempt_seed(task_seed(seed, suite, 3, 0), 0))
    rules = Rules(draft.world)
    parts = {}
    start = time.perf_counter()
    program = lp.build_lp(rules, rules.eff)
    parts["assemble"] = time.perf_counter() - start
    start = time.perf_counter()
    lp.min_ramp(program, rules.target_carbon)
    parts["best stability"] = time.perf_counter() - start
    start = time.perf_counter()
    lp.min_share(program, lp.ramp_limit(rules, rules.target_stability), sum(rules.demand))
    parts["lowest share"] = time.perf_counter() - start
    start = time.perf_counter()
    lp.worst_case(draft.world, rules)
    parts["worst case"] = time.perf_counter() - start
    start = time.perf_counter()
    lp.verify(draft)
    parts["whole verify"] = time.perf_counter() - start
    print(f"{suite}: {len(program.lo)} variables; "
          + ", ".join(f"{k} {v:.2f} s" for k, v in parts.items()))


def released() -> None:
    """Import and verify the 30 released configs; print the slack spread."""
    from arena_gen.suite.importer import import_tasks

    start = time.perf_counter()
    tasks = import_tasks("energy", [RELEASED])
    seconds = time.perf_counter() - start
    stab = [t.certificate.facts["stability_slack"] for t in tasks]
    carb = [t.certificate.facts["carbon_slack"] for t in tasks]
    print(f"released: {len(tasks)} configs in {seconds:.2f} s ({seconds / len(tasks):.2f} s "
          f"per task); stability slack {min(stab):.4f}-{max(stab):.4f}, carbon slack "
          f"{min(carb):.4f}-{max(carb):.4f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lite", type=int, default=10)
    parser.add_argument("--challenge", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--released", action="store_true")
    args = parser.parse_args()
    print(f"command: python benchmarks/bench_energy.py --lite {args.lite} --challenge "
          f"{args.challenge} --seed {args.seed}" + (" --released" if args.released else ""))
    print(f"{'suite':<10}{'tasks':>6}{'attempts':>9}{'s per task':>12}{'max s':>10}")
    for suite, count in (("lite", args.lite), ("challenge", args.challenge)):
        if count:
            per_task(suite, count, args.seed)
    for suite, count in (("lite", args.lite), ("challenge", args.challenge)):
        if count:
            lp_split(suite, args.seed)
    if args.released and RELEASED.is_file():
        released()


if __name__ == "__main__":
    main()
