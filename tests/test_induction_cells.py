"""The expected cost's lower end (issue 39): a partition of the class into cells gives
E*(H) >= sum over cells of P(cell) E*(cell). Checked on an exact class (every cell by brute
enumeration of the group's orbits), and the released task's cells are a partition of its
accepted worlds."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from arena_gen.core.induction import solve
from arena_gen.core.suite_io import read_suite
from arena_gen.envs.lights.adversary import expected_cost, relabel
from arena_gen.envs.lights.bfs import bfs
from arena_gen.envs.lights.game_v1 import Rules
from arena_gen.envs.lights.induction import lights_class, world_class
from arena_gen.suite.induction_bounds import accepts, cell, cell_relabellings, class_sample

#: The cells' bound on the N 3 class, between T = 3.148 and E* = 5.876 (measured once).
BOUND = 3.9358
LITE = Path(__file__).resolve().parent.parent / "suites" / "lite"


def _behaviour(world: dict) -> tuple[int, ...]:  # type: ignore[type-arg]
    """Per bulb, the bitmask of the states in which it flips (the class's key)."""
    n = int(world["n"])
    masks = Rules(world).enabled_masks(np.arange(1 << n))
    return tuple(int(sum(1 << s for s in np.flatnonzero(m))) for m in masks)


def test_group_is_the_swaps() -> None:
    perms = cell_relabellings(6)
    assert len(perms) == 8 and perms[0] == list(range(6))
    assert [1, 0, 3, 2, 5, 4] in perms and [0, 1, 3, 2, 4, 5] in perms
    for p in perms:  # closed under composition: a group, so its orbits partition the worlds
        for q in perms:
            assert [p[q[i]] for i in range(6)] in perms


def test_one_world_cell_costs_its_minimum() -> None:
    cls = lights_class(3, budget=40, max_literals=2, p_not=0.55, p_and=0.6, min_len=2)
    for world, least in list(zip(cls.worlds, cls.min_steps, strict=True))[::10]:
        assert expected_cost([world]) == least


def test_cells_bound_the_exact_expected_cost() -> None:
    """Lights N 3, up to 2 literals, floor 2 (132 behaviours): with cells the orbits of
    swapping B0 and B1, T <= sum P(cell) E*(cell) <= E*(H) (no horizon), the middle strictly
    above T (a learner told its cell still pays for discovering which world of it)."""
    cls = lights_class(3, budget=40, max_literals=2, p_not=0.55, p_and=0.6, min_len=2)
    index = {b: i for i, b in enumerate(cls.behaviours)}
    total = sum(cls.weights)
    whole = solve(cls.world_class(), 1 << 30, seconds=120).expected
    bound, done = 0.0, set()
    for i, world in enumerate(cls.worlds):
        if i in done:
            continue
        members = sorted({index[b] for b in (_behaviour(relabel(world, p))
                                             for p in ([0, 1, 2], [1, 0, 2])) if b in index})
        assert i in members
        done.update(members)
        weights = [cls.weights[j] for j in members]
        part = world_class([cls.worlds[j] for j in members], weights)
        bound += sum(weights) / total * solve(part, 1 << 30).expected
    told = cls.expected_min_steps()
    assert told < bound <= whole + 1e-9
    assert math.isclose(whole, 5.876, abs_tol=5e-4)  # docs/induction.md: 40 turns or more
    assert math.isclose(bound, BOUND, abs_tol=5e-4)


def test_released_cells_partition_the_accepted_worlds() -> None:
    """lights-lite-7-0016: a sampled world's cell holds distinct accepted relabellings of it,
    and the cell of any member is the same set (the cells partition the class)."""
    task = read_suite(LITE, envs=["lights"], task_ids=["lights-lite-7-0016"]).all_tasks()[0]
    world = class_sample(task, 1, 0)[0]
    members = cell(task, world)
    keys = {json.dumps(w, sort_keys=True) for w in members}
    assert members[0] == world and len(keys) == len(members) <= 8
    assert all(accepts(task, w) for w in members[1:])
    assert all(bfs(w).min_steps == bfs(world).min_steps for w in members)
    again = {json.dumps(w, sort_keys=True) for w in cell(task, members[-1])}
    assert again == keys
    assert expected_cost(members) >= bfs(world).min_steps
