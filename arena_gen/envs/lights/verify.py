"""Lights verifier entry point: exact BFS up to N = 24, SAT bounded model checking beyond.

``verify(task)`` is what ``build`` and ``arena-gen verify`` call; it must be deterministic, so
the SAT path is limited by conflict budgets, never by wall-clock time. ``method`` forces a path
(tests differential-check the two).
"""

from __future__ import annotations

import time
from typing import Any

from arena_gen.core.task import Certificate
from arena_gen.envs.lights.bfs import bfs
from arena_gen.envs.lights.sat import solve

VERIFIER_VERSION = 1
BFS_MAX_N = 24
SAT_MAX_CONFLICTS = 1_000_000
METHODS = ("auto", "bfs", "sat")


def verify(task: Any, method: str = "auto", **sat_options: Any) -> Certificate:
    """Prove a lights world solvable with its exact minimum (or honest bounds) and a witness."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    n = int(task.world["n"])
    if method == "bfs" or (method == "auto" and n <= BFS_MAX_N):
        return _verify_bfs(task)
    return _verify_sat(task, **sat_options)


def _verify_bfs(task: Any) -> Certificate:
    start = time.perf_counter()
    result = bfs(task.world)
    return Certificate(
        solvable=result.min_steps is not None,
        method="bfs",
        min_steps=result.min_steps,
        witness=[str(b) for b in result.witness],
        verifier_version=VERIFIER_VERSION,
        seconds=time.perf_counter() - start,
        facts={"states_visited": result.states_visited,
               "reachable_states": result.reachable_states},
    )


def _verify_sat(task: Any, **options: Any) -> Certificate:
    start = time.perf_counter()
    options.setdefault("max_conflicts", SAT_MAX_CONFLICTS)
    result = solve(task.world, **options)
    found = result.upper is not None
    return Certificate(
        solvable=found or bool(result.solvable),
        method="sat-bmc",
        min_steps=result.min_steps,
        witness=[str(b) for b in result.witness],
        verifier_version=VERIFIER_VERSION,
        seconds=time.perf_counter() - start,
        facts={"min_steps_bounds": [result.lower, result.upper],
               "lower_method": result.lower_method, "upper_method": result.upper_method,
               "sat_calls": result.solver_calls, "conflicts": result.conflicts},
    )
