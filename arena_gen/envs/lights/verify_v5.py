"""Lights v5 verifier: v4's for worlds up to 24 bulbs, part by part above.

A world above :data:`~.verify.BFS_MAX_N` bulbs is split into its parts (the components of the
conditions' read graph, :func:`~.parts.parts`); its exact minimum is the sum of the parts'
minima, each an exact BFS, and the witness plays the parts' shortest plans one after another
(why the sum is exact: :mod:`.parts`). A part too large for BFS falls back to v4's SAT path
on the whole world. The certificate records the parts and their minima.
"""

from __future__ import annotations

import time
from typing import Any

from arena_gen.core.task import Certificate
from arena_gen.envs.lights import verify as verify_v4
from arena_gen.envs.lights.parts import MAX_PART, parts, solve_parts


def verify(task: Any, method: str = "auto", **sat_options: Any) -> Certificate:
    """Exact minimum and witness: v4's verifier, or part-wise BFS above 24 bulbs."""
    world = task.world
    if method != "auto" or int(world["n"]) <= verify_v4.BFS_MAX_N \
            or max(len(p) for p in parts(list(world["conditions"]))) > MAX_PART:
        return verify_v4.verify(task, method, **sat_options)
    start = time.perf_counter()
    result = solve_parts(world)
    return Certificate(
        solvable=result.min_steps is not None,
        method="bfs",
        min_steps=result.min_steps,
        witness=[str(b) for b in result.witness],
        verifier_version=verify_v4.VERIFIER_VERSION,
        seconds=time.perf_counter() - start,
        facts={"parts": result.parts,
               "part_min_steps": [k if k is not None else -1 for k in result.minima],
               "states_visited": result.states_visited},
    )
