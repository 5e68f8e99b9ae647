"""Gymnasium vector envs over arena-gen (issue #27): a new certified task per reset, seeds
honoured per sub-env, the same episodes in sync and async mode."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena_gen.core import registry
from arena_gen.core.budget import protocol_for
from arena_gen.core.errors import ArenaGenError
from arena_gen.train import stream
from arena_gen.train.info_merge import merge_columns
from arena_gen.train.vector import (
    EPISODE_KEYS,
    SuiteSource,
    TaskStreamEnv,
    TextSyncVectorEnv,
    level_id,
    make_vec,
    merge_info,
    register_vector_envs,
    seeds_for,
)


def play(envs: Any, seeds: list[int], steps: int) -> list[tuple[Any, ...]]:
    """Reset with ``seeds`` and play each sub-env's witness for ``steps`` vector steps (the
    next step after an episode ends only resets it: Gymnasium's next-step autoreset): every
    (observations, rewards, terminated, truncated) and the task ids on the way."""
    obs, info = envs.reset(seed=seeds)
    out: list[tuple[Any, ...]] = [(tuple(obs), tuple(info["task_id"]))]
    n = len(seeds)
    resets, plans, played, ending = [-1] * n, [[""]] * n, [0] * n, [False] * n
    for _ in range(steps):
        for k, (index, task) in enumerate(zip(envs.get_attr("index"), envs.get_attr("task"),
                                              strict=True)):
            if index != resets[k]:  # a new task since the last step
                resets[k], plans[k], played[k] = index, list(task.certificate.witness), 0
        actions = []
        for k in range(n):
            actions.append("" if ending[k] or played[k] >= len(plans[k])
                           else plans[k][played[k]])
            played[k] += 0 if ending[k] else 1
        obs, reward, terminated, truncated, info = envs.step(tuple(actions))
        ending = [bool(a or b) for a, b in zip(terminated, truncated, strict=True)]
        out.append((tuple(obs), tuple(float(r) for r in reward), tuple(terminated),
                    tuple(truncated), tuple(envs.get_attr("index"))))
    envs.close()
    return out


def test_same_seeds_same_stream_episodes_in_sync_and_async() -> None:
    seeds = [3, 11]
    sync = play(make_vec("lights", 2, level="lite", mode="sync"), seeds, 12)
    again = play(make_vec("lights", 2, level="lite", mode="sync"), seeds, 12)
    asynced = play(make_vec("lights", 2, level="lite", mode="async"), seeds, 12)
    assert sync == again == asynced
    assert any(any(step[2]) for step in sync[1:])  # an episode ended: autoreset was exercised


def test_a_reset_plays_the_stream_task_of_that_seed_and_index() -> None:
    env = TaskStreamEnv("lights", level="lite")
    _, info = env.reset(seed=5)
    first = next(stream("lights", "lite", 5, count=1))
    assert env.task is not None and env.task.sha256 == first.sha256
    assert info["task_id"] == first.id == "lights-stream_lite-5-0000"
    assert info["min_steps"] == first.certificate.min_steps and info["task_index"] == 0
    _, info = env.reset()
    assert info["task_id"] == "lights-stream_lite-5-0001"
    _, info = env.reset(options={"index": 0})  # a GRPO group replays one task
    assert info["task_id"] == first.id


def test_different_sub_env_seeds_draw_different_tasks() -> None:
    envs = make_vec("lights", 3, level="lite")
    _, info = envs.reset(seed=seeds_for(9, 3))
    ids = list(info["task_id"])
    worlds = [t.world for t in envs.get_attr("task")]
    assert len(set(ids)) == 3 and all(worlds[0] != w for w in worlds[1:])
    _, same = envs.reset(seed=[4, 4, 4])  # one seed for a group: one task for all
    assert len(set(same["task_id"])) == 1
    envs.close()


@pytest.mark.parametrize("env", ["lights", "trading", "energy", "repo"])
def test_suite_tasks_in_sync_and_async(env: str) -> None:
    """Every env through a released suite's tasks: same seeds, same episodes in both modes."""
    seeds = [0, 1]
    sync = play(make_vec(env, 2, suite="lite", mode="sync"), seeds, 6)
    asynced = play(make_vec(env, 2, suite="lite", mode="async"), seeds, 6)
    assert sync == asynced
    assert len(set(sync[0][1])) == 2  # two seeds, two tasks


def test_suite_order_is_seeded_and_covers_the_suite_each_round() -> None:
    env = TaskStreamEnv("lights", suite="lite")
    n = len(env.source.tasks)  # type: ignore[union-attr]
    ids = [env.reset(seed=2)[1]["task_id"]] + [env.reset()[1]["task_id"] for _ in range(n - 1)]
    assert sorted(ids) == sorted(t.id for t in env.source.tasks)  # type: ignore[union-attr]
    assert env.reset(seed=2)[1]["task_id"] == ids[0]  # a seed restarts its order
    assert env.reset()[1]["task_id"] == ids[1]
    others = [TaskStreamEnv("lights", suite="lite").reset(seed=s)[1]["task_id"] for s in (3, 4)]
    assert others != [ids[0], ids[0]]  # other seeds, other orders


def test_gymnasium_make_vec_by_id_and_the_ids() -> None:
    ids = register_vector_envs()
    spec = registry.get("lights")
    assert level_id(spec, "lite") in ids and f"arena_gen/TurnOnLights-lite-v{spec.version}" in ids
    envs = gymnasium.make_vec(level_id(spec, "lite"), num_envs=2, vectorization_mode="sync")
    obs, info = envs.reset(seed=[1, 2])
    assert all(isinstance(o, str) and o for o in obs)
    assert list(info["task_id"]) == ["lights-stream_lite-1-0000", "lights-stream_lite-2-0000"]
    envs.close()


def test_bad_arguments_are_errors_before_any_episode() -> None:
    with pytest.raises(ArenaGenError, match="unknown level"):
        TaskStreamEnv("lights", level="hard")
    with pytest.raises(ArenaGenError, match="mode must be sync or async"):
        make_vec("lights", 2, mode="threads")
    with pytest.raises(ArenaGenError, match="holds no lights v1 tasks"):
        TaskStreamEnv("lights", 1, suite="lite")
    with pytest.raises(gymnasium.error.ResetNeeded):
        TaskStreamEnv("lights", suite="lite").step("0")
    with pytest.raises(ArenaGenError, match="info must be one of full, lean"):
        make_vec("lights", 2, info="none")


@given(seed=st.integers(0, 2**31 - 1), rounds=st.integers(0, 5), n=st.integers(1, 12))
def test_each_round_of_a_suite_source_is_a_seeded_permutation(seed: int, rounds: int,
                                                              n: int) -> None:
    source = SuiteSource(tuple(range(n)))  # type: ignore[arg-type]
    got = [source.task(seed, rounds * n + i) for i in range(n)]
    assert sorted(got) == list(range(n))  # type: ignore[type-var]
    assert got == [source.task(seed, rounds * n + i) for i in range(n)]
    drawn = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, rounds])))
    assert got == [int(i) for i in drawn.permutation(n)]  # the kept order is the drawn one


def test_seeds_for_is_reproducible_and_distinct() -> None:
    assert seeds_for(7, 16) == seeds_for(7, 16)
    assert len(set(seeds_for(7, 16))) == 16 and set(seeds_for(7, 4)).isdisjoint(seeds_for(8, 4))
    assert all(0 <= s < 2**31 for s in seeds_for(7, 16))


def test_a_harness_protocol_applies_to_every_task() -> None:
    env = TaskStreamEnv("lights", suite="lite", harness="odyssey")
    obs, info = env.reset(seed=1)
    assert info["budget"] == 200 and "Turns left" not in obs  # the paper's lights protocol
    own = TaskStreamEnv("lights", suite="lite")
    obs, info = own.reset(seed=1)
    assert info["budget"] == 50 and "Turns left: 50" in obs


def test_a_step_where_sub_envs_disagree_on_a_none_info_value_merges() -> None:
    """Energy's ``last_day`` is None until a day is dispatched: one sub-env dispatching while
    the other sends a malformed action crashed Gymnasium's info merge (found by
    bench_env_steps). Absent keys are masked per sub-env instead."""
    envs = make_vec("energy", 2, suite="lite", mode="sync")
    try:
        envs.reset(seed=[0, 1])
        dispatch = '{"thermal": 0, "wind": 0, "solar": 0, "battery": 0}'
        _, _, _, _, info = envs.step(("x", dispatch))
        assert list(info["_last_day"]) == [False, True]
        _, _, _, _, info = envs.step((dispatch, "x"))
        assert list(info["_last_day"]) == [True, True]
    finally:
        envs.close()


class _Merger:
    """What both info merges read of a vector env: its size (and Gymnasium's recursion)."""

    num_envs = 3
    _add_info = gymnasium.vector.VectorEnv._add_info


def same_infos(a: Any, b: Any) -> bool:
    """Equal merged infos: the same keys in the same order, arrays of the same dtype, shape
    and values (object arrays compared element by element), nested dicts alike."""
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(
            same_infos(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape and \
            all(same_infos(x, y) for x, y in zip(a.tolist(), b.tolist(), strict=True))
    return type(a) is type(b) and (a == b or (a != a and b != b))


INFO_SCALARS = (st.none() | st.booleans() | st.integers(-5, 5) | st.floats(allow_nan=True)
                | st.text(max_size=3) | st.sampled_from([np.float32(1.5), np.int64(3)]))
INFO_KEYS = st.sampled_from(["a", "b", "c", "final_obs"])
INFO_VALUES = INFO_SCALARS | st.dictionaries(
    INFO_KEYS, INFO_SCALARS | st.dictionaries(INFO_KEYS, INFO_SCALARS, max_size=2), max_size=3)


@given(st.lists(st.tuples(st.integers(0, 2), st.dictionaries(
    st.sampled_from(["valid", "turn", "last_day", "x", "_x", "final_obs"]), INFO_VALUES,
    max_size=5)), max_size=6))
def test_the_cheaper_info_merge_is_gymnasiums(steps: list[tuple[int, dict[str, Any]]]) -> None:
    """:func:`merge_info` builds what the installed Gymnasium's ``_add_info`` builds, for any
    sequence of sub-env infos (scalars of each kind, None, nested dicts, keys that disagree),
    and fails where it fails (a key holding a dict in one sub-env and a scalar in another)."""
    def run(merge: Any) -> Any:
        infos: dict[str, Any] = {}
        try:
            for env_num, info in steps:
                infos = merge(_Merger(), infos, info, env_num)
        except Exception as exc:  # compared: the same failure on both sides
            return type(exc)
        return infos

    ours, theirs = run(merge_info), run(gymnasium.vector.VectorEnv._add_info)
    assert ours is theirs if isinstance(theirs, type) else same_infos(ours, theirs)


#: Texts every env rejects or shrugs off (a wasted turn, never a crash).
ODD_TEXTS = ["", "x", "{", '{"S99": 5}', "pip install nothing", "99999"]


def same_step(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    """Equal vector step (or reset) results: observations (a tuple of str), then arrays of the
    same dtype and values, then infos as :func:`same_infos` compares them."""
    if type(a[0]) is not tuple or type(b[0]) is not tuple or a[0] != b[0]:
        return False
    return all(same_infos(x, y) for x, y in zip(a[1:], b[1:], strict=True))


@pytest.mark.parametrize("env", ["lights", "trading", "energy", "repo"])
def test_make_vec_steps_as_gymnasiums_own_sync_vector_env(env: str) -> None:
    """The sync vector env make_vec returns (its own step, reset and column-wise info merge, the
    text envs unwrapped) returns what Gymnasium's own ``SyncVectorEnv`` over the same
    TaskStreamEnvs returns, value for value and dtype for dtype: witness texts mixed with
    random and odd ones (energy's ``last_day`` None in some sub-envs and a dict in others),
    episodes ending by success and by budget, next-step autoresets, reseeds and a masked
    reset."""
    n = 3
    ours = make_vec(env, n, suite="lite")
    theirs = gymnasium.vector.SyncVectorEnv([lambda: TaskStreamEnv(env, suite="lite")] * n)
    assert type(ours) is TextSyncVectorEnv
    assert all(type(e) is TaskStreamEnv for e in ours.envs)
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([27, len(env)])))
    ended = 0
    try:
        assert same_step(ours.reset(seed=4), theirs.reset(seed=4))
        steps = 70 if env == "lights" else 150  # enough turns for episodes to end
        for step in range(steps):
            if step == steps - 14:
                assert same_step(ours.reset(seed=[7, 8, 9]), theirs.reset(seed=[7, 8, 9]))
            if step == steps - 7:
                mask = np.array([True, False, True])
                assert same_step(ours.reset(options={"reset_mask": mask.copy()}),
                                 theirs.reset(options={"reset_mask": mask.copy()}))
            actions = []
            for k, task_env in enumerate(ours.envs):
                assert isinstance(task_env, TaskStreamEnv) and task_env.game_env is not None
                draw = rng.random()
                if draw < 0.12:
                    actions.append(ODD_TEXTS[int(rng.integers(len(ODD_TEXTS)))])
                elif draw < 0.22:
                    actions.append(task_env.sample_action(rng))
                else:
                    witness = task_env.task.certificate.witness  # type: ignore[union-attr]
                    turn = theirs.envs[k].unwrapped.game_env.turn  # type: ignore[attr-defined]
                    actions.append(witness[turn] if turn < len(witness) else "")
            a, b = ours.step(tuple(actions)), theirs.step(tuple(actions))
            assert same_step(a, b), step
            ended += int(np.sum(a[2] | a[3]))
        assert ended >= n  # autoresets were exercised in every env
    finally:
        ours.close()
        theirs.close()


INFO_POOL = st.sampled_from([0, 1, 2.5, True, False, "t", None, np.float32(1.5), np.int64(3),
                             np.bool_(True), [1, 2], (3,), float("nan")])
COLUMN_VALUES = INFO_POOL | st.dictionaries(
    st.sampled_from(["a", "b", "c"]), INFO_POOL | st.dictionaries(
        st.sampled_from(["a", "b"]), INFO_POOL, max_size=2), max_size=3)


@given(st.integers(1, 4).flatmap(lambda n: st.lists(st.none() | st.dictionaries(
    st.sampled_from(["valid", "turn", "last_day", "x", "_x", "final_obs", "_valid"]),
    COLUMN_VALUES, max_size=5), min_size=n, max_size=n)), st.sampled_from(["same", "plain",
                                                                          "any"]))
def test_the_column_wise_merge_is_gymnasiums(infos: list[dict[str, Any] | None],
                                              keys: str) -> None:
    """:func:`merge_columns` builds what the installed Gymnasium's ``_add_info`` builds from
    one info per sub-env (some sub-envs without one, as in a masked reset): the same keys in
    the same order, dtypes, values and masks, nested dicts alike, and the same error where
    Gymnasium's merge fails. ``keys``: every sub-env holds the same keys in the same order (the
    common case), or keys that differ without ``_key``/``final_obs`` ones, or any keys."""
    if keys != "any":
        infos = [None if i is None else {k: v for k, v in i.items()
                                         if not k.startswith("_") and k != "final_obs"}
                 for i in infos]
    if keys == "same":
        first = next((list(i) for i in infos if i), [])
        infos = [None if i is None else {k: i.get(k, 0) for k in first} for i in infos]
    pairs = [(k, info) for k, info in enumerate(infos) if info is not None]

    def run(merge: Any) -> Any:
        try:
            return merge()
        except Exception as exc:  # compared: the same failure on both sides
            return type(exc)

    def gymnasiums() -> dict[str, Any]:
        merger: Any = _Merger()
        merger.num_envs = len(infos)
        merged: dict[str, Any] = {}
        for env_num, info in pairs:
            merged = gymnasium.vector.VectorEnv._add_info(merger, merged, info, env_num)
        return merged

    ours, theirs = run(lambda: merge_columns(len(infos), pairs)), run(gymnasiums)
    assert ours is theirs if isinstance(theirs, type) else same_infos(ours, theirs)


@pytest.mark.parametrize("env", ["lights", "trading", "energy", "repo"])
@pytest.mark.parametrize("harness", ["arena-gen", "odyssey"])
def test_a_reset_reuses_the_text_env_as_a_new_one(env: str, harness: str) -> None:
    """Each reset loads the next task's game into the sub-env's text env instead of building a
    new env; every episode's observations, rewards, flags and infos equal those of a text env
    built afresh for its task (the harness protocol applied alike)."""
    streamed = TaskStreamEnv(env, suite="lite", harness=harness)
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([5, len(env)])))
    first = None
    for episode in range(4):
        obs, info = streamed.reset(seed=3) if episode == 0 else streamed.reset()
        first = first or streamed.game_env
        assert streamed.game_env is first  # reused, not rebuilt
        task = streamed.task
        assert task is not None
        fresh = registry.for_task(task).make(
            task, protocol=None if harness == "arena-gen" else protocol_for(harness, task))
        fresh_obs, fresh_info = fresh.reset()
        assert obs == fresh_obs
        assert {k: v for k, v in info.items() if k in fresh_info} == {
            k: v for k, v in fresh_info.items() if v is not None}
        texts = list(task.certificate.witness)[:30] + ["", "x"]
        rng.shuffle(texts)
        for text in texts:
            ours, theirs = streamed.step(text), fresh.step(text)
            assert ours[:4] == theirs[:4]
            assert ours[4] == {k: v for k, v in theirs[4].items() if v is not None}


@pytest.mark.parametrize("env", ["lights", "trading", "energy", "repo"])
def test_lean_info_plays_the_same_episodes_with_fewer_facts(env: str) -> None:
    """``info="lean"`` changes only the infos: the same seeds and texts give the same
    observations, rewards and ends as the full env; a reset's info is the episode keys with the
    full env's values, and a step's holds ``success`` (the full env's value) exactly when the
    episode ended there, nothing otherwise."""
    n = 3
    lean, full = make_vec(env, n, suite="lite", info="lean"), make_vec(env, n, suite="lite")
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([28, len(env)])))
    ended = 0
    try:
        (lobs, linfo), (fobs, finfo) = lean.reset(seed=5), full.reset(seed=5)
        assert lobs == fobs and list(linfo) == [k for key in EPISODE_KEYS if key in finfo
                                                for k in (key, f"_{key}")]
        assert {"task_id", "budget"} <= set(linfo)
        assert all(np.array_equal(linfo[k], finfo[k]) for k in linfo)
        for _ in range(70 if env == "lights" else 150):
            actions = []
            for task_env in full.envs:
                assert isinstance(task_env, TaskStreamEnv) and task_env.game_env is not None
                witness = task_env.task.certificate.witness  # type: ignore[union-attr]
                turn = task_env.game_env.turn
                actions.append(task_env.sample_action(rng) if rng.random() < 0.2
                               else witness[turn] if turn < len(witness) else "")
            lo, *lrest, li = lean.step(tuple(actions))
            fo, *frest, fi = full.step(tuple(actions))
            assert lo == fo and all(np.array_equal(x, y) for x, y in zip(lrest, frest,
                                                                         strict=True))
            ends = lrest[1] | lrest[2]
            if "task_id" in li:  # an autoreset step: the new episodes' keys
                assert np.array_equal(li["_task_id"], fi["_task_id"])
                assert list(li["task_id"][li["_task_id"]]) == list(
                    fi["task_id"][fi["_task_id"]])
            elif ends.any():
                assert list(li) == ["success", "_success"]
                assert np.array_equal(li["_success"], ends)
                assert np.array_equal(li["success"][ends], fi["success"][ends])
            else:
                assert li == {}
            ended += int(ends.sum())
        assert ended >= n
    finally:
        lean.close()
        full.close()


def test_a_masked_reset_leaves_the_last_steps_arrays_alone() -> None:
    """The flags a step returns are the caller's: a masked reset of the sub-envs that just
    ended (it clears the vector env's own flags) does not change them."""
    envs = make_vec("lights", 2, suite="lite")
    try:
        envs.reset(seed=[0, 1])
        witness = [e.task.certificate.witness for e in envs.envs]  # type: ignore[attr-defined]
        for turn in range(max(map(len, witness))):
            _, _, ended, _, _ = envs.step(tuple(w[turn] if turn < len(w) else "" for w in witness))
            if ended.any():
                break
        kept = ended.copy()
        assert kept.any()
        envs.reset(options={"reset_mask": kept.copy()})
        assert np.array_equal(ended, kept)
    finally:
        envs.close()
