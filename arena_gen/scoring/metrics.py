"""Metrics over attempts: success rate, Avg@k, unbiased Pass@k, Pass^k, efficiency, loops.

Every mean comes with its standard error, taken over tasks: the attempts of one task share its
world, so they are not independent draws. Scores are on 0-100 here; archives store 0-1.
"""

from __future__ import annotations

import functools
import math
import statistics
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np


def mean_se(values: Sequence[float]) -> tuple[float | None, float | None]:
    """Mean and standard error of the mean (None for no data; SE None for one value)."""
    n = len(values)
    if n == 0:
        return None, None
    mean = sum(values) / n
    if n == 1:
        return mean, None
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, math.sqrt(var / n)


def task_mean_se(per_task: Iterable[Sequence[float]]) -> tuple[float | None, float | None]:
    """Mean over tasks of each task's mean, and the SE across tasks (tasks are the sample)."""
    return mean_se([sum(v) / len(v) for v in per_task if v])


def clustered_mean_se(per_task: Iterable[Sequence[float]]) -> tuple[float | None, float | None]:
    """Mean over all attempts with a task-clustered SE, so correlated attempts are not counted
    as independent; equal to :func:`task_mean_se`'s SE when every task has as many attempts."""
    groups = [list(v) for v in per_task if v]
    n = sum(len(v) for v in groups)
    if n == 0:
        return None, None
    mean = sum(sum(v) for v in groups) / n
    g = len(groups)
    if g < 2:
        return mean, None
    spread = sum(sum(x - mean for x in v) ** 2 for v in groups)
    return mean, math.sqrt(g / (g - 1) * spread) / n


def median(values: Sequence[float]) -> float | None:
    """The median (None for no data): robust where a few attempts compound to huge rates."""
    return statistics.median(values) if values else None


def log_growth(profit_rate: float) -> float | None:
    """log(final value / initial value) = log(1 + profit rate); None when nothing is left."""
    return math.log1p(profit_rate) if profit_rate > -1.0 else None


@functools.lru_cache(maxsize=1 << 16)  # every group of a summary asks again (env, level, all)
def pass_at_k(n: int, c: int, k: int) -> float | None:
    """Unbiased Pass@k = 1 - C(n-c, k) / C(n, k); None when fewer than k attempts exist."""
    if not 0 <= c <= n:
        raise ValueError(f"need 0 <= c <= n, got c={c}, n={n}")
    if k < 1:
        raise ValueError("k must be at least 1")
    if n < k:
        return None
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


@functools.lru_cache(maxsize=1 << 16)
def pass_hat_k(n: int, c: int, k: int) -> float | None:
    """Pass^k (all k succeed), unbiased: C(c, k) / C(n, k); None when n < k."""
    if not 0 <= c <= n:
        raise ValueError(f"need 0 <= c <= n, got c={c}, n={n}")
    if n < k:
        return None
    return math.comb(c, k) / math.comb(n, k)


def trajectory_efficiency(scores: Sequence[float], calls: Sequence[int]) -> float | None:
    """(1/N) sum(s_i / n_i), s_i in percent: score per agent call (the Odysseys definition).

    An attempt with no agent call has no ratio; callers leave it out and count it excluded.
    """
    pairs = list(zip(scores, calls, strict=True))
    if not pairs:
        return None
    if any(n <= 0 for _, n in pairs):
        raise ValueError("trajectory efficiency needs at least one agent call per attempt")
    return sum(s / n for s, n in pairs) / len(pairs)


def repeated_pairs(states: Sequence[Any], actions: Sequence[Any]) -> int:
    """Turns that repeat the previous turn's (state, action) pair without progress:
    ``states[i]`` is the state before action ``i`` (``states[i + 1]`` the one after)."""
    loops = 0
    prev_pair: tuple[Any, Any] | None = None
    for i, action in enumerate(actions):
        before, after = states[i], states[i + 1]
        pair = (before, action)
        if prev_pair is not None and before is not None and pair == prev_pair and after == before:
            loops += 1
        prev_pair = pair
    return loops


def loop_turns(record: dict[str, Any]) -> int:
    """:func:`repeated_pairs` over a record-shaped trajectory (``start_state``, each turn's
    ``state`` and ``action``); the scorer counts them on the replayed states instead."""
    turns = record.get("turns") or []
    states = [record.get("start_state"), *(t.get("state") for t in turns)]
    return repeated_pairs(states, [t.get("action") for t in turns])


def evolution_of(outcomes: Iterable[tuple[bool, int]], horizon: int) -> list[float]:
    """Cumulative success rate by turn index 1..horizon over (success, steps) pairs (share of
    attempts done by turn t); linear in horizon + attempts (a cumulative sum per turn)."""
    outcomes = list(outcomes)
    if not outcomes or horizon < 1:
        return []
    done = np.zeros(horizon + 1)
    for success, steps in outcomes:
        if success:
            done[min(max(int(steps), 0), horizon)] += 1
    return [float(x) for x in np.cumsum(done)[1:] / len(outcomes)]


def evolution_curve(records: Sequence[dict[str, Any]], horizon: int) -> list[float]:
    """:func:`evolution_of` over record-shaped dicts (``success``, ``steps``)."""
    return evolution_of(((True, int(r["steps"])) if r.get("success") else (False, 0)
                         for r in records), horizon)
