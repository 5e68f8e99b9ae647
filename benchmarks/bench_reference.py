"""Side-by-side timings against the reference OdysseyArena generators, on one core.

    ARENA_GEN_ODYSSEY_CHECKOUT=DIR python benchmarks/bench_reference.py [--repeat 3]

The reference code is imported by path from a local checkout of the public OdysseyArena
repository (never copied here): ``LightEnv/TextEnv_v2.py`` (``LightBulbEnv``: random dependency
generation plus its DFS reachability check, resampled until the check passes) and
``RepoEnv/RepoGenerator_v5.py`` (``RandomWorldSpecGeneratorV7_5``). Workloads:

- lights: the released Lite mix, 30 tasks with N 6..10 (1, 2, 5, 14, 8 tasks), the released
  ``min_steps=10``; versus ``build_suite("lite", 7, ["lights"])`` (sample, exact BFS minimum,
  witness replay, 30 tasks of the same N mix);
- repo: the reference script's Lite recipe (30 worlds, 9..12 packages: 6, 9, 9, 6, its own
  per-world knobs) versus ``build_suite("lite", 7, ["repo"])`` (sample, static SAT check,
  bounded model checking for the exact minimum, witness replay; 30 tasks, 9..12 packages).

The reference generators prove nothing about their worlds (the lights DFS shares one visited
set across branches, so it bounds rather than measures the minimum; the repo generator has no
solver), so the ratio is the price of arena-gen's certificates, not a like-for-like speed-up.
Without the environment variable the script prints why it skipped and exits 0.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

ENV_VAR = "ARENA_GEN_ODYSSEY_CHECKOUT"
LIGHTS_MIX = {6: 1, 7: 2, 8: 5, 9: 14, 10: 8}  # the released Lite levels
REPO_MIX = {9: 6, 10: 9, 11: 9, 12: 6}  # RepoGenerator_v5.py's Lite recipe


def load(checkout: Path, relative: str, name: str) -> ModuleType:
    """Import one reference file by path, under a private module name (its folder on sys.path
    for its sibling imports)."""
    path = checkout / relative
    if not path.is_file():
        raise SystemExit(f"{ENV_VAR}={checkout}: no {relative} there")
    sys.path.insert(0, str(path.parent))
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(path.parent))
    return module


def reference_lights(mod: ModuleType) -> None:
    """30 released-mix lights worlds, generated and checked the reference way (its DFS recurses
    once per visited state, up to 2^N deep, past Python's default limit of 1000 at N = 10)."""
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))
    seed = 0
    for n, count in LIGHTS_MIX.items():
        for _ in range(count):
            mod.LightBulbEnv(num_bulbs=n, seed=seed, min_steps=10)
            seed += 1


def reference_repo(mod: ModuleType) -> None:
    """30 repo worlds with the reference script's Lite knobs."""
    idx = 1
    for n, count in REPO_MIX.items():
        for _ in range(count):
            knobs = random.Random(100000 + idx)
            mod.RandomWorldSpecGeneratorV7_5(
                num_packages=n, min_versions=3, max_versions=knobs.choice([8, 9, 10]),
                rng_seed=42 + idx, project_range_strict_prob=0.6,
                implicit_range_strict_prob=0.6,
                dep_range_strict_prob=knobs.uniform(0.75, 0.80),
                high_version_conflict_ratio=knobs.uniform(0.75, 0.8),
                fork_point_ratio=knobs.uniform(0.75, 0.90),
                max_deps_per_version=knobs.choice([8, 9, 10])).generate()
            idx += 1


def ours(env: str) -> Callable[[], Any]:
    """arena-gen's Lite build of one env, in this process, without the cache."""
    from arena_gen.suite.build import build_suite

    return lambda: build_suite("lite", 7, [env], jobs=1)


def best_of(fn: Callable[[], Any], repeat: int) -> tuple[float, float]:
    """(median, min) wall seconds over ``repeat`` runs."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="one repeat (benchmarks/run.py)")
    args = parser.parse_args()
    if args.quick:
        args.repeat = 1
    checkout = os.environ.get(ENV_VAR)
    if not checkout:
        print(f"skipped: set {ENV_VAR} to a local checkout of the public OdysseyArena "
              f"repository (LightEnv/TextEnv_v2.py, RepoEnv/RepoGenerator_v5.py)")
        return
    root = Path(checkout).expanduser()
    lights = load(root, "LightEnv/TextEnv_v2.py", "_odyssey_lights_ref")
    repo = load(root, "RepoEnv/RepoGenerator_v5.py", "_odyssey_repo_ref")
    ours("lights")()  # warm imports (numpy, solvers) outside the timings
    print(f"one process, median (min) of {args.repeat}; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'workload':34} {'reference s':>14} {'arena-gen s':>14} {'ratio':>7}")
    for label, ref, mine in [
            ("lights, released Lite mix (30)", lambda: reference_lights(lights), ours("lights")),
            ("repo, Lite 9-12 packages (30)", lambda: reference_repo(repo), ours("repo"))]:
        ref_med, ref_min = best_of(ref, args.repeat)
        our_med, our_min = best_of(mine, args.repeat)
        print(f"{label:34} {ref_med:7.3f} ({ref_min:.3f}) {our_med:7.3f} ({our_min:.3f}) "
              f"{our_med / ref_med:6.2f}x")
    print("ratio = arena-gen / reference (above 1: arena-gen is slower; it also proves the "
          "minimum and replays a witness)")


if __name__ == "__main__":
    main()
