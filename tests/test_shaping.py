"""Certified dense rewards: along every released witness and on random play, the shaped return
is the sparse return plus Phi(final) - Phi(initial), Phi is 0 at success and minus the exact
distance elsewhere (checked against the verifier's own forward search), and a step that brings
the goal closer is rewarded."""

from __future__ import annotations

from functools import cache
from typing import Any

import gymnasium as gym
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena_gen.core import registry
from arena_gen.core.errors import RegistryError
from arena_gen.core.task import Task
from arena_gen.envs.lights.bfs import bfs
from arena_gen.train import ShapedEnv, shaped
from arena_gen.train.released import released_tasks

#: The envs whose newest version declares a certified potential.
SHAPED_ENVS = [name for name in ("lights", "trading", "energy", "repo")
               if registry.get(name).potential is not None]


@cache
def tasks(env: str) -> list[Task]:
    """Every released task of ``env`` (lite, challenge, odyssey-lite)."""
    return released_tasks(env)


def play(task: Task, actions: list[str]) -> tuple[ShapedEnv, list[dict[str, Any]], list[float],
                                                  list[str], list[str]]:
    """Play ``actions`` in the shaped env and in a plain one side by side: the infos, shaped
    rewards and observations of the shaped env, and the plain env's observations."""
    env, plain = shaped(registry.make_env(task)), registry.make_env(task)
    obs, info = env.reset()
    plain_obs, _ = plain.reset()
    infos, rewards, seen, plain_seen = [info], [], [obs], [plain_obs]
    for action in actions:
        obs, reward, terminated, truncated, info = env.step(action)
        plain_obs, *_ = plain.step(action)
        infos.append(info)
        rewards.append(float(reward))
        seen.append(obs)
        plain_seen.append(plain_obs)
        if terminated or truncated:
            break
    return env, infos, rewards, seen, plain_seen


def test_some_env_is_shaped() -> None:
    assert "lights" in SHAPED_ENVS


@pytest.mark.parametrize("env_name", SHAPED_ENVS)
def test_every_released_witness_keeps_its_return_up_to_the_potential_difference(
        env_name: str) -> None:
    checked = 0
    for task in tasks(env_name):
        witness = task.certificate.witness
        env, infos, rewards, seen, plain_seen = play(task, witness)
        sparse = sum(i["sparse_reward"] for i in infos[1:])
        start, final = infos[0]["potential"], infos[-1]["potential"]
        assert len(rewards) == len(witness), task.id
        assert infos[-1]["success"] is True, task.id
        assert final == 0.0, task.id
        assert sum(rewards) == pytest.approx(sparse + final - start), task.id
        assert sparse == 1.0, task.id
        if task.certificate.min_steps == len(witness):  # an optimal witness: one step closer
            assert start == -len(witness), task.id       # every turn, +1 shaping every turn
            assert [i["shaping"] for i in infos[1:]] == [1.0] * len(witness), task.id
        assert seen == plain_seen, task.id  # the agent never sees Phi
        checked += 1
    assert checked == len(tasks(env_name)) > 0


def test_lights_potential_at_start_is_minus_the_certified_minimum() -> None:
    lights = tasks("lights")
    assert {t.suite for t in lights} >= {"lite", "challenge"}
    for task in lights:
        env = shaped(registry.make_env(task))
        _, info = env.reset()
        assert task.certificate.method == "bfs"
        assert info["potential"] == -task.certificate.min_steps, task.id


def exact_distance(task: Task, state: int) -> int | None:
    """The verifier's forward BFS from ``state``: written apart from the potential's table."""
    return bfs(task.world, start=state, explore_all=False).min_steps


ACTION = st.one_of(st.integers(0, 11).map(str), st.sampled_from(["B3", " 2 ", "x", "", "99"]))


@settings(max_examples=60, deadline=None)
@given(index=st.integers(0, 10_000), actions=st.lists(ACTION, max_size=40))
def test_random_lights_play_keeps_the_identity_and_rewards_progress(
        index: int, actions: list[str]) -> None:
    task = tasks("lights")[index % len(tasks("lights"))]
    env, infos, rewards, seen, plain_seen = play(task, actions)
    sparse = [i["sparse_reward"] for i in infos[1:]]
    potentials = [i["potential"] for i in infos]
    assert sum(rewards) == pytest.approx(sum(sparse) + potentials[-1] - potentials[0])
    assert seen == plain_seen
    found = [exact_distance(task, i["state"]) for i in infos]
    distances = [d for d in found if d is not None]
    assert len(distances) == len(found)  # a sampled world has no dead end
    assert potentials == [-d for d in distances]
    for before, after, info in zip(distances, distances[1:], infos[1:], strict=False):
        assert info["shaping"] == float(before - after)
        if after < before:
            assert info["shaping"] > 0
    if infos[-1]["success"]:
        assert potentials[-1] == 0.0


def test_the_discount_scales_the_next_potential() -> None:
    task = tasks("lights")[0]
    env = shaped(registry.make_env(task), gamma=0.5)
    _, info = env.reset()
    start = info["potential"]
    _, reward, *_, info = env.step(task.certificate.witness[0])
    assert reward == pytest.approx(info["sparse_reward"] + 0.5 * (start + 1) - start)


def test_an_env_without_a_potential_is_refused_by_name() -> None:
    unshaped = [name for name in ("trading", "energy", "repo") if name not in SHAPED_ENVS]
    for name in unshaped:
        with pytest.raises(RegistryError, match=name):
            shaped(registry.make_env(tasks(name)[0]))


def test_only_a_game_env_can_be_shaped() -> None:
    with pytest.raises(TypeError, match="GameEnv"):
        shaped(gym.make("CartPole-v1"))  # type: ignore[arg-type]
