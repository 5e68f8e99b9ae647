"""Gymnasium environments that play a new certified task at every reset, for vector envs.

Importing this module registers ``arena_gen/<Name>-<level>-v<N>`` for every env version and
level (``arena_gen/TurnOnLights-lite-v3``): the text env of that version, whose task comes from
the certified stream of that level (:func:`arena_gen.train.stream.stream`), or, with
``suite=NAME_OR_FOLDER``, from a suite's tasks of that env version. So
``gymnasium.make_vec(id, num_envs, vectorization_mode="sync"|"async")`` works as for any id;
:func:`make_vec` does the same from an env name and picks the vector options that suit text.

Seeds: ``reset(seed=s)`` starts the task sequence of seed ``s`` (stream seed ``s``, index 0);
each later ``reset()`` (also a vector env's autoreset) plays the next index. Task ``i`` of seed
``s`` is stream task ``i`` of seed ``s`` (the same bytes as ``arena-gen stream --seed s``), or,
from a suite, the ``i``-th of a shuffled order of its tasks drawn from ``SeedSequence([s, round])``
(each round a new order). A vector env gives sub-env ``k`` the seed Gymnasium gives it (``s + k``
for ``reset(seed=s)``, or the ``k``-th of a list), so same seeds, same episodes, in sync and async
mode alike. A first ``reset()`` without a seed draws one from Gymnasium's own unseeded RNG.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector.utils import concatenate

from arena_gen.core import registry
from arena_gen.core.budget import protocol_for
from arena_gen.core.errors import ArenaGenError
from arena_gen.core.game_env import GameEnv, text_space
from arena_gen.core.protocol import DEFAULT_HARNESS, check_harness
from arena_gen.core.suite_io import read_manifest, read_suite, resolve_suite
from arena_gen.core.task import Task
from arena_gen.train.info_merge import merge_columns, merge_info
from arena_gen.train.stream import LEVELS, StreamJob, draw, stream

#: A seed drawn for a first unseeded reset is below this (stream seeds are non-negative ints).
SEED_BOUND = 2**31 - 1
#: What a step's ``info`` holds: ``full`` (the text env's, every fact) or ``lean`` (only
#: ``success`` on the step that ends an episode; a reset's info is :data:`EPISODE_KEYS`).
INFO_MODES = ("full", "lean")
#: The reset info keys a ``lean`` env keeps: which task, and what it is measured against
#: (``min_steps`` left out where it is None, as in a full info).
EPISODE_KEYS = ("task_id", "task_index", "stream_seed", "min_steps", "budget")


def check_info_mode(info: str) -> str:
    """``info`` if it is one of :data:`INFO_MODES`, else a clear error."""
    if info not in INFO_MODES:
        raise ArenaGenError(f"info must be one of {', '.join(INFO_MODES)}, got {info!r}")
    return info


@dataclass(frozen=True)
class StreamSource:
    """Tasks of one env version's certified stream at one level."""

    env: str
    version: int
    level: str
    ladder: bool
    released: frozenset[str]

    def task(self, seed: int, index: int) -> Task:
        """Stream task ``index`` of ``seed`` (the bytes ``arena-gen stream`` writes)."""
        job = StreamJob(self.env, self.version, self.level, seed, index, self.ladder,
                        self.released)
        return draw(job).task


@dataclass(frozen=True)
class SuiteSource:
    """One env version's tasks of a suite, in a seeded order that changes every round."""

    tasks: tuple[Task, ...]

    def task(self, seed: int, index: int) -> Task:
        """Task ``index`` of ``seed``: position ``index % n`` of round ``index // n``'s order."""
        rounds, at = divmod(index, len(self.tasks))
        return self.tasks[suite_order(seed, rounds, len(self.tasks))[at]]


@functools.lru_cache(maxsize=256)
def suite_order(seed: int, rounds: int, size: int) -> tuple[int, ...]:
    """Round ``rounds``'s order of a suite of ``size`` tasks under ``seed`` (kept: every reset
    of a round reads it, and seeding a generator costs more than a short episode's step)."""
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, rounds])))
    return tuple(int(i) for i in rng.permutation(size))


TaskSource = StreamSource | SuiteSource


def task_source(env: str, version: int, *, level: str = "lite", suite: str | None = None,
                ladder: bool = False) -> TaskSource:
    """Where an env's resets take their tasks: the level's stream, or ``suite``'s tasks of this
    env version (an error names the versions the suite holds if it has none of this one)."""
    if suite is None:
        found = stream(env, level, 0, version=version, count=0, ladder=ladder)
        return StreamSource(env, found.version, level, ladder, found.released)
    tasks = read_suite(resolve_suite(suite), envs=[env]).tasks.get(env, [])
    mine = tuple(t for t in tasks if t.env_version == version)
    if not mine:
        held = sorted({t.env_version for t in tasks})
        raise ArenaGenError(f"suite {suite!r} holds no {env} v{version} tasks (it holds "
                            f"{', '.join(f'v{v}' for v in held) or 'none'})")
    return SuiteSource(mine)



def present(info: dict[str, Any]) -> dict[str, Any]:
    """``info`` without its None values: Gymnasium's vector info merge fails when one sub-env
    holds None where another holds a dict (energy's ``last_day`` before the first day); an
    absent key is what its ``_key`` mask reports per sub-env."""
    return {k: v for k, v in info.items() if v is not None}


class TextSyncVectorEnv(gym.vector.SyncVectorEnv):
    """Gymnasium's sync vector env, stepping text sub-envs with less work per sub-env step:
    the same spaces, seeds, next-step autoreset and returned values (observations a tuple of
    str, rewards float64, flags bool, infos merged column-wise by :func:`merge_columns`),
    compared with Gymnasium's own class in ``tests/test_vector.py``. What it does not speed up
    (other autoreset modes, ``reset_mask``, observations that are not str) is Gymnasium's."""

    def reset(self, *, seed: int | list[int | None] | None = None,
              options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Reset every sub-env (Gymnasium's seeds: ``s + k`` for an int, or the list)."""
        if options is not None and "reset_mask" in options:
            return super().reset(seed=seed, options=options)
        num = self.num_envs
        if seed is None:
            seeds: list[int | None] = [None] * num
        elif isinstance(seed, int):
            seeds = [seed + i for i in range(num)]
        else:
            seeds = list(seed)
        if len(seeds) != num:
            raise ValueError(f"If seeds are passed as a list the length must match "
                             f"num_envs={num} but got length={len(seeds)}.")
        self._terminations = np.zeros((num,), dtype=np.bool_)
        self._truncations = np.zeros((num,), dtype=np.bool_)
        self._autoreset_envs = np.zeros((num,), dtype=np.bool_)
        infos = []
        for i, (env, single_seed) in enumerate(zip(self.envs, seeds, strict=True)):
            self._env_obs[i], info = env.reset(seed=single_seed, options=options)
            infos.append((i, info))
        return self._batch(), merge_columns(num, infos)

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray,
                                          dict[str, Any]]:
        """Step every sub-env (or reset those whose episode ended last step)."""
        if self.autoreset_mode != gym.vector.AutoresetMode.NEXT_STEP:
            return super().step(actions)
        obs, infos = self._env_obs, []
        rewards: list[Any] = []
        terminations: list[Any] = []
        truncations: list[Any] = []
        restarts = self._autoreset_envs.tolist()
        if len(actions) != len(restarts):
            raise ValueError(f"{len(actions)} actions for {len(restarts)} sub-envs")
        for i, env in enumerate(self.envs):
            if restarts[i]:
                obs[i], info = env.reset()
                reward: Any = 0.0
                terminated, truncated = False, False
            else:
                obs[i], reward, terminated, truncated, info = env.step(actions[i])
            rewards.append(reward)
            terminations.append(terminated)
            truncations.append(truncated)
            if info:  # merging an empty info adds nothing (a lean step's usual one)
                infos.append((i, info))
        # one array each, cast as Gymnasium's element-wise writes into its own arrays cast; the
        # returned ones are the caller's (a masked reset writes into this env's own copies)
        ended = np.array(terminations, dtype=np.bool_)
        cut = np.array(truncations, dtype=np.bool_)
        self._terminations, self._truncations = ended.copy(), cut.copy()
        self._autoreset_envs = ended | cut
        return (self._batch(), np.array(rewards, dtype=np.float64), ended, cut,
                merge_columns(self.num_envs, infos))

    def _batch(self) -> Any:
        """The observations as Gymnasium batches text (a tuple; a str needs no copy)."""
        if all(type(o) is str for o in self._env_obs):
            self._observations = tuple(self._env_obs)
            return self._observations
        self._observations = concatenate(self.single_observation_space, self._env_obs,
                                         self._observations)
        return copy.deepcopy(self._observations) if self.copy else self._observations


class TextAsyncVectorEnv(gym.vector.AsyncVectorEnv):
    """Gymnasium's async vector env with the cheaper sequential info merge
    (:func:`merge_info`)."""

    _add_info = merge_info


class TaskStreamEnv(gym.Env[str, str]):
    """One env version's text env that plays a new task at each reset (see the module
    docstring); ``harness`` applies that harness's env-side protocol (budget, lines shown);
    ``info="lean"`` returns only :data:`EPISODE_KEYS` at a reset and ``success`` when an
    episode ends (a vector env then merges a few columns a step instead of every fact)."""

    metadata: dict[str, Any] = {"render_modes": ["ansi"]}

    def __init__(self, env: str, version: int | None = None, *, level: str = "lite",
                 suite: str | None = None, ladder: bool = False,
                 harness: str = DEFAULT_HARNESS, render_mode: str | None = None,
                 info: str = "full") -> None:
        if suite is not None and version is None:  # the version the suite holds
            version = read_manifest(resolve_suite(suite))[1]["env_versions"].get(env)
        spec = registry.get(env, version)
        self.spec_ = spec
        self.source = task_source(env, spec.version, level=level, suite=suite, ladder=ladder)
        self.harness = check_harness(harness)
        self.lean = check_info_mode(info) == "lean"
        self.render_mode = render_mode
        self.action_space = text_space()
        self.observation_space = text_space()
        self.seed_: int | None = None
        self.index = 0
        self.task: Task | None = None
        self.game_env: Any = None
        self._step_lean: Any = None
        self._games: dict[str, Any] = {}  # a suite's compiled games, by task id

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        """Play the next task of the current seed (task 0 of ``seed`` when one is given;
        ``options={"index": i}`` plays task ``i`` of the current seed instead)."""
        super().reset(seed=seed)
        if seed is not None or self.seed_ is None:
            self.seed_ = int(seed) if seed is not None else int(
                self.np_random.integers(SEED_BOUND))
            self.index = 0
        if options and "index" in options:
            self.index = int(options["index"])
        task = self.source.task(self.seed_, self.index)
        protocol = protocol_for(self.harness, task) if self.harness != DEFAULT_HARNESS else None
        if type(self.game_env) is GameEnv and self.spec_.env is None:  # the generic env: reuse
            self.game_env.load(self._game(task), protocol)  # it for the next game
        else:
            self.game_env = self.spec_.make(task, self.render_mode, protocol)
        self.task = task
        self._step_lean = getattr(self.game_env, "step_lean", None)
        obs, info = self.game_env.reset()
        info.update(task_id=task.id, task_index=self.index, stream_seed=self.seed_,
                    min_steps=task.certificate.min_steps, budget=self.game_env.budget)
        self.index += 1
        if self.lean:
            return obs, present({key: info[key] for key in EPISODE_KEYS})
        return obs, present(info)

    def _game(self, task: Task) -> Any:
        """The task's game; a suite's are kept, as its tasks come round again every round (a
        game holds no episode state; compiling one was a tenth of a short lights episode)."""
        if not isinstance(self.source, SuiteSource):
            return self.spec_.make_game(task)
        game = self._games.get(task.id)
        if game is None:
            game = self._games[task.id] = self.spec_.make_game(task)
        return game

    def step(self, action: Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        if self.game_env is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        if self.lean:
            if self._step_lean is not None:  # the generic env skips the facts it would drop
                return self._step_lean(action)
            obs, reward, terminated, truncated, info = self.game_env.step(action)
            return obs, reward, terminated, truncated, (
                {"success": bool(info["success"])} if terminated or truncated else {})
        obs, reward, terminated, truncated, info = self.game_env.step(action)
        return obs, reward, terminated, truncated, present(info)

    def render(self) -> str:
        return "" if self.game_env is None else str(self.game_env.render())

    @property
    def success(self) -> bool:
        """Whether the current task's goal holds now."""
        return self.game_env is not None and bool(self.game_env.success)

    def sample_action(self, rng: np.random.Generator) -> str:
        """A random, sensible action for the current task (the env's own random policy)."""
        if self.game_env is None:
            raise gym.error.ResetNeeded("call reset() before sample_action()")
        return str(self.game_env.sample_action(rng))


def level_id(spec: registry.EnvSpec, level: str) -> str:
    """The Gymnasium id of an env version at a level: ``arena_gen/TurnOnLights-lite-v3``."""
    return f"arena_gen/{spec.gym_name}-{level}-v{spec.version}"


def make_task_env(*, env: str, version: int, level: str, **kwargs: Any) -> TaskStreamEnv:
    """Gymnasium's entry point for the level ids (a function: it pickles by reference)."""
    return TaskStreamEnv(env, version, level=level, **kwargs)


def register_vector_envs() -> list[str]:
    """Register every env version at every level once; return the ids."""
    ids = []
    for spec in registry.all_specs():
        for level in LEVELS:
            name = level_id(spec, level)
            if name not in gym.registry:
                gym.register(id=name, entry_point=make_task_env,  # type: ignore[arg-type]
                             kwargs={"env": spec.name, "version": spec.version,
                                     "level": level},
                             disable_env_checker=True)
            ids.append(name)
    return ids


def make_vec(env: str, num_envs: int, *, level: str = "lite", version: int | None = None,
             mode: str = "sync", suite: str | None = None, ladder: bool = False,
             harness: str = DEFAULT_HARNESS,
             info: str = "full") -> gym.vector.VectorEnv[Any, Any, Any]:
    """``gymnasium.make_vec`` over ``env``'s id at ``level`` with ``num_envs`` sub-envs, in
    ``sync`` or ``async`` mode (async without shared memory: observations are text);
    ``info="lean"`` for training loops that read no per-step facts (see
    :class:`TaskStreamEnv`)."""
    if mode not in ("sync", "async"):
        raise ArenaGenError(f"mode must be sync or async, got {mode!r}")
    check_info_mode(info)
    if suite is not None and version is None:  # the version the suite holds
        version = read_manifest(resolve_suite(suite))[1]["env_versions"].get(env)
    spec = registry.get(env, version)
    if level not in LEVELS:
        raise ArenaGenError(f"unknown level {level!r}; choose one of {', '.join(LEVELS)}")
    register_vector_envs()
    vector_kwargs = {"shared_memory": False} if mode == "async" else {}
    extra: dict[str, Any] = {"ladder": ladder, "harness": harness, "info": info}
    if suite is not None:
        extra["suite"] = suite
    envs = gym.make_vec(level_id(spec, level), num_envs=num_envs, vectorization_mode=mode,
                        vector_kwargs=vector_kwargs, **extra)
    # make_vec builds Gymnasium's own class (its spec, spaces, sub-envs); the subclasses (no
    # state of their own) step it with less work per sub-env step
    faster = {gym.vector.SyncVectorEnv: TextSyncVectorEnv,
              gym.vector.AsyncVectorEnv: TextAsyncVectorEnv}.get(type(envs))
    if faster is not None:
        envs.__class__ = faster
    if isinstance(envs, TextSyncVectorEnv):  # the text envs themselves: a TaskStreamEnv
        envs.envs = [env.unwrapped for env in envs.envs]  # enforces reset-first on its own
    return envs


def seeds_for(seed: int, num_envs: int) -> Sequence[int]:
    """Distinct, reproducible sub-env seeds spawned from one seed (instead of Gymnasium's
    ``seed + k``, whose streams overlap between runs seeded ``s`` and ``s + 1``)."""
    children = np.random.SeedSequence(seed).spawn(num_envs)
    return [int(c.generate_state(1)[0] & SEED_BOUND) for c in children]


register_vector_envs()

__all__ = ["EPISODE_KEYS", "INFO_MODES", "StreamSource", "SuiteSource", "TaskStreamEnv",
           "check_info_mode", "level_id", "make_task_env", "make_vec", "register_vector_envs",
           "seeds_for", "task_source"]
