"""Child-seed derivation: every task and every world component gets its own independent stream.

A task's stream is ``SeedSequence([suite_seed, suite_code, env_code, task_index])``. Rejection
sampling takes attempt ``a`` from the child with spawn key ``(a,)``, and each world component
(matrix, timeline, noise, ...) from a named child below that attempt. Nothing here uses a global
RNG, ``seed + i`` or ``hash(str)``: the numbers depend only on the integers recorded in the task
(and, for a sealed build, on the key its secret gives: :data:`SEALED_NAMESPACE`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from arena_gen.core.errors import ArenaGenError

#: Fixed small integers naming each preset, so ``lite`` and ``challenge`` never share a stream.
SUITE_CODES: dict[str, int] = {"lite": 1, "challenge": 2, "custom": 3, "import": 4}


def suite_code(suite: str) -> int:
    """Return the integer code of a suite preset name."""
    try:
        return SUITE_CODES[suite]
    except KeyError:
        raise ArenaGenError(f"unknown suite {suite!r}; known: {sorted(SUITE_CODES)}") from None


#: Spawn key at the root of every sealed build's tree (``build --secret``): the 256-bit key
#: derived from the secret follows it as eight 32-bit words, so a sealed task's streams share
#: nothing with the public tree of the same numbers (whose keys start with an attempt index).
SEALED_NAMESPACE = 2**32 - 3
#: Bytes of a sealed tree's key (an HMAC-SHA256 output, :mod:`arena_gen.suite.seal`).
TREE_KEY_BYTES = 32


def sealed_key_words(tree_key: bytes) -> tuple[int, ...]:
    """The spawn-key prefix of a sealed tree: its namespace, then the key as eight words."""
    if not isinstance(tree_key, bytes) or len(tree_key) != TREE_KEY_BYTES:
        raise ArenaGenError(f"a sealed tree key is {TREE_KEY_BYTES} bytes")
    return (SEALED_NAMESPACE, *(int.from_bytes(tree_key[i:i + 4], "big")
                                for i in range(0, TREE_KEY_BYTES, 4)))


def task_seed(suite_seed: int, suite: str, env_code: int, index: int,
              tree_key: bytes | None = None) -> np.random.SeedSequence:
    """Return the root SeedSequence of one task of one suite: the public tree, or with
    ``tree_key`` (a sealed build's) a tree nobody without the key can compute."""
    for name, value in (("suite_seed", suite_seed), ("env_code", env_code), ("index", index)):
        if not isinstance(value, (int, np.integer)) or value < 0:
            raise ArenaGenError(f"{name} must be a non-negative integer, got {value!r}")
    entropy = [int(suite_seed), suite_code(suite), int(env_code), int(index)]
    if tree_key is None:
        return np.random.SeedSequence(entropy)
    return np.random.SeedSequence(entropy, spawn_key=sealed_key_words(tree_key))


def child(seq: np.random.SeedSequence, *path: int) -> np.random.SeedSequence:
    """Return the descendant of ``seq`` at spawn-key ``path``, statelessly (same as ``spawn``)."""
    return np.random.SeedSequence(
        entropy=seq.entropy, spawn_key=tuple(seq.spawn_key) + tuple(int(p) for p in path)
    )


#: Spawn key of a task's own branch beside its attempt streams (never an attempt index): knobs
#: drawn there are fixed per task and kept across rejection-sampling attempts.
TASK_LEVEL = 2**32 - 1


#: Spawn key at the root of every training stream's tree (``arena_gen.train``): a stream task
#: of seed S, level L, env E and index i has entropy ``[S, code(L), E, i]`` like the build task
#: of the same numbers, but its spawn keys start with this, never an attempt index or
#: :data:`TASK_LEVEL`, so no stream shares a stream with any build.
STREAM_NAMESPACE = 2**32 - 2


#: Code of curriculum level ``L<k>`` is this plus k: above every suite code, so a level's
#: stream never shares a tree with the ``lite`` or ``challenge`` stream of the same seed.
LEVEL_CODE_BASE = 16
LEVEL_NAME = re.compile(r"^L([1-9][0-9]?)$")


def level_code(level: str) -> int:
    """The integer a stream level contributes to its seed tree: a suite's code for the suite
    presets (``lite``, ``challenge``), ``LEVEL_CODE_BASE + k`` for curriculum level ``L<k>``."""
    found = LEVEL_NAME.match(level)
    return LEVEL_CODE_BASE + int(found.group(1)) if found else suite_code(level)


def stream_seed(seed: int, level: str, env_code: int, index: int) -> np.random.SeedSequence:
    """Return the root SeedSequence of task ``index`` of a training stream."""
    for name, value in (("seed", seed), ("env_code", env_code), ("index", index)):
        if not isinstance(value, (int, np.integer)) or value < 0:
            raise ArenaGenError(f"{name} must be a non-negative integer, got {value!r}")
    entropy = [int(seed), level_code(level), int(env_code), int(index)]
    return np.random.SeedSequence(entropy=entropy, spawn_key=(STREAM_NAMESPACE,))


def task_level_seed(seq: np.random.SeedSequence) -> np.random.SeedSequence:
    """From an attempt's stream, the task-level stream shared by all its attempts."""
    return np.random.SeedSequence(entropy=seq.entropy,
                                  spawn_key=tuple(seq.spawn_key[:-1]) + (TASK_LEVEL,))


def task_index_of(seq: np.random.SeedSequence) -> int | None:
    """The task index a stream descends from (a sampler that covers a grid by index needs it)."""
    entropy = seq.entropy
    if isinstance(entropy, (list, tuple)) and len(entropy) == 4:
        return int(entropy[3])
    return None


def attempt_seed(task: np.random.SeedSequence, attempt: int) -> np.random.SeedSequence:
    """Return the stream of rejection-sampling attempt ``attempt`` of a task."""
    return child(task, attempt)


def component_rngs(
    seq: np.random.SeedSequence, names: Sequence[str]
) -> dict[str, np.random.Generator]:
    """Give each named world component its own Generator, from consecutive spawned children."""
    if len(set(names)) != len(names):
        raise ArenaGenError(f"component names must be distinct: {list(names)}")
    return {name: rng(child(seq, i)) for i, name in enumerate(names)}


def rng(seq: np.random.SeedSequence) -> np.random.Generator:
    """Return a PCG64 Generator for a SeedSequence."""
    return np.random.Generator(np.random.PCG64(seq))


def seed_path(suite_seed: int, suite: str, env_code: int, index: int, attempt: int) -> list[int]:
    """Return the recorded path ``[suite_seed, suite_code, env_code, index, attempt]``."""
    return [int(suite_seed), suite_code(suite), int(env_code), int(index), int(attempt)]


def from_seed_path(path: Sequence[int], tree_key: bytes | None = None) -> np.random.SeedSequence:
    """Rebuild the attempt stream from a recorded seed path (used by verify), in the sealed
    tree of ``tree_key`` when the suite was built with a secret."""
    if len(path) != 5:
        raise ArenaGenError(f"seed_path must have 5 integers, got {list(path)!r}")
    entropy = [int(path[0]), int(path[1]), int(path[2]), int(path[3])]
    root = (np.random.SeedSequence(entropy) if tree_key is None
            else np.random.SeedSequence(entropy, spawn_key=sealed_key_words(tree_key)))
    return attempt_seed(root, int(path[4]))
