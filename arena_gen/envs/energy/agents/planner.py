"""Energy v2 agents: a receding-horizon LP dispatcher, with the rules (planner) or without.

Both agents plan every :attr:`EnergyPlanner.replan` days a window of
:attr:`EnergyPlanner.window` days with the v2 verifier's window LP
(:mod:`arena_gen.envs.energy.window_lp`): minimum ramp with the cumulative thermal share held
just under the target, supply met at *pessimistic* efficiencies (prediction - 2 sigma), cost
within budget, future demand taken as today's. On the days between two plans the renewables
follow the plan and thermal is re-fitted to the day's demand. They differ only in where the
efficiency predictions come from:

* :class:`EnergyPlanner` (with-rules): reads the disclosed periods, shift day and base patterns
  from ``view.rules_text`` and predicts base + the current cycle's offset (estimated from the
  days of the cycle seen so far), sigma 0.015.
* :class:`EnergyInductivePlanner` (the v2 ``heuristic``): ignores any rules text. It estimates
  each period from its own observations (the lag with the smallest mean difference), predicts
  the mean of the same phase in earlier cycles, and before it knows a period, yesterday's value
  with the spread of day-to-day changes as sigma (so it hedges with thermal). It detects a
  pattern shift when three days in a row miss the prediction by far, and learns again from
  there.

They read ``view.public``, ``view.rules_text`` (the planner only) and observations; never
``view.world``.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from arena_gen.core.agent import TaskView
from arena_gen.core.probes import Probe
from arena_gen.envs.energy.agents.heuristic import estimate_period, parse_rules, read_day
from arena_gen.envs.energy.agents.probe_replies import belief_replies
from arena_gen.envs.energy.game_v1 import GENERATORS, RENEWABLES, format_action
from arena_gen.envs.energy.window_lp import BLOCKS, Window, solve

_BASE = re.compile(r"Base pattern of one cycle[^\n]*?wind \[([^\]]*)\]; solar \[([^\]]*)\]")
_SHIFT_BASE = re.compile(r"Base pattern from day (\d+) on: wind \[([^\]]*)\]; solar "
                         r"\[([^\]]*)\]")
_VIOLATED = re.compile(r"(demand|budget) violated")
#: Days of a regime the inductive agent uses to estimate a period.
MEMORY = 150
#: The longest period the inductive agent looks for.
MAX_PERIOD = 70
#: Days between two period estimates.
REESTIMATE = 4
_PRIOR = {"thermal": 1.0, "wind": 0.8, "solar": 0.85}
#: Regime: (first day, period per renewable, base pattern per renewable or None).
Regime = tuple[int, dict[str, int], dict[str, list[float]] | None]


def _floats(text: str) -> list[float]:
    return [float(v) for v in text.split(",") if v.strip()]


def parse_patterns(text: str | None) -> list[Regime]:
    """The regimes a v2 rules text discloses (empty when it discloses no base pattern)."""
    periods, shift = parse_rules(text)
    base = _BASE.search(text or "")
    if periods is None or base is None:
        return []
    regimes: list[Regime] = [(0, periods, {"wind": _floats(base.group(1)),
                                           "solar": _floats(base.group(2))})]
    s = _SHIFT_BASE.search(text or "")
    if shift is not None and s is not None:
        regimes.append((shift[0], shift[1], {"wind": _floats(s.group(2)),
                                             "solar": _floats(s.group(3))}))
    return regimes


class EnergyPlanner:
    """The with-rules receding-horizon dispatcher (see the module docstring)."""

    name = "planner"
    privileged = False
    #: Days per planning window, days between plans, sigmas of pessimism, carbon margin.
    window = 15
    replan = 3
    z = 2.0
    carbon_margin = 0.004
    floor = 2.0
    uses_rules = True

    def __init__(self) -> None:
        self.public: dict[str, Any] = {}
        self.regimes: list[Regime] = []
        self.eff: dict[str, dict[int, float]] = {k: {} for k in GENERATORS}
        self.prev: dict[str, float] = {}
        self.cum_thermal = 0.0
        self.cum_supply = 0.0
        self.seen: set[int] = set()
        self.plan: np.ndarray | None = None
        self.plan_day = 0
        self.violated = False
        self.start = 0  # the inductive agent's current regime

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        self.__init__()  # type: ignore[misc]
        self.public = view.public
        self.prev = {k: float(view.public["initial_rated"].get(k, 0.0)) for k in GENERATORS}
        self.prev["battery"] = 0.0
        if self.uses_rules:
            self.regimes = parse_patterns(view.rules_text)

    # -- observation --------------------------------------------------------------------------
    def _observe(self, obs: str) -> tuple[int, float, float] | None:
        report, today = read_day(obs, self.seen)
        if report is not None:
            for source, value in report.efficiencies().items():
                self.learn(source, report.day, value)
            self.prev = dict(zip(GENERATORS, report.rated, strict=True))
            self.prev["battery"] = 0.0
            self.cum_thermal += report.actual[0]
            self.cum_supply += report.supply
            self.violated = _VIOLATED.search(obs) is not None
        return today

    def learn(self, source: str, day: int, value: float) -> None:
        self.eff[source][day] = value

    def answer_probes(self, probes: Sequence[Probe]) -> list[str]:
        """From its own prediction of the probe day's efficiencies (patterns read in the rules
        text, or learnt), through a game compiled from those beliefs; a copy predicts, since
        predicting fills caches (a period estimate) the episode must not see early."""
        mind = self.side_copy()

        def believe(source: str, day: int) -> float:
            return float(mind.predict(source, np.array([day]), day)[0][0])
        return belief_replies(probes, self.public, believe)

    def side_copy(self) -> EnergyPlanner:
        """A copy that predicts as this agent would, and whose predictions leave this agent
        as it was: it shares what predicting only reads (the efficiencies seen, the regimes,
        the public facts) and owns what predicting writes (see the learner's override);
        what a deep copy gives, without copying everything seen at every milestone."""
        return copy.copy(self)

    # -- prediction ---------------------------------------------------------------------------
    def _regime(self, day: int) -> Regime | None:
        current = None
        for regime in self.regimes:
            if day >= regime[0]:
                current = regime
        return current

    def predict(self, source: str, days: np.ndarray, today: int) -> tuple[np.ndarray, float]:
        """Predicted efficiencies of ``source`` on ``days`` and their sigma."""
        series = self.eff[source]
        if source == "thermal":
            mean = float(np.mean(list(series.values()))) if series else _PRIOR["thermal"]
            return np.full(len(days), mean), 0.01
        out = np.empty(len(days))
        for i, d in enumerate(days):
            regime = self._regime(int(d))
            assert regime is not None
            start, periods, bases = regime
            assert bases is not None
            period, base = periods[source], bases[source]
            out[i] = base[(int(d) - start) % period] + self._offset(source, int(d), today,
                                                                   start, period, base)
        lo, hi = self.public.get("eff_ranges", {}).get(source, (0.3, 1.2))
        return np.clip(out, lo, hi), 0.015

    def _offset(self, source: str, day: int, today: int, start: int, period: int,
                base: list[float]) -> float:
        """The current cycle's offset (shrunk mean residual) for days of today's cycle."""
        cycle = (today - start) // period
        if (day - start) // period != cycle:
            return 0.0
        first = start + cycle * period
        res = [v - base[(t - start) % period] for t, v in self.eff[source].items()
               if first <= t < today]
        return float(np.sum(res) / (len(res) + 1)) if res else 0.0

    # -- decision -----------------------------------------------------------------------------
    def act(self, observation: str) -> str:
        parsed = self._observe(observation)
        if parsed is None:
            return "{}"
        day, demand, budget = parsed
        horizon = int(self.public["horizon"])
        cap = {k: float(v) for k, v in self.public["capacity"].items()}
        prices = {k: float(v) for k, v in self.public["prices"].items()}
        days = np.arange(day, min(horizon, day + self.window))
        pred = {k: self.predict(k, days, day) for k in GENERATORS}
        e = {k: p[0] for k, p in pred.items()}
        pess = {k: np.maximum(0.05, p[0] - self.z * p[1]) for k, p in pred.items()}
        row = None
        if self.plan is not None and not self.violated and day - self.plan_day < min(
                self.replan, len(self.plan)):
            row = self.plan[day - self.plan_day]
        else:
            window = Window(
                demand=np.full(len(days), demand), budget=np.full(len(days), budget * 0.999),
                supply_eff=pess, eff=e, capacity=cap, prices=prices, prev=dict(self.prev),
                stored=0.0, past_thermal=self.cum_thermal, past_supply=self.cum_supply,
                past_ramp=0.0, carbon=float(self.public["target_carbon"]) - self.carbon_margin,
                floor=self.floor, battery=False)
            self.plan, self.plan_day = solve(window), day
            if self.plan is not None:
                row = self.plan[0]
        col = {b: i for i, b in enumerate(BLOCKS)}
        if row is None:  # no plan meets demand and budget: all thermal it can afford
            cmd = {"thermal": min(cap["thermal"], demand / pess["thermal"][0]), "wind": 0.0,
                   "solar": 0.0}
        else:
            cmd = {k: max(0.0, float(row[col[k]])) for k in GENERATORS}
            # Re-fit thermal to today's demand (the plan assumed the demand of its first day).
            rest = demand * 1.0005 - sum(cmd[k] * pess[k][0] for k in RENEWABLES)
            cmd["thermal"] = min(cap["thermal"], max(0.0, rest / pess["thermal"][0]))
            over = sum(cmd[k] * prices[k] for k in GENERATORS) - 0.999 * budget
            for k in sorted(RENEWABLES, key=lambda s: -prices[s] / e[s][0]):
                if over <= 0:
                    break
                saving = prices[k] - prices["thermal"] * pess[k][0] / pess["thermal"][0]
                if saving <= 0:
                    continue
                cut = min(cmd[k] - self.floor, over / saving)
                if cut > 0:
                    cmd[k] -= cut
                    cmd["thermal"] += cut * pess[k][0] / pess["thermal"][0]
                    over -= cut * saving
        cmd["battery"] = 0.0
        return format_action(cmd, decimals=2)


class EnergyInductivePlanner(EnergyPlanner):
    """The same dispatcher, learning the patterns from observations (the v2 ``heuristic``)."""

    name = "heuristic"
    uses_rules = False
    #: Consecutive large misses that declare a shift (3: as many as the collapse rule allows).
    shift_misses = 3
    #: Days of a regime a period is estimated from, and the fewest lag pairs it needs.
    memory = MEMORY
    min_pairs = 8

    def __init__(self) -> None:
        super().__init__()
        self.starts = {k: 0 for k in GENERATORS}
        self.misses = {k: 0 for k in GENERATORS}
        self._periods: dict[tuple[str, int, int], int | None] = {}

    def learn(self, source: str, day: int, value: float) -> None:
        if source in RENEWABLES:
            guess, sigma, known = self._guess(source, day, day)
            if known and abs(value - guess) > max(4 * sigma, 0.06):
                self.misses[source] += 1
                if self.misses[source] >= self.shift_misses:  # shifted: learn from the misses on
                    first = day - self.shift_misses + 1
                    self.starts[source] = first
                    self.eff[source] = {t: v for t, v in self.eff[source].items()
                                        if t >= first}
                    self.misses[source] = 0
            else:
                self.misses[source] = 0
        self.eff[source][day] = value

    def side_copy(self) -> EnergyPlanner:
        """As the planner's, owning a copy of the period estimates (what predicting fills)."""
        mind = super().side_copy()
        assert isinstance(mind, EnergyInductivePlanner)
        mind._periods = dict(self._periods)
        return mind

    def _period(self, source: str, today: int) -> int | None:
        """The period estimated from the current regime's last :data:`MEMORY` days (estimated
        again every :data:`REESTIMATE` days)."""
        day = today - today % REESTIMATE
        key = (source, self.starts[source], day)
        if key not in self._periods:
            start = max(self.starts[source], day - self.memory)
            series = {t - start: v for t, v in self.eff[source].items() if start <= t < day}
            self._periods[key] = estimate_period(series, day - start, hi=MAX_PERIOD,
                                                 min_pairs=self.min_pairs)
        return self._periods[key]

    def _guess(self, source: str, day: int, today: int,
               memo: dict[str, tuple[float, float]] | None = None) -> tuple[float, float, bool]:
        """(prediction, sigma, whether it comes from a learnt period) for ``day`` as seen on
        ``today`` (only days before today are known). The sigmas and the fallback depend on
        ``today`` alone: ``memo`` keeps them for the other days of one prediction."""
        series = self.eff[source]
        start = self.starts[source]
        period = self._period(source, today)
        memo = {} if memo is None else memo
        if period:
            same = [series[t] for t in range(day - period, start - 1, -period)
                    if t < today and t in series][:3]
            if same:
                if "period" not in memo:
                    res = [abs(series[t] - series[t - period])
                           for t in range(max(start + period, today - 20), today)
                           if t in series and t - period in series]
                    memo["period"] = (0.0, max(0.015, float(np.sqrt(np.mean(np.square(res))))
                                               / 1.4) if res else 0.03)
                return float(np.mean(same)), memo["period"][1], True
        if "last" not in memo:
            past = [t for t in range(today - 1, max(start, today - 20) - 1, -1) if t in series]
            last = series[past[0]] if past else _PRIOR[source]
            steps = [abs(series[t] - series[t - 1]) for t in past if t - 1 in series]
            memo["last"] = (last, max(0.05, float(np.sqrt(np.mean(np.square(steps))))
                                      if steps else 0.1))
        last, sigma = memo["last"]
        return last, sigma, False

    def predict(self, source: str, days: np.ndarray, today: int) -> tuple[np.ndarray, float]:
        if source == "thermal":
            return super().predict(source, days, today)
        out, sigma = np.empty(len(days)), 0.0
        memo: dict[str, tuple[float, float]] = {}  # what every day of this prediction shares
        for i, d in enumerate(days):
            guess, s, _ = self._guess(source, int(d), today, memo)
            out[i], sigma = guess, max(sigma, s)
        return out, sigma
