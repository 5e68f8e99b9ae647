"""Seed derivation: tasks, suites and presets draw from independent streams."""

from __future__ import annotations

import numpy as np
import pytest

from arena_gen.core.errors import ArenaGenError
from arena_gen.core.seeds import (
    attempt_seed,
    component_rngs,
    from_seed_path,
    rng,
    seed_path,
    task_seed,
)


def draws(seq: np.random.SeedSequence, n: int = 2000) -> np.ndarray:
    return rng(seq).integers(0, 2**63, size=n, dtype=np.int64)


def shares_values(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(np.intersect1d(a, b).size)


def test_tasks_of_one_suite_share_no_stream() -> None:
    streams = [draws(task_seed(7, "lite", 1, i)) for i in range(5)]
    for i in range(5):
        for j in range(i + 1, 5):
            # No shifted overlap either: neighbouring indices must not replay each other's draws.
            assert not shares_values(streams[i], streams[j])


def test_suite_seeds_7_and_8_share_no_stream() -> None:
    for index in range(3):
        assert not shares_values(draws(task_seed(7, "lite", 1, index)),
                                 draws(task_seed(8, "lite", 1, index)))
    # The classic seed + i trap: suite 8 task 0 vs suite 7 task 1.
    assert not shares_values(draws(task_seed(8, "lite", 1, 0)), draws(task_seed(7, "lite", 1, 1)))


def test_lite_and_challenge_share_no_stream() -> None:
    assert not shares_values(draws(task_seed(7, "lite", 1, 0)),
                             draws(task_seed(7, "challenge", 1, 0)))


def test_envs_and_attempts_and_components_are_independent() -> None:
    root = task_seed(7, "lite", 1, 0)
    assert not shares_values(draws(root), draws(task_seed(7, "lite", 2, 0)))
    assert not shares_values(draws(attempt_seed(root, 0)), draws(attempt_seed(root, 1)))
    comps = component_rngs(attempt_seed(root, 0), ["a", "b"])
    a = comps["a"].integers(0, 2**63, size=2000, dtype=np.int64)
    b = comps["b"].integers(0, 2**63, size=2000, dtype=np.int64)
    assert not shares_values(a, b)


def test_streams_are_reproducible_and_pinned() -> None:
    first = rng(attempt_seed(task_seed(7, "lite", 1, 3), 2)).integers(0, 1000, size=5).tolist()
    again = rng(from_seed_path(seed_path(7, "lite", 1, 3, 2))).integers(0, 1000, size=5).tolist()
    assert first == again
    # Golden values: a change here changes every suite (bump env versions if intended).
    assert first == rng(np.random.SeedSequence([7, 1, 1, 3], spawn_key=(2,))).integers(
        0, 1000, size=5).tolist()


def test_bad_seed_inputs_raise() -> None:
    with pytest.raises(ArenaGenError):
        task_seed(-1, "lite", 1, 0)
    with pytest.raises(ArenaGenError):
        task_seed(7, "nope", 1, 0)
    with pytest.raises(ArenaGenError):
        component_rngs(task_seed(7, "lite", 1, 0), ["x", "x"])


def test_task_index_is_recoverable_from_its_streams() -> None:
    from arena_gen.core.seeds import task_index_of

    root = task_seed(7, "lite", 2, 13)
    assert task_index_of(attempt_seed(root, 4)) == 13
    assert task_index_of(np.random.SeedSequence(5)) is None


def test_task_level_stream_is_shared_by_attempts_and_apart_from_them() -> None:
    from arena_gen.core.seeds import task_level_seed

    root = task_seed(7, "lite", 1, 3)
    levels = {tuple(task_level_seed(attempt_seed(root, a)).spawn_key) for a in range(5)}
    assert len(levels) == 1
    level = task_level_seed(attempt_seed(root, 0))
    for a in range(3):
        assert not shares_values(draws(level), draws(attempt_seed(root, a)))
