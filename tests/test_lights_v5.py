"""Lights v5 (issue 42): worlds of independent parts, exact minima part by part, checked by
brute force on whole small worlds."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena_gen.core import registry
from arena_gen.core.compiled import compiled
from arena_gen.core.task import Draft
from arena_gen.envs.lights.bfs import bfs
from arena_gen.envs.lights.formula import Formula
from arena_gen.envs.lights.game_v1 import Rules
from arena_gen.envs.lights.parts import (
    lazy_part_probability,
    parts,
    random_bound,
    solve_parts,
)
from arena_gen.envs.lights.random_bound import solve_probability
from arena_gen.envs.lights.sampler_v5 import PRESETS, PartsPreset, part_conditions, sample
from arena_gen.envs.lights.verify_v5 import verify
from arena_gen.suite.catalog import preset


def _ring(labels: list[int]) -> dict[int, Formula]:
    """The ring puzzle's rules on ``labels``: bulb p toggles when p - 1 is on and all bulbs
    before p - 1 are off (minimum from all off to all on: about 2^(n+1)/3)."""
    out: dict[int, Formula] = {labels[0]: {"const": True}}
    for p in range(1, len(labels)):
        node: Formula = {"var": labels[p - 1]}
        for q in range(p - 2, -1, -1):
            node = {"and": [node, {"not": {"var": labels[q]}}]}
        out[labels[p]] = node
    return out


def _world(pieces: list[dict[int, Formula]]) -> dict[str, Any]:
    merged = {b: c for piece in pieces for b, c in piece.items()}
    n = len(merged)
    return {"n": n, "conditions": [merged[b] for b in range(n)]}


def _task(draft: Draft) -> Any:
    return SimpleNamespace(world=draft.world, budget=draft.budget, params=draft.params)


def test_ring_minima_are_the_puzzle_s() -> None:
    # the Chinese-rings counts: 1, 2, 5, 10, 21, 42, 85 (round(2^(n+1)/3) - like)
    assert [bfs(_world([_ring(list(range(n)))])).min_steps for n in range(1, 8)] == \
        [1, 2, 5, 10, 21, 42, 85]


def test_interleaved_ring_parts_sum_exactly() -> None:
    # two rings on interleaved labels: 5 and 4 bulbs, minima 21 and 10
    world = _world([_ring([0, 2, 4, 6, 8]), _ring([7, 5, 3, 1])])
    found = solve_parts(world)
    assert found.parts == [[0, 2, 4, 6, 8], [1, 3, 5, 7]]
    assert found.minima == [21, 10] and found.min_steps == 31
    assert bfs(world).min_steps == 31
    rules, state = Rules(world), 0
    for b in found.witness:
        assert rules.step(state, b) != state
        state = rules.step(state, b)
    assert state == rules.goal


@settings(max_examples=40, deadline=None)
@given(sizes=st.lists(st.integers(3, 5), min_size=2, max_size=3), seed=st.integers(0, 2**32))
def test_part_sums_equal_whole_world_bfs(sizes: list[int], seed: int) -> None:
    gen = np.random.default_rng(seed)
    labels = [int(x) for x in gen.permutation(sum(sizes))]
    pieces, start = [], 0
    for size in sizes:
        pieces.append(part_conditions(labels[start:start + size], gen))
        start += size
    world = _world(pieces)
    whole = bfs(world)
    found = solve_parts(world)
    assert found.min_steps == whole.min_steps
    assert len(found.witness) == whole.min_steps
    start_state = int(gen.integers(1 << world["n"]))  # and from any state
    assert solve_parts(world, start_state).min_steps == bfs(world, start=start_state).min_steps


def test_parts_are_the_read_graph_components() -> None:
    conditions: list[Formula] = [{"const": True}, {"var": 3}, {"not": {"var": 0}},
                                 {"const": False}, {"or": [{"var": 1}, {"var": 3}]}]
    assert parts(conditions) == [[0, 2], [1, 3, 4]]


def test_lite_is_v4_s_and_challenge_is_paper_scale() -> None:
    assert preset("lite", "lights", 5) == preset("lite", "lights", 4)
    seq = np.random.SeedSequence([7, 1, 1, 3, 0])
    v4 = registry.get("lights", 4).load("sampler")(preset("lite", "lights", 4), seq)
    assert sample(preset("lite", "lights", 5), seq) == v4
    chal = PRESETS["challenge"]
    assert isinstance(chal, PartsPreset)
    assert chal.parts * chal.part_size[0] >= 30 and chal.budget >= 1000 and chal.min_len >= 200
    assert chal.part_size[1] <= 9  # each part's BFS and proof stay small
    assert registry.get("lights").version == 4  # v5 is a preview: not the build default


def test_challenge_draws_verify_exactly_and_hide_their_parts() -> None:
    cfg = preset("challenge", "lights", 5)
    draft = sample(cfg, np.random.SeedSequence([7, 2, 1, 0, 0]))
    cert = verify(_task(draft))
    n = draft.world["n"]
    assert 35 <= n <= 45 and cert.method == "bfs"
    assert len(cert.facts["parts"]) == 5
    assert sorted(len(p) for p in cert.facts["parts"]) == sorted(draft.params["part_sizes"])
    assert cert.min_steps == sum(cert.facts["part_min_steps"]) == len(cert.witness)
    rules, state = Rules(draft.world), 0
    for action in cert.witness:
        state = rules.step(state, int(action))
    assert state == rules.goal
    # the labels are shuffled: no part is a run of consecutive bulbs
    assert not all(p == list(range(p[0], p[0] + len(p))) for p in cert.facts["parts"])


def test_per_part_random_bound_bounds_the_exact_probability() -> None:
    gen = np.random.default_rng(3)
    for _ in range(6):
        labels = [int(x) for x in gen.permutation(9)]
        world = _world([part_conditions(labels[:5], gen), part_conditions(labels[5:], gen)])
        exact = solve_probability(compiled(Rules, world), 60)
        bound = min(lazy_part_probability(world, p, 60) for p in parts(world["conditions"]))
        assert exact <= bound + 1e-12
    one = _world([part_conditions(list(range(6)), gen)])  # one part: the bound is exact
    assert lazy_part_probability(one, list(range(6)), 40) == \
        pytest.approx(solve_probability(compiled(Rules, one), 40), abs=1e-12)


def test_v5_random_bound_is_per_part_above_20_bulbs() -> None:
    draft = sample(preset("challenge", "lights", 5), np.random.SeedSequence([7, 2, 1, 0, 0]))
    found = random_bound(_task(draft))
    assert isinstance(found, dict) and found["method"] == "per-part"
    assert 0 <= found["bound"] < 1e-6


def test_parts_planner_plays_a_shortest_plan() -> None:
    from arena_gen.core.agent import TaskView
    from arena_gen.envs.lights.agents.planner import LightsPartsPlannerAgent

    draft = sample(preset("challenge", "lights", 5), np.random.SeedSequence([7, 2, 1, 0, 0]))
    agent = LightsPartsPlannerAgent()
    view = TaskView(task_id="t", env="lights", env_version=5, budget=draft.budget,
                    public=draft.public, rules_text=draft.rules_text)
    agent.reset(view, "with-rules", np.random.default_rng(0))
    assert len(agent.plan) == verify(_task(draft)).min_steps


def test_the_chain_learner_lights_a_world_by_induction_alone() -> None:
    """The inductive rung (no rules text, no world) on seed 7's first Challenge draws: it
    solves some within the budget and fails others (exact outcomes, seeded)."""
    from arena_gen.core.agent import TaskView
    from arena_gen.envs.lights.agents.chains import LightsChainLearnerAgent
    from arena_gen.envs.lights.game_v1 import state_line

    outcomes = []
    for attempt in range(6):
        draft = sample(preset("challenge", "lights", 5),
                       np.random.SeedSequence([7, 2, 1, 0, attempt]))
        rules, agent = Rules(draft.world), LightsChainLearnerAgent()
        view = TaskView(task_id="t", env="lights", env_version=5, budget=draft.budget,
                        public=draft.public)
        agent.reset(view, "inductive", np.random.default_rng(0))
        state, turns = 0, 0
        while turns < draft.budget and state != rules.goal:
            state = rules.step(state, int(agent.act(f"State: {state_line(state, rules.n)}")))
            turns += 1
        outcomes.append(state == rules.goal)
    assert any(outcomes) and not all(outcomes)


def test_build_versions_option_parses_and_refuses_unknown_versions() -> None:
    import click

    from arena_gen.cli.options import env_versions
    from arena_gen.core.errors import ArenaGenError

    assert env_versions("lights=5") == {"lights": 5}
    assert env_versions(None) == {}
    with pytest.raises(click.BadParameter, match="ENV=VERSION"):
        env_versions("lights")
    with pytest.raises(ArenaGenError):
        env_versions("lights=99")
