"""Metrics over attempts: success rate, Avg@k, unbiased Pass@k, Pass^k, efficiency, loops.

Every mean comes with its standard error. Scores are on 0-100 here; archives store 0-1.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any


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


def pass_at_k(n: int, c: int, k: int) -> float | None:
    """Unbiased Pass@k = 1 - C(n-c, k) / C(n, k); None when fewer than k attempts exist."""
    if not 0 <= c <= n:
        raise ValueError(f"need 0 <= c <= n, got c={c}, n={n}")
    if k < 1:
        raise ValueError("k must be at least 1")
    if n < k:
        return None
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float | None:
    """Pass^k (all k succeed), unbiased: C(c, k) / C(n, k); None when n < k."""
    if not 0 <= c <= n:
        raise ValueError(f"need 0 <= c <= n, got c={c}, n={n}")
    if n < k:
        return None
    return math.comb(c, k) / math.comb(n, k)


def trajectory_efficiency(scores01: Sequence[float], calls: Sequence[int]) -> float | None:
    """(1/N) sum(s_i / n_i): score in [0, 1] per agent call (Odysseys definition)."""
    pairs = [(s, n) for s, n in zip(scores01, calls, strict=True)]
    if not pairs:
        return None
    return sum(s / n if n else 0.0 for s, n in pairs) / len(pairs)


def loop_turns(record: dict[str, Any]) -> int:
    """Turns that repeat the previous turn's (state, action) pair without progress."""
    turns = record.get("turns") or []
    before = record.get("start_state")
    loops = 0
    prev_pair: tuple[Any, Any] | None = None
    for turn in turns:
        after = turn.get("state")
        pair = (before, turn.get("action"))
        if prev_pair is not None and before is not None and pair == prev_pair and after == before:
            loops += 1
        prev_pair = pair
        before = after
    return loops


def evolution_curve(records: Sequence[dict[str, Any]], horizon: int) -> list[float]:
    """Cumulative success rate by turn index 1..horizon (share of attempts done by turn t)."""
    if not records:
        return []
    done_at = [r["steps"] for r in records if r.get("success")]
    total = len(records)
    return [sum(1 for s in done_at if s <= t) / total for t in range(1, horizon + 1)]
