"""Frontier of proven-exact lights minima for worlds of independent parts (lights v5, #42).

Run: python benchmarks/bench_frontier_lights.py [--sizes 36,45,54,63,72] [--part 9]

Per size N: a world of N / part independent parts drawn by the v5 Challenge part law (each part
redrawn until its minimum is at least 30, fixed seeds), then on one core the seconds to
(1) find the exact minimum (BFS per part, :func:`arena_gen.envs.lights.parts.solve_parts`),
(2) check the partition closed (:func:`arena_gen.proofs.parts.check_closed`), (3) prove each
part's ``k_P - 1`` encoding unsatisfiable (CaDiCaL, DRUP) and (4) check every proof with the
pure-Python RUP checker, and the compressed proof size. Worlds that do not decompose (one
connected read graph, the v1-v4 worlds) are not helped: their frontier is the whole-world
BFS/SAT one in bench_proofs.py and benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from arena_gen.envs.lights.bfs import bfs
from arena_gen.envs.lights.parts import solve_parts
from arena_gen.envs.lights.sampler_v5 import part_conditions
from arena_gen.proofs import lights_cnf, store
from arena_gen.proofs.drup import check_refutation
from arena_gen.proofs.parts import check_closed, sub_world
from arena_gen.proofs.produce import refute

SEED = 2026
PART_FLOOR = 30


def world_of(n: int, part: int, seq: np.random.SeedSequence) -> dict[str, object]:
    """N bulbs in N / part parts, relabelled at random, each part's minimum >= PART_FLOOR."""
    labels_rng, cond_seq = (np.random.default_rng(s) for s in seq.spawn(2))
    labels = [int(x) for x in labels_rng.permutation(n)]
    conditions: dict[int, object] = {}
    for start in range(0, n, part):
        chunk = labels[start:start + part]
        while True:
            drawn = part_conditions(chunk, cond_seq)
            mini = sub_world([drawn.get(b, {"const": True}) for b in range(n)], chunk)
            if (bfs(mini).min_steps or 0) >= PART_FLOOR:
                conditions.update(drawn)
                break
    return {"n": n, "conditions": [conditions[b] for b in range(n)]}


def measure(n: int, part: int) -> None:
    world = world_of(n, part, np.random.SeedSequence([SEED, n, part]))
    conds = list(world["conditions"])  # type: ignore[call-overload]
    t0 = time.perf_counter()
    found = solve_parts(world)
    t1 = time.perf_counter()
    check_closed(conds, found.parts)
    t2 = time.perf_counter()
    solve_s = check_s = 0.0
    lines: list[str] = []
    for bulbs, k in zip(found.parts, found.minima, strict=True):
        assert k is not None
        enc = lights_cnf.encode(sub_world(conds, bulbs), k - 1)
        s0 = time.perf_counter()
        body = refute(enc.clauses, "cadical195")
        s1 = time.perf_counter()
        check_refutation(enc.variables, enc.clauses, body)
        s2 = time.perf_counter()
        solve_s += s1 - s0
        check_s += s2 - s1
        lines += body
    xz = len(store.compress(lines))
    total = (t1 - t0) + (t2 - t1) + solve_s + check_s
    print(f"  N {n:3d}  parts {len(found.parts):2d}  min {found.min_steps:5d}  "
          f"bfs {t1 - t0:6.2f} s  partition {t2 - t1:5.3f} s  prove {solve_s:6.2f} s  "
          f"check {check_s:6.2f} s  total {total:6.2f} s  proof xz {xz / 1024:7.1f} KiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="36,45,54,63,72")
    parser.add_argument("--part", type=int, default=9)
    args = parser.parse_args()
    print(f"lights v5 frontier (parts of {args.part} bulbs, one core; command: python "
          f"benchmarks/bench_frontier_lights.py --sizes {args.sizes} --part {args.part})")
    for n in (int(x) for x in args.sizes.split(",")):
        measure(n, args.part)


if __name__ == "__main__":
    main()
