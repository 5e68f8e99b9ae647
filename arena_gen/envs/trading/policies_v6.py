"""Trading v6 policies: the planner told every regime's map, and a ridge that detects changes.

- :func:`regime_text` / :func:`parse_regimes`: the with-rules disclosure of the regime changes
  (one block per change, v1's row lines) and its reader (regexes, no eval).
- :class:`RegimePlanner`: v5's naming planner (:class:`~.policies_v5.NamingPlanner`) that
  switches to each regime's matrix on its first day: the v6 witness.
- :class:`DetectingRidge`: online ridge over the days since the last change it detected, by a
  CUSUM test on its own one-step forecast errors; on an alarm it refits from the day the test
  statistic last left zero (its estimate of the change day).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from arena_gen.envs.trading.policies import RIDGE_LAMBDA, parse_observation, parse_rules_matrix
from arena_gen.envs.trading.policies_v5 import NamingPlanner
from arena_gen.envs.trading.sampler_v1 import fmt_coef

__all__ = ["CUSUM_DRIFT", "CUSUM_LIMIT", "DetectingRidge", "RegimePlanner", "parse_regimes",
           "regime_text"]

#: The header of one regime block of the rules text.
_HEADER = re.compile(r"^From day (\d+) on \(the move from day \d+ to day \d+ and later\), "
                     r"the factor matrix is:$", re.M)

#: CUSUM on the day's mean squared forecast error over its in-regime level: the allowance per
#: day (in units of that level) and the alarm limit. With 10-16 stocks a day's ratio has a
#: spread of about 0.35-0.45 under no change, so false alarms are rare at this limit, while a
#: change that raises the error by half is caught within a few weeks.
CUSUM_DRIFT = 0.1
CUSUM_LIMIT = 6.0
#: Days of a regime before its error level is trusted (and before an alarm may fire).
SETTLE_DAYS = 30


def regime_text(stocks: Sequence[str], factors: Sequence[str], day: int,
                matrix: Sequence[Sequence[float]]) -> str:
    """One regime block of the rules text: the header, then v1's line per stock."""
    lines = [f"From day {day} on (the move from day {day} to day {day + 1} and later), the "
             f"factor matrix is:"]
    for s, row in zip(stocks, matrix, strict=True):
        terms = " ".join(f"{fmt_coef(w, i == 0)} x d{f}"
                         for i, (w, f) in enumerate(zip(row, factors, strict=True)))
        lines.append(f"{s} moves by {terms}")
    return "\n".join(lines)


def parse_regimes(rules_text: str, stocks: list[str],
                  factors: list[str]) -> list[tuple[int, np.ndarray]]:
    """Every regime's (first day, W) from the rules text: day 0's map before the first
    header, then one per block (ValueError naming what is missing, as v1's reader)."""
    heads = list(_HEADER.finditer(rules_text))
    cuts = [0, *(h.start() for h in heads), len(rules_text)]
    days = [0, *(int(h.group(1)) for h in heads)]
    out = []
    for k, day in enumerate(days):
        block = rules_text[cuts[k]:cuts[k + 1]]
        out.append((day, parse_rules_matrix(block, stocks, factors)))
    if any(b[0] <= a[0] for a, b in zip(out, out[1:], strict=False)):
        raise ValueError("the rules text's regime days must increase")
    return out


class RegimePlanner(NamingPlanner):
    """v5's naming planner, told every regime: on each day it forecasts with the matrix in
    force that day (read from the observation's day line)."""

    def __init__(self, public: dict[str, Any], rules_text: str) -> None:
        super().__init__(public, rules_text.split("\nFrom day ")[0])
        self.regimes = parse_regimes(rules_text, self.stocks, self.factors)

    def act(self, observation: str) -> str:
        """v5's planner's order and named place under the day's matrix."""
        day = parse_observation(observation)["day"]
        if day is not None:
            self.matrix = self.matrix_at(int(day))
        return super().act(observation)

    def matrix_at(self, day: int) -> np.ndarray:
        """The matrix in force on ``day``."""
        return [m for start, m in self.regimes if start <= day][-1]


class DetectingRidge:
    """Online ridge over the current regime, restarted when a CUSUM test on its one-step
    forecast errors signals a change (a forecaster: ``update`` and ``predict``)."""

    def __init__(self, n_stocks: int, n_factors: int, lam: float = RIDGE_LAMBDA) -> None:
        self.lam = lam
        self.news: list[np.ndarray] = []
        self.moves: list[np.ndarray] = []
        self.start = 0
        self.cusum = 0.0
        self.zero_at = 0
        self.errors: list[float] = []
        self.alarms: list[int] = []
        self.gram: np.ndarray = lam * np.eye(n_factors)
        self.cross: np.ndarray = np.zeros((n_factors, n_stocks))

    def _refit(self) -> None:
        """Sums over the days since ``start``."""
        self.gram = self.lam * np.eye(self.gram.shape[0])
        self.cross = np.zeros_like(self.cross)
        for x, y in zip(self.news[self.start:], self.moves[self.start:], strict=True):
            self.gram += np.outer(x, x)
            self.cross += np.outer(x, y)
        self.errors = []

    @property
    def samples(self) -> int:
        """Days learnt in the current regime."""
        return len(self.news) - self.start

    def predict(self, news: np.ndarray) -> np.ndarray:
        """Forecast tomorrow's moves from the current regime's days (zeros before any)."""
        if self.samples == 0:
            return np.zeros(self.cross.shape[1])
        return np.asarray(news @ np.linalg.solve(self.gram, self.cross))

    def update(self, news: np.ndarray, price_change: np.ndarray) -> None:
        """Test the day's forecast error, then learn the day (after a restart if alarmed)."""
        day = len(self.news)
        miss = np.asarray(price_change) - self.predict(news)
        error = float(miss @ miss) / miss.size
        self.news.append(np.asarray(news, dtype=float))
        self.moves.append(np.asarray(price_change, dtype=float))
        if self.samples > SETTLE_DAYS and self.errors:
            level = float(np.median(self.errors))
            self.cusum = max(0.0, self.cusum + error / level - 1.0 - CUSUM_DRIFT)
            if self.cusum == 0.0:
                self.zero_at = day + 1
            if self.cusum > CUSUM_LIMIT:
                self.alarms.append(day)
                self.start, self.cusum, self.zero_at = self.zero_at, 0.0, day + 1
                self._refit()
                return
        else:
            self.zero_at = day + 1
        if self.samples > 2 * self.gram.shape[0]:
            self.errors.append(error)
        self.gram += np.outer(news, news)
        self.cross += np.outer(news, price_change)
