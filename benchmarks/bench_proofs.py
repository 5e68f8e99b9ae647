"""Proofs of minima (#42): per suite and env, seconds to prove and to check, and proof sizes.

Run: python benchmarks/bench_proofs.py [--quick] [--suites lite,challenge,odyssey-lite]
     [--envs lights,repo] [--sizes 12,14,16]

Each released suite is copied to a temporary folder and proved there (``arena-gen prove``: the
solver's time, then the in-prover check), then checked again as ``verify --proofs`` does
(re-encode, bind, RUP). ``--sizes`` adds lights worlds of the Challenge sampler with N pinned
(fixed seeds; the minimum from the env's BFS) to show how proving and checking grow with N.
"""

from __future__ import annotations

import argparse
import dataclasses
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from arena_gen.core.paths import suites_dir
from arena_gen.core.task import Certificate, Task
from arena_gen.proofs.check import check_suite
from arena_gen.proofs.produce import prove_suite, prove_task
from arena_gen.proofs.store import ENCODERS

SEED = 2026


def bench_suite(name: str, envs: set[str]) -> None:
    """Prove and check one released suite's proofs of ``envs`` in a temporary copy."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / name
        shutil.copytree(suites_dir() / name, folder)
        shutil.rmtree(folder / "proofs", ignore_errors=True)
        walls = {}
        proved = []
        for env in sorted(envs):
            start = time.perf_counter()
            proved += prove_suite(folder, envs={env})
            walls[env] = time.perf_counter() - start
        start = time.perf_counter()
        report = check_suite(folder)
        check_wall = time.perf_counter() - start
    assert report.ok, report
    for env in sorted(envs):
        mine = [p for p in proved if p.entry["encoder"] == ENCODERS[env].name]
        if not mine:
            continue
        sizes = [p.entry["bytes"] for p in mine]
        lines = [p.entry["lines"] for p in mine]
        checks = [r.stats.seconds for r in report.checked if r.stats and r.env == env]
        print(f"  {name:13s} {env:6s} tasks {len(mine):3d}  prove "
              f"{sum(p.prove_seconds for p in mine):7.2f} s solver + "
              f"{sum(p.check_seconds for p in mine):7.2f} s check ({walls[env]:7.2f} s wall)"
              f"  verify --proofs {sum(checks):7.2f} s (max task {max(checks):6.2f} s)"
              f"  xz {sum(sizes) / 1024:7.1f} KiB (median {statistics.median(sizes) / 1024:5.1f},"
              f" max {max(sizes) / 1024:6.1f})  lines median {statistics.median(lines):8.0f}"
              f" max {max(lines):8d}")
    print(f"  {name:13s} all    verify --proofs {check_wall:7.2f} s wall")


def sized_task(n: int, index: int) -> Task:
    """A Challenge-sampler lights world with N pinned, its minimum from the env's BFS."""
    from arena_gen.envs.lights.bfs import bfs
    from arena_gen.envs.lights.sampler import sample
    from arena_gen.envs.lights.sampler_v3 import PRESETS

    config = dataclasses.replace(PRESETS["challenge"], n_values=(n,), n_weights=(1,))
    draft = sample(config, np.random.SeedSequence([SEED, n, index]))
    result = bfs(draft.world, explore_all=False)
    cert = Certificate(solvable=True, method="bfs", min_steps=result.min_steps,
                       witness=[str(b) for b in result.witness], verifier_version=1,
                       seconds=None, facts={})
    return Task(id=f"lights-bench-{n}-{index}", env="lights", env_version=3, suite="bench",
                seed_path=[SEED, n, index], params=draft.params, budget=draft.budget,
                public=draft.public, world=draft.world, rules_text=draft.rules_text,
                rubric=draft.rubric, certificate=cert)


def bench_sizes(sizes: list[int], per_size: int) -> None:
    """Prove and check ``per_size`` worlds per N; the check is the one verify runs."""
    for n in sizes:
        rows = []
        for index in range(per_size):
            task = sized_task(n, index)
            proved, data = prove_task(task)
            rows.append((task.certificate.min_steps, proved.prove_seconds,
                         proved.check_seconds, len(data), proved.entry["lines"]))
        mins, prove_s, check_s, size, lines = zip(*rows, strict=True)
        print(f"  N={n:2d}  min {min(mins)}-{max(mins)}  prove median "
              f"{statistics.median(prove_s):6.2f} s  check median "
              f"{statistics.median(check_s):6.2f} s (max {max(check_s):6.2f})"
              f"  xz median {statistics.median(size) / 1024:7.1f} KiB"
              f"  lines median {statistics.median(lines):9.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="Challenge only, no sizes")
    parser.add_argument("--suites", default="lite,challenge,odyssey-lite")
    parser.add_argument("--envs", default="lights,repo")
    parser.add_argument("--sizes", default="", help="lights N values, e.g. 12,14,16")
    parser.add_argument("--per-size", type=int, default=3)
    args = parser.parse_args()
    suites = ["challenge"] if args.quick else [s for s in args.suites.split(",") if s]
    sizes = [] if args.quick else [int(s) for s in args.sizes.split(",") if s]
    envs = {e for e in args.envs.split(",") if e}
    print("Proofs of minima (prove = solver + in-prover check; verify --proofs = "
          "re-encode + bind + RUP check, one core)")
    for name in suites:
        bench_suite(name, envs)
    if sizes:
        print(f"By N (Challenge sampler, N pinned, {args.per_size} worlds each):")
        bench_sizes(sizes, args.per_size)
    print("command: python " + " ".join(["benchmarks/bench_proofs.py", *sys.argv[1:]]))


if __name__ == "__main__":
    main()
