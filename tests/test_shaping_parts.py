"""Certified dense rewards at the paper-scale Challenge's sizes: exact distances part by part.

Lights: on small worlds of 2-3 closed parts (random conditions, dead states included) the
summed part-wise distance equals the whole 2^N table on every state; on every released
Challenge v6 task (36-40 bulbs, beyond the whole table) the potential starts at minus the
certificate's minimum and rises by exactly 1 per witness step; a part above the table's bound
is refused by name. Repo: on small v6 worlds of 2-3 groups the group-wise distance equals the
BMC potential's on sampled states; every released Challenge v6 task (95-125 packages, where the
BMC search does not finish) is shaped group by group, from minus its minimum, +1 per witness
step, and off the witness (random commands) minus Phi is a forward search per group."""

from __future__ import annotations

from functools import cache
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena_gen.core import registry
from arena_gen.core.game import WorldView
from arena_gen.core.task import Task
from arena_gen.envs.lights import potential as lights_potential
from arena_gen.envs.lights.parts import parts
from arena_gen.envs.repo.common import ABSENT
from arena_gen.envs.repo.game_v2 import RepoV2
from arena_gen.envs.repo.game_v6 import RepoGameV6
from arena_gen.envs.repo.groups import explore, groups, sub_world
from arena_gen.envs.repo.potential import RepoDistance, distance_of
from arena_gen.envs.repo.potential_groups import GroupDistance
from arena_gen.suite import catalog
from arena_gen.train.released import released_tasks
from arena_gen.train.shaping import shaped
from tests.test_repo_v6 import SMALL, world_of


def formula(draw: st.DrawFn, reads: list[int], depth: int = 2) -> dict[str, Any]:
    """A random condition over ``reads`` (a constant when there is nothing to read)."""
    if not reads:
        return {"const": draw(st.booleans())}
    kind = draw(st.sampled_from(["var", "not", "and", "or"] if depth else ["var", "not"]))
    if kind == "var":
        return {"var": draw(st.sampled_from(reads))}
    if kind == "not":
        return {"not": {"var": draw(st.sampled_from(reads))}}
    return {kind: [formula(draw, reads, depth - 1), formula(draw, reads, depth - 1)]}


@st.composite
def parted_world(draw: st.DrawFn) -> dict[str, Any]:
    """A world of 2-3 parts of 1-5 bulbs each, the bulbs of each part scattered over the
    indices; each condition reads bulbs of its own part only."""
    sizes = draw(st.lists(st.integers(1, 5), min_size=2, max_size=3))
    n = sum(sizes)
    order = draw(st.permutations(list(range(n))))
    conditions: list[dict[str, Any]] = [{"const": True}] * n
    at = 0
    for size in sizes:
        members = order[at:at + size]
        at += size
        for bulb in members:
            conditions[bulb] = formula(draw, [b for b in members if b != bulb])
    return {"n": n, "conditions": conditions}


@settings(max_examples=80, deadline=None)
@given(world=parted_world())
def test_summed_part_distances_equal_the_whole_table_on_every_state(
        world: dict[str, Any]) -> None:
    whole = lights_potential.potential_table(world)
    split = lights_potential.PartDistances(world)
    assert len(split.parts) >= 2
    assert [-float(split(s)) for s in range(1 << world["n"])] == list(whole)


def test_a_dead_part_makes_the_state_dead_as_the_whole_table_says() -> None:
    """B0 never toggles and B1 only while B0 is off: all-on is reachable only from states
    with B0 and B1 on; B2 is a part of its own."""
    world = {"n": 3, "conditions": [{"const": False}, {"not": {"var": 0}}, {"const": True}]}
    whole = lights_potential.potential_table(world)
    split = lights_potential.PartDistances(world)
    assert split.parts == [[0, 1], [2]]
    assert [-float(split(s)) for s in range(8)] == list(whole)
    assert -whole[0] == split.dead == 2  # the largest finite sum (part {2}: 1) plus one


@cache
def paper_scale() -> list[Task]:
    """The released paper-scale Challenge's lights tasks (above the whole table's bound)."""
    version = catalog.PINNED["challenge"]["lights"]
    return [t for t in released_tasks("lights")
            if t.suite == "challenge" and t.env_version == version]


def test_every_paper_scale_lights_task_is_beyond_the_whole_table() -> None:
    chosen = paper_scale()
    assert len(chosen) == 10
    assert all(t.world["n"] > lights_potential.MAX_N for t in chosen)
    assert all(len(parts(t.world["conditions"])) >= 2 for t in chosen)


def rises_by_one_along_the_witness(task: Task) -> None:
    """The shaped env starts at minus the certified minimum and gains exactly 1 per witness
    step, ending at 0 with success (so the potential is the exact distance along the witness)."""
    env = shaped(registry.make_env(task))
    _, info = env.reset()
    witness = task.certificate.witness
    assert len(witness) == task.certificate.min_steps
    assert info["potential"] == -task.certificate.min_steps
    shaping = []
    for action in witness:
        _, reward, terminated, _, info = env.step(action)
        shaping.append(info["shaping"])
    assert shaping == [1.0] * len(witness)
    assert terminated and info["potential"] == 0.0 and info["success"]


@pytest.mark.parametrize("index", range(10))
def test_paper_scale_lights_potential_rises_by_one_per_witness_step(index: int) -> None:
    rises_by_one_along_the_witness(paper_scale()[index])


def test_a_part_above_the_table_bound_is_refused_by_name() -> None:
    """22 bulbs in one chain (each reads the one before): one part of 22, no table."""
    n = 22
    world = {"n": n, "conditions": [{"const": True}] + [{"var": i} for i in range(n - 1)]}
    game = SimpleNamespace(task=SimpleNamespace(world=world))
    with pytest.raises(ValueError, match="N = 22 bulbs has a part of 22 bulbs, above 20"):
        lights_potential.potential(game)  # type: ignore[arg-type]


@cache
def repo_paper_scale() -> list[Task]:
    """The released paper-scale Challenge's repo tasks (95-125 packages in groups)."""
    version = catalog.PINNED["challenge"]["repo"]
    return [t for t in released_tasks("repo")
            if t.suite == "challenge" and t.env_version == version]


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_repo_group_distances_equal_the_bmc_search_on_small_worlds(seed: int) -> None:
    """Small v6 worlds of 2-3 groups: on sampled reachable configurations, with no Python,
    the newest and the oldest, the group-wise distance is the BMC potential's."""
    world = world_of(SMALL, seed)
    found = groups(world)
    assert len(found) >= 2
    game = RepoGameV6(WorldView(world))
    split, search = GroupDistance(world, found), RepoDistance(game)
    configs = explore(world).states
    rng = np.random.default_rng(seed)
    chosen = [configs[i] for i in rng.choice(len(configs), min(25, len(configs)),
                                               replace=False)]
    pythons = sorted({ABSENT, 0, len(game.rules.pythons) - 1})
    for installed in chosen:
        for python in pythons:
            state = RepoV2(python, installed)
            assert split(state) == search(state), (seed, state)
    assert split(RepoV2(0, configs[0], True)) == 0


def test_every_paper_scale_repo_task_is_shaped_group_by_group() -> None:
    chosen = repo_paper_scale()
    assert len(chosen) == 10
    for task in chosen:
        distance = distance_of(registry.make_env(task).unwrapped.game)
        assert isinstance(distance, GroupDistance), task.id
        assert len(distance.groups) >= 2 and len(task.world["package_order"]) >= 95, task.id


@pytest.mark.parametrize("index", range(10))
def test_paper_scale_repo_potential_rises_by_one_per_witness_step(index: int) -> None:
    rises_by_one_along_the_witness(repo_paper_scale()[index])


@settings(max_examples=10, deadline=None)
@given(index=st.integers(0, 9), prefix=st.integers(0, 600), seed=st.integers(0, 2**32 - 1),
       count=st.integers(1, 20))
def test_paper_scale_repo_potential_off_the_witness_is_a_forward_search_per_group(
        index: int, prefix: int, seed: int, count: int) -> None:
    """Part of a witness, then the env's random commands: at the end minus Phi is each group's
    forward breadth-first search from its own configuration (``explore`` with a start, not the
    backward tables), summed, plus the run and a missing Python; no step gains more than 1."""
    task = repo_paper_scale()[index]
    rng = np.random.default_rng(seed)
    probe = registry.make_env(task)
    actions = task.certificate.witness[:prefix] + [probe.sample_action(rng) for _ in range(count)]
    env = shaped(registry.make_env(task))
    infos = [env.reset()[1]]
    for action in actions:
        _, _, terminated, truncated, info = env.step(action)
        infos.append(info)
        if terminated or truncated:
            break
    assert all(i["shaping"] <= 1.0 for i in infos[1:])
    state = env.base.state
    if state.run_ok:
        assert env.potential == 0.0
        return
    forward = 1 + (state.python == ABSENT)
    for group in groups(task.world):
        start = tuple(state.installed[q] for q in group)
        found = explore(sub_world(task.world, group), start=start).min_installs
        assert found is not None
        forward += found
    assert env.potential == -forward
