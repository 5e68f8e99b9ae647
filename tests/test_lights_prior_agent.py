"""The prior-aware lights learner's posterior is the generator's (issue 39): its predictions
equal the exact class's posterior after random toggle outcomes, and it lights small worlds."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import pytest

from arena_gen.core.agent import TaskView
from arena_gen.core.game import WorldView
from arena_gen.envs.lights.agents.prior import (
    LightsPosteriorSamplingAgent,
    LightsPriorAgent,
    generator_knobs,
)
from arena_gen.envs.lights.game_v1 import LightsGame, Rules
from arena_gen.envs.lights.induction import LightsClass, lights_class

KNOBS = (3, 0.55, 0.6)


@cache
def _class(n: int, min_len: int, budget: int) -> LightsClass:
    """The exact class (about 25 s at N = 4: built once for the module)."""
    return lights_class(n, max_literals=KNOBS[0], p_not=KNOBS[1], p_and=KNOBS[2],
                        min_len=min_len, budget=budget)


@pytest.mark.parametrize(("n", "seed"), [
    (3, 0), (3, 1),
    # 46,208 behaviours (3-literal chains appear at N = 4): 30 s to enumerate, an acceptance run
    pytest.param(4, 2, marks=pytest.mark.full)])
def test_predictions_are_the_exact_posterior(n: int, seed: int) -> None:
    """After each of 12 random toggles in a world of the class, every bulb's predicted
    toggle probability in every state is the class's posterior (acceptance off: every draw)."""
    cls = _class(n, 0, 10**6)
    rng = np.random.default_rng(seed)
    truth = int(rng.integers(len(cls.worlds)))
    world = Rules(cls.worlds[truth])
    # enabled[i, b, s]: whether bulb b flips in state s in behaviour i (the class's masks)
    enabled = np.array([[[(mask >> st) & 1 for st in range(1 << n)] for mask in behaviour]
                        for behaviour in cls.behaviours], dtype=bool)
    weights = np.array(cls.weights)
    alive = np.ones(len(cls.worlds), dtype=bool)
    agent = LightsPriorAgent()
    agent.start(n, KNOBS)
    state = 0
    for _ in range(12):
        bulb = int(rng.integers(n))
        after = world.step(state, bulb)
        toggled = after != state
        alive &= enabled[:, bulb, state] == toggled
        agent.observe(state, bulb, toggled)
        state = after
        want = np.einsum("i,ibs->bs", weights * alive, enabled) / weights[alive].sum()
        np.testing.assert_allclose(agent.p, want, atol=1e-5)


@pytest.mark.parametrize("factory", [LightsPriorAgent, LightsPosteriorSamplingAgent])
@pytest.mark.parametrize(("n", "every"), [(3, 1), pytest.param(4, 500, marks=pytest.mark.full)])
def test_it_lights_small_worlds(n: int, every: int, factory: type[LightsPriorAgent]) -> None:
    """On worlds of the class (every ``every``-th) it reaches all-on within 40 turns."""
    cls = _class(n, 0, 10**6)
    for drawn in cls.worlds[::every]:
        game = LightsGame(WorldView(world=drawn))
        agent = factory()
        agent.reset(TaskView(task_id="t", env="lights", budget=40, public={"n": n},
                             env_version=3), "inductive", np.random.default_rng(0))
        state, obs = 0, game.render(0)
        for _ in range(40):
            state, _event = game.step(state, game.parse(agent.act(obs)))
            obs = game.render(state)
            if game.success(state):
                break
        assert game.success(state), drawn


def test_knobs_are_the_versions() -> None:
    assert generator_knobs(3) == KNOBS


def test_posterior_sampling_draws_from_the_posterior() -> None:
    """Worlds drawn after 8 outcomes are consistent with them, and their toggle tables average
    to the posterior's predictions (2,000 draws; N 4, so orders and 3-literal chains vary)."""
    rng = np.random.default_rng(5)
    agent = LightsPosteriorSamplingAgent()
    agent.rng = rng
    agent.start(4, KNOBS)
    seen = [(0, 0, True), (1, 1, False), (1, 2, True), (5, 1, True), (7, 3, False),
            (7, 0, True), (6, 3, False), (6, 1, True)]
    for state, bulb, toggled in seen:
        agent.observe(state, bulb, toggled)
    drawn = [agent.draw() for _ in range(2000)]
    assert all(d is not None and all(d[b, s] == t for s, b, t in seen) for d in drawn)
    mean = np.mean(np.stack([d for d in drawn if d is not None]), axis=0)
    np.testing.assert_allclose(mean, agent.p, atol=0.05)


def test_run_offers_it_by_name_on_lights_v3_and_v4_only() -> None:
    from arena_gen.agents.registry import env_agents, make_agent
    from arena_gen.core.errors import ArenaGenError

    assert env_agents()["prior_aware"] == ["lights"]
    for version in (3, 4):
        assert type(make_agent("prior_aware", "lights", version=version)) is LightsPriorAgent
    with pytest.raises(ArenaGenError, match="plays lights v3, v4 tasks, not v2"):
        make_agent("prior_aware", "lights", version=2)
    assert generator_knobs(4) == generator_knobs(3) == KNOBS  # v4: v3's presets


def test_a_run_of_it_is_scored_against_the_reference(tmp_path: Path) -> None:
    """Released lights-lite-7-0005 (minimum 12), which the heuristic rung fails: the learner
    lights it in 26 turns, so its induction efficiency is (12/26)^2 = 0.213."""
    import arena_gen

    out = tmp_path / "run"
    arena_gen.run("lite", "prior_aware", out, tasks=["lights-lite-7-0005"])
    lights = arena_gen.score(out)["envs"]["lights"]
    assert (lights["success_rate"], lights["steps_mean"]) == (100.0, 26.0)
    assert lights["induction_efficiency"] == 0.213
    assert lights["induction_efficiency_reference"] == "lower bound: with-rules minimum"
