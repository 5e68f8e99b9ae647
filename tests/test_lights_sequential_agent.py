"""The sequential-search lights learner (issue 39's upper end): its values are the model's
exact ones (by hand on two bulbs, BFS distances when every toggle is certain), it lights
every world of a small class, and it is offered by name where the prior-aware learner is."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena_gen.core.agent import TaskView
from arena_gen.core.game import WorldView
from arena_gen.envs.lights.agents.particles import _FAR, distances
from arena_gen.envs.lights.agents.sequential import LightsSequentialAgent, sequential_values
from arena_gen.envs.lights.game_v1 import LightsGame, Rules
from arena_gen.envs.lights.induction import lights_class
from arena_gen.envs.lights.sampler import make_conditions


def test_values_by_hand_on_two_bulbs() -> None:
    """B0 always flips, B1 with probability 1/2 anywhere. From B1 alone on, B0 finishes: 1.
    From B0 alone on, try B1 (key 1/p + 0 = 2, B0's is 1 + V(off)): 1 + (1/2)(1 + V(off)).
    From all off, try B1 first (key 2 + 1 = 3 < 1 + V(B0 on)): 1 + 1/2 * 1 + (1/2)(1 +
    V(B0 on)). Solved: V(off) = 11/3, V(B0 on) = 10/3."""
    p = np.array([[1.0, 1.0, 1.0, 1.0], [0.5, 0.5, 0.5, 0.5]])
    np.testing.assert_allclose(sequential_values(p), [11 / 3, 10 / 3, 1.0, 0.0], atol=1e-5)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 6), seed=st.integers(0, 2**32 - 1))
def test_certain_toggles_give_bfs_distances(n: int, seed: int) -> None:
    """When every toggle's outcome is known (p 0 or 1), the model's values are the world's
    exact distances to all-on (infinite where all-on is unreachable)."""
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    order = [int(b) for b in rng.permutation(n)]
    world = {"n": n, "order": order, "conditions": make_conditions(
        n, order, rng, max_literals=3, p_not=0.55, p_and=0.6)}
    enabled = np.stack(Rules(world).enabled_masks(np.arange(1 << n)))
    got, want = sequential_values(enabled.astype(float)), distances(enabled)
    assert np.array_equal(np.isinf(got), want == _FAR)
    np.testing.assert_array_equal(got[want != _FAR], want[want != _FAR])


def test_it_lights_every_world_of_a_small_class() -> None:
    """Every world of lights N 3 (up to 2 literals, floor 2) reaches all-on within 40 turns."""
    cls = lights_class(3, budget=40, max_literals=2, p_not=0.55, p_and=0.6, min_len=2)
    for drawn in cls.worlds:
        game = LightsGame(WorldView(world=drawn))
        agent = LightsSequentialAgent()
        agent.reset(TaskView(task_id="t", env="lights", budget=40, public={"n": 3},
                             env_version=4), "inductive", np.random.default_rng(0))
        state, obs = 0, game.render(0)
        for _ in range(40):
            state, _event = game.step(state, game.parse(agent.act(obs)))
            obs = game.render(state)
            if game.success(state):
                break
        assert game.success(state), drawn


def test_offered_by_name_on_lights_v3_and_v4_only() -> None:
    from arena_gen.agents.registry import make_agent
    from arena_gen.core.errors import ArenaGenError

    for version in (3, 4):
        agent = make_agent("prior_sequential", "lights", version=version)
        assert type(agent) is LightsSequentialAgent
    with pytest.raises(ArenaGenError, match="not v2"):
        make_agent("prior_sequential", "lights", version=2)
