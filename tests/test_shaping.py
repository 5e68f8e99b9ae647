"""Certified dense rewards: along every released witness and on random play, the shaped return
is the sparse return plus Phi(final) - Phi(initial). Lights and repo: Phi is 0 at success and
minus the exact distance elsewhere (checked against the verifier's own forward search), and a
step that brings the goal closer is rewarded. Trading and energy: Phi is minus the regret against
the certificate's witness on the same day (recomputed here from the env's info), 0 along the
witness and at every end, so a terminated episode's shaped return is its sparse return."""

from __future__ import annotations

import dataclasses
import json
from functools import cache
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena_gen.core import registry
from arena_gen.core.errors import RegistryError
from arena_gen.core.task import Task
from arena_gen.envs.lights.bfs import bfs
from arena_gen.envs.lights.parts import solve_parts
from arena_gen.train.released import released_tasks
from arena_gen.train.shaping import ShapedEnv, shaped

#: The envs whose newest version declares a certified potential.
SHAPED_ENVS = [name for name in ("lights", "trading", "energy", "repo")
               if registry.get(name).potential is not None]
#: Phi is minus the exact distance to success (0 at success).
DISTANCE_ENVS = ["lights", "repo"]
#: Phi is minus the regret against the certificate's witness on the same day (0 at every end).
REGRET_ENVS = ["trading", "energy"]
#: Witness replays over the default run's time (repo's moderate Challenge, v5: a SAT query
#: per new state; the paper-scale v6 tasks are looked up group by group).
SLOW: set[tuple[str, str]] = {("repo", "challenge")}


@cache
def tasks(env: str) -> list[Task]:
    """Every released task of ``env`` (the paper-scale Challenge's lights and repo worlds are
    shaped part by part: ``tests/test_shaping_parts.py``)."""
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


def test_every_env_is_shaped() -> None:
    assert SHAPED_ENVS == ["lights", "trading", "energy", "repo"]


def shaped_tasks(env: str, suite: str) -> list[Task]:
    """The released tasks of ``env`` in ``suite`` (``import``: those of odyssey-lite) whose own
    env version has a potential."""
    return [t for t in tasks(env) if t.suite == suite and
            registry.for_task(t).potential is not None]


#: (env, suite) pairs whose witnesses the default run replays (odyssey-lite's tasks are
#: ``import``; its trading and energy tasks are v1, whose witnesses are the perfect-foresight
#: oracle's and the whole-horizon LP's); the slow ones are marked.
WITNESS_CASES = [pytest.param(env, suite, marks=[pytest.mark.slow] if (env, suite) in SLOW else [])
                 for env in SHAPED_ENVS for suite in ("lite", "challenge", "import")]


@pytest.mark.parametrize(("env_name", "suite"), WITNESS_CASES)
def test_every_released_witness_keeps_its_return_up_to_the_potential_difference(
        env_name: str, suite: str) -> None:
    chosen = shaped_tasks(env_name, suite)
    if suite in ("lite", "challenge"):  # every task of the two built suites has a potential
        assert len(chosen) == len([t for t in tasks(env_name) if t.suite == suite]) > 0
    else:  # every env version of odyssey-lite has a potential
        assert len(chosen) == len([t for t in tasks(env_name) if t.suite == suite]) > 0
    for task in chosen:
        witness = task.certificate.witness
        env, infos, rewards, seen, plain_seen = play(task, witness)
        sparse = sum(i["sparse_reward"] for i in infos[1:])
        start, final = infos[0]["potential"], infos[-1]["potential"]
        assert len(rewards) == len(witness), task.id
        assert infos[-1]["success"] is True, task.id
        assert final == 0.0, task.id
        assert sum(rewards) == pytest.approx(sparse + final - start), task.id
        assert seen == plain_seen, task.id  # the agent never sees Phi
        if env_name in REGRET_ENVS:  # on the witness the regret is 0 every day
            assert [i["potential"] for i in infos] == [0.0] * len(infos), task.id
            assert sum(rewards) == sparse, task.id
            assert sparse == pytest.approx(witness_sparse(task), abs=0.01, rel=1e-5), task.id
            continue
        assert sparse == 1.0, task.id
        if task.certificate.min_steps == len(witness):  # an optimal witness: one step closer
            assert start == -len(witness), task.id       # every turn, +1 shaping every turn
            assert [i["shaping"] for i in infos[1:]] == [1.0] * len(witness), task.id


@settings(max_examples=12, deadline=None)
@given(index=st.integers(0, 10_000), prefix=st.integers(0, 12), seed=st.integers(0, 2**32 - 1),
       count=st.integers(0, 25))
@pytest.mark.parametrize("env_name", DISTANCE_ENVS)
def test_random_play_keeps_the_identity_and_no_step_gains_more_than_one(
        env_name: str, index: int, prefix: int, seed: int, count: int) -> None:
    """Part of a witness (to reach states near success), then the env's random actions: the
    telescoping identity holds, and d(s) <= 1 + d(s') caps every shaping term at 1."""
    pool = shaped_tasks(env_name, "lite")
    task = pool[index % len(pool)]
    rng = np.random.default_rng(seed)
    probe = registry.make_env(task)
    actions = task.certificate.witness[:prefix] + [probe.sample_action(rng) for _ in range(count)]
    env, infos, rewards, seen, plain_seen = play(task, actions)
    potentials = [i["potential"] for i in infos]
    sparse = sum(i["sparse_reward"] for i in infos[1:])
    assert sum(rewards) == pytest.approx(sparse + potentials[-1] - potentials[0])
    assert all(i["shaping"] <= 1.0 for i in infos[1:])
    assert all(p <= 0.0 and p == int(p) for p in potentials)
    assert [p == 0.0 for p in potentials] == [i["success"] for i in infos]
    assert seen == plain_seen


def witness_sparse(task: Task) -> float:
    """The sparse return of a regret env's witness by its certificate: the planner's profit in
    money (trading v3 and later), the perfect-foresight oracle's (trading v1, whose certificate
    gives it as a fraction of the initial cash), the success reward (energy)."""
    if task.env == "trading":
        cash = float(task.world["initial_cash"])
        if "planner_final_value" in task.certificate.facts:
            return float(task.certificate.facts["planner_final_value"]) - cash
        return float(task.certificate.facts["oracle_profit"]) * cash
    return 1.0


def measures(task: Task, infos: list[dict[str, Any]]) -> list[float]:
    """V of each info of an episode, recomputed from the env's own info (not the potential's
    code): trading the total value; energy the banked stability and carbon margins in days,
    summed from the daily records of the days that advanced."""
    if task.env == "trading":
        return [float(i["total_value"]) for i in infos]
    world = task.world
    horizon = int(world["horizon"])
    mean_demand = sum(world["demand"][:horizon]) / horizon
    target_s, target_c = float(world["target_stability"]), float(world["target_carbon"])
    out, stab, supply, thermal, day = [], 0.0, 0.0, 0.0, 0
    for info in infos:
        if info["day"] > day:
            record = info["last_day"]
            stab += record["stability"]
            supply += record["supply"]
            thermal += record["actual"]["thermal"]
            day = info["day"]
        out.append(stab - target_s * day + (target_c * supply - thermal) / mean_demand)
    return out


def ended(info: dict[str, Any]) -> bool:
    """Whether an info's state ends the episode by the rules (horizon, or energy's collapse)."""
    return bool(info["day"] >= info["horizon"] or info.get("collapsed", False))


def witness_measures(task: Task) -> dict[int, float]:
    """V of the witness's last state on each day (played through a plain env)."""
    return _witness_measures(task.env, task.id)


@cache
def _witness_measures(env_name: str, task_id: str) -> dict[int, float]:
    task = next(t for t in tasks(env_name) if t.id == task_id)
    env = registry.make_env(task)
    _, info = env.reset()
    infos = [info]
    for action in task.certificate.witness:
        infos.append(env.step(action)[4])
    return {i["day"]: v for i, v in zip(infos, measures(task, infos), strict=True)}


REGRET_ACTION = {
    "trading": st.one_of(st.just("{}"), st.just("not json"), st.just('{"buy": {"S0": -1}}'),
                         st.builds(lambda side, stock, qty: f'{{"{side}": {{"S{stock}": {qty}}}}}',
                                   st.sampled_from(["buy", "sell"]), st.integers(0, 4),
                                   st.integers(0, 3000))),
    "energy": st.one_of(st.just(""), st.just('{"Thermal": 1}'), st.just("[1, 2]"),
                        st.builds(lambda t, w, s, b: json.dumps({"thermal": t, "wind": w,
                                                                 "solar": s, "battery": b}),
                                  *(st.floats(0, 400),) * 3, st.floats(-100, 100))),
}


@settings(max_examples=25, deadline=None)
@given(index=st.integers(0, 10_000), prefix=st.integers(0, 130), data=st.data())
@pytest.mark.parametrize("env_name", REGRET_ENVS)
def test_random_play_potential_is_minus_the_regret_against_the_witness(
        env_name: str, index: int, prefix: int, data: st.DataObject) -> None:
    """Part of a witness, then random and invalid actions: Phi is V(s) - V*(day) recomputed
    from the env's info, 0 at the start and at every end, the identity holds, an invalid
    energy action (no day passes) shapes 0, and a terminated episode's return is its sparse
    return."""
    pool = shaped_tasks(env_name, "lite")
    task = pool[index % len(pool)]
    actions = (task.certificate.witness[:prefix] +
               data.draw(st.lists(REGRET_ACTION[env_name], max_size=25)))
    env, infos, rewards, seen, plain_seen = play(task, actions)
    potentials = [i["potential"] for i in infos]
    sparse = sum(i["sparse_reward"] for i in infos[1:])
    best = witness_measures(task)
    expected = [0.0 if ended(i) else v - best[i["day"]]
                for i, v in zip(infos, measures(task, infos), strict=True)]
    assert potentials == pytest.approx(expected, rel=1e-9, abs=1e-9)
    assert potentials[0] == 0.0
    assert [p == 0.0 for p in potentials[:prefix + 1]] == [True] * min(prefix + 1, len(infos))
    assert sum(rewards) == pytest.approx(sparse + potentials[-1] - potentials[0])
    assert seen == plain_seen
    for info in infos[1:]:
        if env_name == "energy" and not info["valid"]:
            assert info["shaping"] == 0.0
    if ended(infos[-1]):
        assert potentials[-1] == 0.0
        assert sum(rewards) == pytest.approx(sparse, abs=1e-6 * max(1.0, abs(sparse)))


def worse_actions(task: Task) -> list[str]:
    """A policy worse than the witness: trading holds cash all along; energy plays the
    witness with 10 % more thermal (more carbon, over the budget the witness keeps to)."""
    if task.env == "trading":
        return ["{}"] * len(task.certificate.witness)
    out = []
    for action in task.certificate.witness:
        command = json.loads(action)
        command["thermal"] *= 1.1
        out.append(json.dumps(command))
    return out


@pytest.mark.parametrize("env_name", REGRET_ENVS)
def test_a_worse_policy_falls_behind_the_witness(env_name: str) -> None:
    """Every released Lite and Challenge task: holding cash (trading) ends the day before the
    horizon behind the planner, 10 % more thermal (energy) is behind the witness on every day
    before its end (it breaks the budget and collapses); both fail, and Phi returns to 0 at the
    end, so the shaped return is the sparse one."""
    chosen = shaped_tasks(env_name, "lite") + shaped_tasks(env_name, "challenge")
    assert len(chosen) == 50  # Lite's 30, each Challenge's 10
    for task in chosen:
        env = shaped(registry.make_env(task))
        infos, rewards = [env.reset()[1]], []
        for action in worse_actions(task):
            _, reward, terminated, truncated, info = env.step(action)
            infos.append(info)
            rewards.append(float(reward))
            if terminated or truncated:
                break
        potentials = [i["potential"] for i in infos]
        sparse = sum(i["sparse_reward"] for i in infos[1:])
        assert infos[-1]["success"] is False and ended(infos[-1]), task.id
        assert potentials[0] == potentials[-1] == 0.0, task.id
        assert sum(rewards) == pytest.approx(sparse, abs=1e-6), task.id
        if env_name == "trading":
            assert sparse == 0.0 and potentials[-2] < 0, task.id
        else:
            assert infos[-1]["collapsed"] is True, task.id
            assert all(p < 0 for p in potentials[1:-1]) and len(potentials) > 2, task.id


@pytest.mark.parametrize("env_name", REGRET_ENVS)
def test_a_discounted_regret_return_is_the_discounted_sparse_return(env_name: str) -> None:
    """Phi is 0 at the start and at the end, so with any gamma a terminated episode's shaped
    discounted return equals its sparse discounted return."""
    task = shaped_tasks(env_name, "lite")[0]
    for actions in (task.certificate.witness, worse_actions(task)):
        env = shaped(registry.make_env(task), gamma=0.9)
        env.reset()
        shaped_return = sparse_return = 0.0
        for turn, action in enumerate(actions):
            _, reward, terminated, truncated, info = env.step(action)
            shaped_return += 0.9 ** turn * float(reward)
            sparse_return += 0.9 ** turn * info["sparse_reward"]
            if terminated or truncated:
                break
        assert terminated and info["potential"] == 0.0
        assert shaped_return == pytest.approx(sparse_return, abs=1e-6 * max(1.0, sparse_return))


@pytest.mark.parametrize("env_name", REGRET_ENVS)
def test_a_task_without_a_witness_gets_it_from_the_planner_or_verifier(env_name: str) -> None:
    """With the certificate's witness blanked, the potential plays the planner (trading) or
    runs the verifier (energy) for it: the same actions, so Phi is still 0 along them."""
    task = shaped_tasks(env_name, "lite")[1]
    bare = dataclasses.replace(task, certificate=dataclasses.replace(task.certificate,
                                                                     witness=[]))
    env = shaped(registry.make_env(bare))
    potentials = [env.reset()[1]["potential"]]
    potentials += [env.step(action)[4]["potential"] for action in task.certificate.witness]
    assert potentials == [0.0] * (len(task.certificate.witness) + 1)


@pytest.mark.parametrize("env_name", REGRET_ENVS)
def test_a_short_or_hostile_witness_keeps_phi_defined(env_name: str) -> None:
    """A certificate witness cut at day 10 with two invalid actions appended (trading: two
    holds, days 11 and 12; energy: no day passes): the days past its end compare with its last
    state, so Phi is V(s) - V*(min(day, last day)) with V* recomputed from a plain replay of
    the cut witness, and 0 at the end."""
    task = shaped_tasks(env_name, "lite")[2]
    cut = task.certificate.witness[:10] + ["not json", '{"buy": {"S0": -1}}']
    short = dataclasses.replace(task, certificate=dataclasses.replace(task.certificate,
                                                                      witness=cut))
    plain = registry.make_env(short)
    cut_infos = [plain.reset()[1]] + [plain.step(action)[4] for action in cut]
    best = {i["day"]: v for i, v in zip(cut_infos, measures(task, cut_infos), strict=True)}
    last = max(best)
    assert last == (12 if env_name == "trading" else 10)
    env = shaped(registry.make_env(short))
    infos = [env.reset()[1]]
    infos += [env.step(action)[4] for action in task.certificate.witness]
    for info, value in zip(infos[:-1], measures(task, infos), strict=False):
        assert info["potential"] == pytest.approx(value - best[min(info["day"], last)],
                                                  abs=1e-9)
    assert [i["potential"] for i in infos[:11]] == [0.0] * 11
    assert infos[-1]["success"] and infos[-1]["potential"] == 0.0


def test_lights_potential_at_start_is_minus_the_certified_minimum() -> None:
    lights = tasks("lights")
    assert {t.suite for t in lights} >= {"lite", "challenge"}
    for task in lights:
        env = shaped(registry.make_env(task))
        _, info = env.reset()
        assert task.certificate.method == "bfs"
        assert info["potential"] == -task.certificate.min_steps, task.id


def exact_distance(task: Task, state: int) -> int | None:
    """The verifier's forward BFS from ``state`` (part by part above 20 bulbs, as the v5
    verifier searches): written apart from the potential's table."""
    if task.world["n"] > 20:
        return solve_parts(task.world, start=state).min_steps
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
    built = next(t for t in tasks("repo") if t.suite == "lite")
    with pytest.raises(RegistryError, match="'repo' v1"):  # v1: its own game, no potential
        shaped(registry.make_env(built), spec=registry.get("repo", 1))


def test_only_a_game_env_can_be_shaped() -> None:
    with pytest.raises(TypeError, match="GameEnv"):
        shaped(gym.make("CartPole-v1"))  # type: ignore[arg-type]


def repo_commands(game: Any) -> list[str]:
    """Every command text that can change a repo v2+ state: each Python, each exact install,
    each uninstall, and ``python run.py`` (a bare or ranged install picks one exact version)."""
    from arena_gen.envs.repo.semver import version_text

    r = game.rules
    return ([f"pip install python=={version_text(py)}" for py in r.pythons] +
            [f"pip install {r.names[p]}=={r.vname(p, v)}"
             for p in range(r.n) for v in range(len(r.versions[p]))] +
            [f"pip uninstall {name}" for name in r.names] + ["python run.py"])


def game_bfs(game: Any, start: Any, cap: int) -> int | None:
    """Turns from ``start`` to success by breadth-first search through the game's own ``act``
    (no verifier code), or None beyond ``cap``."""
    commands = repo_commands(game)
    frontier, seen = [start], {start}
    for depth in range(cap + 1):
        if any(game.done(s) for s in frontier):
            return depth
        if depth == cap:
            break
        after = []
        for state in frontier:
            for command in commands:
                nxt = game.act(state, command)[0]
                if nxt not in seen:
                    seen.add(nxt)
                    after.append(nxt)
        frontier = after
    return None


@pytest.mark.slow
def test_repo_potential_off_the_witness_matches_a_search_through_the_game() -> None:
    """One random command off a witness two turns before its end: minus Phi is the depth at
    which a breadth-first search through ``RepoGame.act`` first reaches success (checked for
    every such state within 3 turns of success)."""
    rng = np.random.default_rng(2027)
    checked = []
    for task in shaped_tasks("repo", "lite")[:10]:
        env = shaped(registry.make_env(task))
        env.reset()
        for action in task.certificate.witness[:-2] + [env.base.sample_action(rng)]:
            env.step(action)
        if -env.potential <= 3:
            found = game_bfs(env.base.game, env.base.state, cap=int(-env.potential))
            assert found == -env.potential, task.id
            checked.append(found)
    assert len(checked) >= 5 and set(checked) >= {2, 3}


def test_repo_potential_with_an_older_python_matches_a_search_through_the_game() -> None:
    """Two turns before a witness's end, the oldest Python selected instead: keeping it or
    switching back, whichever is shorter, is what a search through ``act`` finds."""
    from arena_gen.envs.repo.semver import version_text

    found = []
    for task in shaped_tasks("repo", "lite")[:6]:
        env = shaped(registry.make_env(task))
        env.reset()
        oldest = version_text(min(env.base.game.rules.pythons))
        for action in task.certificate.witness[:-2] + [f"pip install python=={oldest}"]:
            env.step(action)
        assert env.base.state.python == env.base.game.rules.pythons.index(
            min(env.base.game.rules.pythons))
        distance = int(-env.potential)
        assert game_bfs(env.base.game, env.base.state, cap=distance) == distance, task.id
        found.append(distance)
    assert set(found) <= {2, 3} and found


def test_a_gymnasium_made_env_is_shaped_through_its_wrappers() -> None:
    import arena_gen  # noqa: F401  (registers the arena_gen/... ids)

    task = next(t for t in tasks("lights") if t.suite == "lite")
    env = shaped(gym.make(f"arena_gen/TurnOnLights-v{task.env_version}", task=task))
    _, info = env.reset()
    assert info["potential"] == -task.certificate.min_steps
    total = sum(float(env.step(a)[1]) for a in task.certificate.witness)
    assert total == 1.0 + task.certificate.min_steps
