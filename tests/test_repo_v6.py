"""Repo v6 (issue 42): worlds of hidden ring-puzzle groups; exact minima group by group, checked
by brute force on whole small worlds; the second encoder agrees with the v6 game on 10,000
random (state, command) pairs of v6 worlds; the random bound bounds; the planner plays the
minimum."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena_gen.core import registry
from arena_gen.core.game import WorldView
from arena_gen.core.probes import draw, grade
from arena_gen.envs.repo.agents.rings import RepoGroupsPlannerAgent
from arena_gen.envs.repo.game_v6 import RepoGameV6
from arena_gen.envs.repo.groups import (
    explore,
    groups,
    lazy_group_probability,
    random_bound,
    solve_groups,
    sub_world,
)
from arena_gen.envs.repo.sampler_v6 import PRESETS, GroupsPreset, sample, sample_world
from arena_gen.envs.repo.verify_v6 import verify
from arena_gen.proofs import repo_parts
from arena_gen.proofs.drup import ProofError
from tests.test_proofs_repo import OneTurn, command_texts, minimum, random_state

SMALL = PRESETS["challenge"].replace(groups=(2, 3), group_size=(1, 3), group_min_len=0,
                                     min_len=0, budget=60)


def world_of(preset: GroupsPreset, seed: int) -> dict[str, Any]:
    return sample_world(preset, np.random.SeedSequence([seed, 6]))


def whole_minimum(world: dict[str, Any]) -> int | None:
    """Commands of the shortest completion of the whole world: BFS over the v6 game's steps."""
    return minimum(RepoGameV6(WorldView(world)), world)


def test_full_ring_minima_are_the_puzzle_s() -> None:
    # one group of n packages, each needing the previous on and every earlier one off: the
    # Chinese-rings counts 1, 2, 5, 10, 21, 42 installs (round(2^(n+1)/3) - like)
    found = []
    for n in range(1, 7):
        preset = PRESETS["challenge"].replace(groups=(1, 1), group_size=(n, n), lookback=9,
                                              offs=9, group_min_len=0, min_len=0)
        found.append(explore(world_of(preset, n)).min_installs)
    assert found == [1, 2, 5, 10, 21, 42]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_group_minima_give_the_whole_world_minimum(seed: int) -> None:
    world = world_of(SMALL.replace(groups=(2, 2)), seed)  # up to 6 packages: 729 states
    result = solve_groups(world)
    assert len(result.groups) == len(groups(world)) >= 2
    assert result.min_steps == whole_minimum(world)
    game = RepoGameV6(WorldView(world))
    state = game.initial()
    for text in result.witness:
        after = game.step(state, game.parse(text))[0]
        assert after != state  # every witness command does something
        state = after
    assert state.run_ok and len(result.witness) == result.min_steps


def test_groups_are_derived_from_the_rules() -> None:
    world = world_of(PRESETS["challenge"], 7)
    found = groups(world)
    assert 19 <= len(found) <= 25 and all(len(g) == 5 for g in found)
    repo_parts.check_closed(world, found)  # the checker's own reading agrees
    moved = [list(g) for g in found]
    moved[1].append(moved[0].pop())
    with pytest.raises(ProofError, match="not closed"):
        repo_parts.check_closed(world, moved)
    assert sub_world(world, found[0]) == repo_parts.sub_world(world, found[0])


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_the_encoder_agrees_with_the_v6_game_on_random_states_and_commands(seed: int) -> None:
    # 100 examples x 100 pairs: 10,000 (state, command) pairs of v6 worlds of groups
    rng = np.random.default_rng(seed)
    world = world_of(SMALL, seed)
    game = RepoGameV6(WorldView(world))
    turn = OneTurn(world, game)
    texts = command_texts(world, rng)
    found = explore(world)  # reachable states too, where the ring conditions bite
    states = [random_state(game, rng) if i % 2 else
              game.initial().__class__(0, found.states[int(rng.integers(len(found.states)))])
              for i in range(100)]
    assert all(turn.agrees(game, s, texts[int(rng.integers(len(texts)))]) for s in states)


def test_the_random_bound_bounds_random_play() -> None:
    preset = PRESETS["challenge"].replace(groups=(2, 2), group_size=(2, 2), group_min_len=0,
                                          min_len=0, budget=60)
    draft = sample(preset, np.random.SeedSequence([3, 6]))
    task = SimpleNamespace(world=draft.world, budget=draft.budget, params=draft.params)
    bound = random_bound(task)
    assert bound is not None and bound["method"] == "per-group"
    chances = [lazy_group_probability(draft.world, g, draft.budget)
               for g in groups(draft.world)]
    assert bound["bound"] == min(chances) and 0 < bound["bound"] < 1
    game = RepoGameV6(draft)
    rand = registry.get("repo", 6).load("game").random_action
    wins = 0
    for episode in range(400):
        gen = np.random.default_rng([episode, 6])
        state = game.initial()
        for _ in range(draft.budget):
            state = game.act(state, rand(draft.public, gen))[0]
            if state.run_ok:
                wins += 1
                break
    assert wins / 400 <= bound["bound"] + 0.05
    assert random_bound(SimpleNamespace(world=draft.world, budget=60, params={})) is None


def test_the_planner_plays_the_minimum_from_the_rules_text() -> None:
    draft = sample(PRESETS["challenge"], np.random.SeedSequence([7, 6]))
    cert = verify(SimpleNamespace(world=draft.world, params=draft.params))
    assert cert.min_steps is not None and cert.min_steps >= 400
    assert cert.min_steps == 21 * len(cert.facts["parts"]) + 2
    agent = RepoGroupsPlannerAgent()
    view = SimpleNamespace(public=draft.public, rules_text=draft.rules_text,
                           budget=draft.budget, env="repo", env_version=6)
    agent.reset(view, "with-rules", np.random.default_rng(0))  # type: ignore[arg-type]
    game = RepoGameV6(draft)
    state, turns, visited, graded = game.initial(), 0, [], []
    while not state.run_ok and turns < draft.budget:
        state = game.act(state, agent.act(""))[0]
        visited.append(state)
        turns += 1
        if turns % 150 == 0:  # the planner answers every probe from the rules it read
            probes = draw(game, state, visited, "0" * 64, 0, turns // 150, 8)
            graded += grade(game, state, probes, agent.answer_probes(probes))
    assert state.run_ok and turns == cert.min_steps
    assert len(graded) >= 16 and all(graded)
