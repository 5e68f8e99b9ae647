"""The inductive energy planner's window predictions equal the per-day guesses, bit for bit,
now that a prediction shares the day-independent sigmas between its days."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from arena_gen.core.episode import Episode
from arena_gen.core.suite_io import read_suite
from arena_gen.envs.energy.agents.planner import _PRIOR, EnergyInductivePlanner

ROOT = Path(__file__).resolve().parents[1]


def _old_guess(agent: EnergyInductivePlanner, source: str, day: int,
               today: int) -> tuple[float, float, bool]:
    """The guess as it was written before the shared sigmas (everything again per day)."""
    series = agent.eff[source]
    start = agent.starts[source]
    period = agent._period(source, today)
    if period:
        same = [series[t] for t in range(day - period, start - 1, -period)
                if t < today and t in series][:3]
        if same:
            res = [abs(series[t] - series[t - period])
                   for t in range(max(start + period, today - 20), today)
                   if t in series and t - period in series]
            sigma = (max(0.015, float(np.sqrt(np.mean(np.square(res)))) / 1.4) if res
                     else 0.03)
            return float(np.mean(same)), sigma, True
    past = [t for t in range(today - 1, max(start, today - 20) - 1, -1) if t in series]
    last = series[past[0]] if past else _PRIOR[source]
    steps = [abs(series[t] - series[t - 1]) for t in past if t - 1 in series]
    sigma = max(0.05, float(np.sqrt(np.mean(np.square(steps)))) if steps else 0.1)
    return last, sigma, False


class _Checked(EnergyInductivePlanner):
    """The rung's planner, each window prediction compared with the old per-day guesses."""

    checked = 0

    def predict(self, source: str, days: np.ndarray, today: int) -> tuple[np.ndarray, float]:
        got = super().predict(source, days, today)
        if source != "thermal":
            old = [_old_guess(self, source, int(d), today) for d in days]
            want = (np.array([g[0] for g in old]), max([0.0, *(g[1] for g in old)]))
            assert got[0].tobytes() == want[0].tobytes() and got[1] == want[1]
            type(self).checked += 1
        return got


def test_window_predictions_equal_the_per_day_guesses() -> None:
    suite = read_suite(ROOT / "suites" / "lite", envs=["energy"])
    for task in suite.tasks["energy"][:2]:
        agent = _Checked()
        episode = Episode(task, agent, mode="inductive", attempt=0, run_seed=0)
        while not episode.over:
            episode.step(agent.act(episode.obs), 0.0)
    assert _Checked.checked > 50
