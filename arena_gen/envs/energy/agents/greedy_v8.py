"""Energy v8's ``period_greedy`` rung: v3's period-greedy dispatcher over every site.

v1's greedy day (:class:`~.heuristic.EnergyHeuristicAgent`: supply = demand x a safety margin,
the thermal share steered just under the target, the cheapest renewable per delivered unit
first, load moved to thermal over budget) with each site a renewable of its own, predicted
from one estimated period ago (lags up to 70 days, v3's search) else yesterday. It keeps no
regimes and plans no further than today, so the sampler counts it among the model-free rungs:
an accepted v8 task is one it fails. It reads ``view.public`` and the observations only.
"""

from __future__ import annotations

import numpy as np

from arena_gen.core.agent import TaskView
from arena_gen.envs.energy.agents.changepoint import EnergyPeriodGreedy
from arena_gen.envs.energy.agents.heuristic import PRIOR
from arena_gen.envs.energy.agents.sites_v7 import read_report
from arena_gen.envs.energy.rules_v7 import format_action, kind_of

__all__ = ["SitePeriodGreedy"]


class SitePeriodGreedy(EnergyPeriodGreedy):
    """v3's period-greedy dispatcher with every site a renewable of its own (module doc)."""

    name = "period_greedy"

    def __init__(self) -> None:
        super().__init__()
        self.sites: list[str] = []

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        self.__init__()  # type: ignore[misc]
        self.public = dict(view.public)
        self.sites = list(view.public["sites"])
        self.eff = {k: {} for k in self.generators()}

    def generators(self) -> tuple[str, ...]:
        return ("thermal", *self.sites)

    def prior(self, source: str) -> float:
        return PRIOR[kind_of(source)]

    def format(self, cmd: dict[str, float]) -> str:
        return format_action(cmd, self.sites, decimals=2)

    def _observe(self, obs: str) -> tuple[int, float, float] | None:
        report, today = read_report(obs)
        if report is not None and report[0] not in self.seen:
            day, rated, actual, flow = report
            self.seen.add(day)
            for k, value in rated.items():
                if value >= 1.0 and k in actual and k in self.eff:
                    self.eff[k][day] = actual[k] / value
            self.cum_thermal += actual.get("thermal", 0.0)
            self.cum_supply += sum(actual.values()) + flow
        return today
