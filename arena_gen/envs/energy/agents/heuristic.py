"""A period-aware heuristic for Energy Dispatch: predict today's efficiency from one period ago.

It reads only what an agent may see: the public view, the observations (yesterday's rated and
actual outputs give yesterday's efficiencies) and, in with-rules mode, the disclosed periods and
shift day. In inductive mode it estimates each period from the observed series (the lag with
the smallest mean absolute difference, once two candidate cycles have been seen). Each day it
plans supply = demand x (1 + safety), a thermal share steered toward just under the target, the
cheapest renewable first, and moves load to thermal when the plan would break the budget.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena_gen.core.agent import TaskView
from arena_gen.envs.energy.game_v1 import GENERATORS, RENEWABLES, format_action

PRIOR = {"thermal": 1.0, "wind": 0.8, "solar": 0.85}
#: Supply margins over demand when every efficiency comes from one period ago, or not.
SAFETY = 0.03
UNSURE_SAFETY = 0.07
CARBON_MARGIN = 0.015
_NUM = r"(-?\d+(?:\.\d+)?)"
_TODAY = re.compile(rf"Today \(day (\d+)\): demand {_NUM}, budget {_NUM}")
_RATED = re.compile(rf"Yesterday \(day (\d+)\): rated thermal {_NUM}, wind {_NUM}, solar {_NUM}")
_ACTUAL = re.compile(rf"actual thermal {_NUM}, wind {_NUM}, solar {_NUM}; battery "
                     rf"(discharged|charged) {_NUM}")
_PERIODS = re.compile(r"wind .*?repeats every (\d+) days and solar .*?repeats every (\d+) days",
                      re.IGNORECASE)
_SHIFT = re.compile(r"On day (\d+) the patterns shift once: from that day on, wind repeats "
                    r"every (\d+) days and solar every (\d+) days")


Shift = tuple[int, dict[str, int]]


@dataclass(frozen=True)
class DayReport:
    """Yesterday's line of an energy observation: what was rated, delivered and stored."""

    day: int
    rated: list[float]
    actual: list[float]
    flow: float  # battery discharge (+) or charge (-)

    @property
    def supply(self) -> float:
        return sum(self.actual) + self.flow

    def efficiencies(self) -> dict[str, float]:
        """Delivered over rated, per generator that was rated at least 1 (else too noisy)."""
        return {k: av / rv for k, rv, av in zip(GENERATORS, self.rated, self.actual, strict=True)
                if rv >= 1.0}


def read_day(obs: str, seen: set[int]) -> tuple[DayReport | None, tuple[int, float, float] | None]:
    """The one reader of the daily report both energy agents learn from: yesterday's report if
    its day is not in ``seen`` (it is added), and today's (day, demand, budget)."""
    report = None
    rated, actual = _RATED.search(obs), _ACTUAL.search(obs)
    if rated and actual and int(rated.group(1)) not in seen:
        seen.add(int(rated.group(1)))
        flow = float(actual.group(5)) * (1 if actual.group(4) == "discharged" else -1)
        report = DayReport(int(rated.group(1)), [float(rated.group(i)) for i in (2, 3, 4)],
                           [float(actual.group(i)) for i in (1, 2, 3)], flow)
    today = _TODAY.search(obs)
    if today is None:
        return report, None
    return report, (int(today.group(1)), float(today.group(2)), float(today.group(3)))


def parse_rules(text: str | None) -> tuple[dict[str, int] | None, Shift | None]:
    """The disclosed periods and the optional (shift day, new periods) from a rules text."""
    if not text:
        return None, None
    m = _PERIODS.search(text)
    periods = {"wind": int(m.group(1)), "solar": int(m.group(2))} if m else None
    s = _SHIFT.search(text)
    shift = (int(s.group(1)), {"wind": int(s.group(2)), "solar": int(s.group(3))}) if s else None
    return periods, shift


def lag_errors(series: dict[int, float], lags: list[int]) -> list[tuple[float, int]]:
    """Per lag, ``(mean |e(t) - e(t - lag)|, pairs)`` over the days t (in the series' order)
    whose day ``t - lag`` is in the series too (inf without a pair): :func:`_lag_error`'s
    figures bit for bit, from one array lookup for every lag instead of a dict walk each."""
    if not series or not lags:
        return [(np.inf, 0)] * len(lags)
    days = np.fromiter(series.keys(), dtype=np.int64, count=len(series))
    values = np.fromiter(series.values(), dtype=float, count=len(series))
    first = int(days.min())
    outside = int(days.max()) - first + 1  # the lookup's last slot: no such day
    where = np.full(outside + 1, -1, dtype=np.int64)
    where[days - first] = np.arange(len(series))
    back = days[None, :] - (np.asarray(lags, dtype=np.int64)[:, None] + first)
    back[(back < 0) | (back >= outside)] = outside
    earlier = where[back]
    has = earlier >= 0
    diffs = np.abs(values[None, :] - values[np.maximum(earlier, 0)])
    out: list[tuple[float, int]] = []
    for row, keep in zip(diffs, has, strict=True):
        d = row[keep]
        # np.mean's own sum and division, without its per-call overhead
        out.append((float(np.add.reduce(d) / d.size), int(d.size)) if d.size else (np.inf, 0))
    return out


def _lag_error(series: dict[int, float], lag: int) -> tuple[float, int]:
    """One lag's figures by their definition (what :func:`lag_errors` must equal)."""
    diffs = [abs(v - series[t - lag]) for t, v in series.items() if t - lag in series]
    return (float(np.mean(diffs)) if diffs else np.inf), len(diffs)


def estimate_period(series: dict[int, float], day: int, lo: int = 8, hi: int = 40,
                    min_pairs: int = 8) -> int | None:
    """The shortest lag whose mean |e(t) - e(t - lag)| is near the smallest (multiples of the
    period score alike), if clearly better than lag 1."""
    lags = list(range(lo, min(hi, day - min_pairs) + 1))
    found = lag_errors(series, [1, *lags])
    errors = {lag: err for lag, (err, pairs) in zip(lags, found[1:], strict=True)
              if pairs >= min_pairs}
    if not errors:
        return None
    best = min(errors.values())
    if best > 0.5 * found[0][0]:
        return None
    return min(lag for lag, err in errors.items() if err <= 2 * best + 0.005)


class EnergyHeuristicAgent:
    """Period-aware dispatcher (see module docstring)."""

    name = "heuristic"
    privileged = False
    #: The longest period it looks for (v1 and v2: 40 days, below most v2 periods).
    max_period = 40

    def __init__(self) -> None:
        self.public: dict[str, Any] = {}
        self.periods: dict[str, int] | None = None
        self.shift: Shift | None = None
        self.eff: dict[str, dict[int, float]] = {k: {} for k in GENERATORS}
        self.cum_thermal = 0.0
        self.cum_supply = 0.0
        self.seen: set[int] = set()

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        self.__init__()  # type: ignore[misc]
        self.public = view.public
        self.periods, self.shift = parse_rules(view.rules_text)

    # -- observation --------------------------------------------------------------------------
    def _observe(self, obs: str) -> tuple[int, float, float] | None:
        report, today = read_day(obs, self.seen)
        if report is not None:
            for source, value in report.efficiencies().items():
                self.eff[source][report.day] = value
            self.cum_thermal += report.actual[0]
            self.cum_supply += report.supply
        return today

    def _period(self, source: str, day: int) -> tuple[int | None, int]:
        """The period in force on ``day`` and the first day of its regime."""
        if self.shift and day >= self.shift[0]:
            return self.shift[1][source], self.shift[0]
        if self.periods:
            return self.periods[source], 0
        return estimate_period(self.eff[source], day, hi=self.max_period), 0

    def predict(self, source: str, day: int) -> tuple[float, bool]:
        """Today's efficiency (one period ago, else yesterday, else a prior), and whether it
        came from one period ago."""
        series = self.eff[source]
        if source == "thermal":
            return (float(np.mean(list(series.values()))) if series else PRIOR["thermal"]), True
        period, start = self._period(source, day)
        if period and day - period >= start and day - period in series:
            return series[day - period], True
        if day - 1 in series:
            return series[day - 1], False
        return self.prior(source), False

    # -- the grid's sources (v1's three; a subclass may name others) --------------------------
    def generators(self) -> tuple[str, ...]:
        """The generators it dispatches, thermal first."""
        return GENERATORS

    def prior(self, source: str) -> float:
        """A renewable's efficiency before anything is seen."""
        return PRIOR[source]

    def format(self, cmd: dict[str, float]) -> str:
        """The action text of ``cmd``."""
        return format_action(cmd, decimals=2)

    # -- decision -----------------------------------------------------------------------------
    def act(self, observation: str) -> str:
        parsed = self._observe(observation)
        if parsed is None:
            return "{}"
        day, demand, budget = parsed
        cap, price = self.public["capacity"], self.public["prices"]
        gens = self.generators()
        renewables = gens[1:]
        guesses = {k: self.predict(k, day) for k in gens}
        e = {k: max(0.3, g[0]) for k, g in guesses.items()}
        periodic = all(g[1] for g in guesses.values())
        need = demand * (1 + (SAFETY if periodic else UNSURE_SAFETY))
        target = float(self.public["target_carbon"]) - CARBON_MARGIN
        left = max(1, int(self.public["horizon"]) - day)
        share = target + (target * self.cum_supply - self.cum_thermal) / (need * min(left, 10))
        thermal = min(max(share, 0.0), 1.0) * need
        plan = self._renewables(need - thermal, e, cap, price, renewables)
        plan["thermal"] = thermal
        # Over budget: move actual output from the dearest renewable to thermal.
        over = self._cost(plan, e, price, gens) - 0.995 * budget
        for k in sorted(renewables, key=lambda s: -price[s] / e[s]):
            if over <= 0:
                break
            saving = price[k] / e[k] - price["thermal"] / e["thermal"]
            if saving <= 0:
                continue
            move = min(plan[k], over / saving, cap["thermal"] * e["thermal"] - plan["thermal"])
            plan[k] -= move
            plan["thermal"] += move
            over -= move * saving
        cmd = {k: min(plan[k] / e[k], float(cap[k])) for k in gens}
        cmd["battery"] = 0.0
        return self.format(cmd)

    @staticmethod
    def _renewables(amount: float, e: dict[str, float], cap: dict[str, float],
                    price: dict[str, float], renewables: tuple[str, ...] = RENEWABLES
                    ) -> dict[str, float]:
        plan = {k: 0.0 for k in renewables}
        for k in sorted(renewables, key=lambda s: price[s] / e[s]):
            plan[k] = min(max(amount, 0.0), float(cap[k]) * e[k])
            amount -= plan[k]
        return plan

    @staticmethod
    def _cost(plan: dict[str, float], e: dict[str, float], price: dict[str, float],
              gens: tuple[str, ...] = GENERATORS) -> float:
        return sum(plan[k] / e[k] * price[k] for k in gens)
