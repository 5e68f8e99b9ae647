"""Frontier of proven-exact repo minima: v5-style worlds (before) against v6 worlds of groups.

Run: python benchmarks/bench_frontier_repo.py [--before 14,18,22,26] [--after 20,40,...]

Per size N, the CPU seconds of this one process (so one core, whatever else runs on the
machine) to find the exact minimum and prove it, and the xz size of the proof.

**Before**: a world drawn by the v5 Challenge law with N packages (its SAT conflict cap
lifted; the first of :data:`SEEDS` draws within its success-set cap, timed alone), its minimum
by the v3 verifier (BMC from the cover bound), then the second encoder's whole-world ``k - 1``
formula refuted (Glucose, DRUP) and checked by the pure-Python RUP checker.

**After**: a world of N / 5 v6 ring groups (the v6 Challenge law), its minimum by BFS per
group, the partition checked closed, one refutation and check per group.

A size stops at ``--limit`` CPU seconds (default 60, the issue's per-task budget): reported as
over it.
"""

from __future__ import annotations

import argparse
import signal
import time
from types import FrameType
from typing import Any

import numpy as np

from arena_gen.envs.repo import sampler_v5, sampler_v6, verify_v3
from arena_gen.envs.repo.groups import solve_groups
from arena_gen.proofs import repo_cnf, repo_parts, store
from arena_gen.proofs.drup import check_refutation
from arena_gen.proofs.produce import refute

SEED = 2026
#: Worlds drawn per "before" size until one is within v5's success-set cap (the v3 verifier
#: skips a looser one before its BMC; only the world it proves is timed).
SEEDS = 8


class OverLimit(Exception):
    """The size took longer than the limit."""


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise OverLimit


def prove(world: dict[str, Any], parts: list[tuple[dict[str, Any], int]]) -> tuple[float, float,
                                                                                   int]:
    """Refute and check each (world, k) claim: solve and check seconds, proof xz bytes."""
    solve_s = check_s = 0.0
    lines: list[str] = []
    for sub, k in parts:
        enc = repo_cnf.encode(sub, k - 1)
        s0 = time.process_time()
        body = refute(enc.clauses, "glucose4")
        s1 = time.process_time()
        check_refutation(enc.variables, enc.clauses, body)
        solve_s += s1 - s0
        check_s += time.process_time() - s1
        lines += body
    return solve_s, check_s, len(store.compress(lines))


def before(n: int) -> str:
    """A v5-style world of ``n`` packages: v3's BMC minimum, one whole-world proof."""
    preset = sampler_v5.PRESETS["challenge"].replace(n_min=n, n_max=n, bmc_conflicts=10**9)
    for seed in range(SEEDS):
        draft = sampler_v5.sample(preset, np.random.SeedSequence([SEED, n, seed]))
        start = time.process_time()
        cert = verify_v3.verify(draft)
        search = time.process_time() - start
        if cert.solvable and cert.min_steps:
            break
    else:
        return f"  before N {n:3d}  none of {SEEDS} worlds within the success-set cap"
    solve_s, check_s, xz = prove(draft.world, [(draft.world, int(cert.min_steps))])
    total = search + solve_s + check_s
    return (f"  before N {n:3d}  min {cert.min_steps:4d}  search {search:6.2f} s  prove "
            f"{solve_s:6.2f} s  check {check_s:6.2f} s  total {total:6.2f} s  proof xz "
            f"{xz / 1024:7.1f} KiB")


def after(n: int) -> str:
    """A v6 world of ``n / 5`` ring groups: BFS per group, partition check, one proof each."""
    preset = sampler_v6.PRESETS["challenge"].replace(groups=(n // 5, n // 5), min_len=0)
    world = sampler_v6.sample_world(preset, np.random.SeedSequence([SEED, n]))
    t0 = time.process_time()
    found = solve_groups(world)
    t1 = time.process_time()
    repo_parts.check_closed(world, found.groups)
    t2 = time.process_time()
    claims = [(repo_parts.sub_world(world, g), int(k or 0))
              for g, k in zip(found.groups, found.minima, strict=True)]
    solve_s, check_s, xz = prove(world, claims)
    total = (t1 - t0) + (t2 - t1) + solve_s + check_s
    return (f"  after  N {n:3d}  groups {len(found.groups):2d}  min {found.min_steps:4d}  "
            f"bfs {t1 - t0:6.2f} s  partition {t2 - t1:5.3f} s  prove {solve_s:6.2f} s  "
            f"check {check_s:6.2f} s  total {total:6.2f} s  proof xz {xz / 1024:7.1f} KiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="14,18,22,26")
    parser.add_argument("--after", default="20,40,60,80,100,125")
    parser.add_argument("--limit", type=int, default=60)
    args = parser.parse_args()
    print(f"repo frontier (CPU seconds, {args.limit} s per size; command: python "
          f"benchmarks/bench_frontier_repo.py --before {args.before} --after {args.after} "
          f"--limit {args.limit})", flush=True)
    signal.signal(signal.SIGPROF, _alarm)
    for kind, sizes in (("before", args.before), ("after", args.after)):
        for n in (int(x) for x in sizes.split(",") if x):
            signal.setitimer(signal.ITIMER_PROF, args.limit)
            try:
                line = before(n) if kind == "before" else after(n)
            except OverLimit:
                line = f"  {kind:6s} N {n:3d}  over {args.limit} s"
            finally:
                signal.setitimer(signal.ITIMER_PROF, 0)
            print(line, flush=True)


if __name__ == "__main__":
    main()
