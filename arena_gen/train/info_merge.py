"""Merging sub-env infos into one vector info, as Gymnasium's ``VectorEnv._add_info`` does.

Gymnasium merges one sub-env at a time: per key per sub-env a lookup, a type test and a mask
array. :func:`merge_columns` merges a whole step at once, one column per key: the same keys in
the same order (first appearance, ``key`` then ``_key``), the same dtypes (the type of the first
sub-env's value, later values cast into it), nested dicts merged alike; whatever it does not
handle column-wise (``final_obs``, keys starting with ``_``, arrays, a key holding a dict in one
sub-env and not in another) goes through :func:`merge_info` one sub-env at a time (Gymnasium's
merge without its spare mask arrays). ``tests/test_vector.py`` compares both with the installed
Gymnasium's.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from itertools import chain
from typing import Any

import numpy as np

#: Value types whose column is a numeric array of that type (Gymnasium's rule).
_ATOMS = (int, float, bool)


class _Irregular(Exception):
    """A step's infos hold a shape the column-wise merge leaves to the sequential one."""


def merge_info(self: Any, vector_infos: dict[str, Any], env_info: dict[str, Any],
               env_num: int) -> dict[str, Any]:
    """Gymnasium's ``VectorEnv._add_info`` (the same arrays, masks and key order), without the
    mask array it allocates for every key of every sub-env step whether or not one exists."""
    num = self.num_envs
    for key, value in env_info.items():
        if key == "final_obs":
            array = vector_infos.get("final_obs")
            if array is None:
                array = np.full(num, fill_value=None, dtype=object)
            array[env_num] = value
        elif isinstance(value, dict):
            array = merge_info(self, vector_infos.get(key, {}), value, env_num)
        else:
            if key in vector_infos:
                array = vector_infos[key]
            else:
                kind = type(value)
                if kind is int or kind is float or kind is bool or issubclass(kind, np.number):
                    array = np.zeros(num, dtype=kind)
                elif isinstance(value, np.ndarray):
                    array = np.zeros((num, *value.shape), dtype=value.dtype)
                else:
                    array = np.full(num, fill_value=None, dtype=object)
            array[env_num] = value
        mask_key = f"_{key}"
        mask = vector_infos.get(mask_key)
        if mask is None:
            mask = np.zeros(num, dtype=np.bool_)
        mask[env_num] = True
        vector_infos[key], vector_infos[mask_key] = array, mask
    return vector_infos


class _Sizes:
    """What :func:`merge_info` reads of a vector env: its number of sub-envs."""

    def __init__(self, num_envs: int) -> None:
        self.num_envs = num_envs


def merge_sequential(num_envs: int,
                     infos: Sequence[tuple[int, dict[str, Any]]]) -> dict[str, Any]:
    """The vector info of ``(sub-env, info)`` pairs merged one at a time (Gymnasium's way)."""
    sizes: Any = _Sizes(num_envs)
    merged: dict[str, Any] = {}
    for env_num, info in infos:
        merged = merge_info(sizes, merged, info, env_num)
    return merged


def merge_columns(num_envs: int,
                  infos: Sequence[tuple[int, dict[str, Any]]]) -> dict[str, Any]:
    """What merging the ``(sub-env, info)`` pairs one at a time builds (each sub-env at most
    once, in increasing order), built one key at a time."""
    try:
        return _columns(num_envs, infos)
    except Exception:  # an irregular shape or a failing cast: Gymnasium's way, its own error
        return merge_sequential(num_envs, infos)


def _columns(num: int, infos: Sequence[tuple[int, dict[str, Any]]]) -> dict[str, Any]:
    """The column-wise merge; raises :class:`_Irregular` where it would differ."""
    if not infos:
        return {}
    dicts = [info for _, info in infos]
    keys = tuple(dicts[0])
    if len(dicts) == num and all(tuple(d) == keys for d in dicts):
        masks = _mask_keys(keys)
        if masks is not None:  # every sub-env holds the same keys: row k from sub-env k
            return _whole(num, keys, masks, dicts)
    return _partial(num, infos)


@functools.lru_cache(maxsize=1024)
def _mask_keys(keys: tuple[Any, ...]) -> tuple[str, ...] | None:
    """The ``_key`` of each key, or None when a key is one the sequential merge keeps (not a
    str, ``final_obs``, or one starting with ``_``, whose mask could be another key)."""
    if all(isinstance(k, str) and k[:1] != "_" and k != "final_obs" for k in keys):
        return tuple(f"_{k}" for k in keys)
    return None


@functools.lru_cache(maxsize=64)
def _all_true(num: int) -> np.ndarray:
    """The mask of a key every sub-env holds (copied per key; never handed out itself)."""
    return np.ones(num, dtype=np.bool_)


def _whole(num: int, keys: tuple[str, ...], masks: tuple[str, ...],
           dicts: list[dict[str, Any]]) -> dict[str, Any]:
    """The merge of ``num`` infos holding the same keys in the same order."""
    out: dict[str, Any] = {}
    mask = _all_true(num)
    columns = zip(*[d.values() for d in dicts], strict=True)
    for key, mask_key, column in zip(keys, masks, columns, strict=True):
        kinds = set(map(type, column))
        if len(kinds) == 1 and type(column[0]) in _ATOMS:  # the common case, inline
            out[key] = np.array(column, dtype=type(column[0]))
        else:
            out[key] = _merge_key(num, column)
        out[mask_key] = mask.copy()
    return out


def _partial(num: int, infos: Sequence[tuple[int, dict[str, Any]]]) -> dict[str, Any]:
    """The merge of infos whose keys differ, or of some sub-envs only: the keys every sub-env
    holds a column at a time, the others one sub-env at a time."""
    out: dict[str, Any] = {}
    dicts = [info for _, info in infos]
    keys = dict.fromkeys(chain.from_iterable(dicts))
    masks = _mask_keys(tuple(keys))
    if masks is None:
        raise _Irregular
    common = set(dicts[0]).intersection(*dicts[1:]) if len(dicts) == num else set()
    for key, mask_key in zip(keys, masks, strict=True):
        if key in common:
            out[key] = _merge_key(num, [info[key] for info in dicts])
            out[mask_key] = _all_true(num).copy()
            continue
        rows = [n for n, info in infos if key in info]
        out[key] = _merge_rows(num, rows, [info[key] for info in dicts if key in info])
        held = [False] * num
        for row in rows:
            held[row] = True
        out[mask_key] = np.array(held, dtype=np.bool_)
    return out


def _merge_key(num: int, column: Sequence[Any]) -> Any:
    """One key's array (or nested dict) from its value in every sub-env; the dtype is the
    first value's type (Gymnasium's rule: int, float, bool and numpy numbers their own, anything
    else ``object``), later values cast into it."""
    kinds = set(map(type, column))
    if len(kinds) == 1:  # one type: whole arrays at once
        kind = type(column[0])
        if kind in _ATOMS or issubclass(kind, np.number):
            return np.array(column, dtype=kind)
        if kind is str:
            array = np.empty(num, dtype=object)  # filled with None
            array[:] = column
            return array
    return _merge_rows(num, range(num), column)


def _merge_rows(num: int, rows: Sequence[int], values: Sequence[Any]) -> Any:
    """One key's array (or nested dict): the sub-envs at ``rows`` hold ``values``, the rest
    zero (or None), each value cast into the first one's type as Gymnasium does."""
    kinds = set(map(type, values))
    if any(issubclass(k, dict) for k in kinds):
        if not all(issubclass(k, dict) for k in kinds):  # Gymnasium's merge of these is its own
            raise _Irregular
        return _columns(num, list(zip(rows, values, strict=True)))
    head = values[0]
    kind = type(head)
    if kind in _ATOMS or issubclass(kind, np.number):
        if len(kinds) == 1:  # one type: the array at once
            column = [kind()] * num
            for row, value in zip(rows, values, strict=True):
                column[row] = value
            return np.array(column, dtype=kind)
        array = np.zeros(num, dtype=kind)
    elif isinstance(head, np.ndarray):
        raise _Irregular
    else:
        array = np.empty(num, dtype=object)  # filled with None
    for row, value in zip(rows, values, strict=True):
        array[row] = value
    return array
