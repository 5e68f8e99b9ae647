"""The array lag errors equal the dict walk bit for bit, and so does the period they pick."""

from __future__ import annotations

import numpy as np

from arena_gen.envs.energy.agents.heuristic import _lag_error, estimate_period, lag_errors


def _reference_period(series: dict[int, float], day: int, lo: int = 8, hi: int = 40,
                      min_pairs: int = 8) -> int | None:
    """estimate_period as it was written before the array lookup (one dict walk per lag)."""
    errors = {}
    for lag in range(lo, min(hi, day - min_pairs) + 1):
        err, pairs = _lag_error(series, lag)
        if pairs >= min_pairs:
            errors[lag] = err
    if not errors:
        return None
    best = min(errors.values())
    if best > 0.5 * _lag_error(series, 1)[0]:
        return None
    return min(lag for lag, err in errors.items() if err <= 2 * best + 0.005)


def _series(rng: np.random.Generator) -> tuple[dict[int, float], int]:
    """A periodic efficiency series with noise, missing days, sometimes rounded (ties),
    sometimes inserted out of day order, starting anywhere; and the day it is seen on."""
    n = int(rng.integers(0, 160))
    start = int(rng.integers(-5, 30))
    period = int(rng.integers(5, 45))
    base = rng.uniform(0.3, 1.2, period)
    days = [t for t in range(start, start + n) if rng.random() > rng.choice([0.0, 0.1, 0.4])]
    values = base[(np.asarray(days, dtype=int) - start) % period] + rng.normal(
        0, rng.choice([0.0, 0.01, 0.1]), len(days))
    if rng.random() < 0.3:
        values = np.round(values, 2)
    order = rng.permutation(len(days)) if rng.random() < 0.2 else np.arange(len(days))
    series = {days[i]: float(values[i]) for i in order}
    return series, start + n


def test_lag_errors_equal_the_dict_walk() -> None:
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(3801)))
    for _ in range(400):
        series, _day = _series(rng)
        lags = [int(x) for x in rng.integers(0, 60, size=int(rng.integers(0, 50)))]
        assert lag_errors(series, lags) == [_lag_error(series, lag) for lag in lags]


def test_estimate_period_is_unchanged() -> None:
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(3802)))
    found = 0
    for _ in range(600):
        series, day = _series(rng)
        lo, hi, pairs = int(rng.integers(2, 10)), int(rng.integers(10, 60)), int(
            rng.integers(2, 12))
        want = _reference_period(series, day, lo, hi, pairs)
        assert estimate_period(series, day, lo, hi, pairs) == want
        found += want is not None
    assert 100 <= found <= 550  # both outcomes were exercised


def test_exact_small_case() -> None:
    series = {0: 0.5, 1: 0.7, 3: 0.5, 4: 0.75}
    # lag 1: days 1 and 4 (0.2 and 0.25); lag 3: days 3 and 4 (0 and 0.05); lag 9: none
    assert lag_errors(series, [1, 3, 9]) == [((0.7 - 0.5 + (0.75 - 0.5)) / 2, 2),
                                             ((0.0 + (0.75 - 0.7)) / 2, 2), (np.inf, 0)]
