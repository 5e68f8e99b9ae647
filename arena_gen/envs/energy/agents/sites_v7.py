"""Energy v7 agents: v2's receding-horizon LP dispatcher over sites, one v3 model per site.

The dispatcher (:class:`SiteDispatcher`) plans every ``replan`` days a window over thermal,
every site and no battery (the v7 window LP), supply met at prediction - z sigma, and re-fits
thermal to the day's demand, as v2's :class:`~.planner.EnergyPlanner` does. It predicts each
site with its own copy of a v1-v6 rung's efficiency model, fed that site's observations as if
it were the model's wind (or solar) source: the rungs differ only in that model.

* ``planner`` (with-rules): v2's model of one renewable reading its disclosed regimes (base
  pattern plus the current cycle's offset, sigma 0.015).
* ``heuristic`` (inductive): v3's change-point learner per site (its lag period estimate,
  same-phase means, a CUSUM of its own residuals declaring the site's shifts alone), under
  2.5 sigmas of pessimism.
* ``persistence`` (model-free): v3's persistence model per site (tomorrow is yesterday,
  sigma 0.06).

They read ``view.public``, the observations and (the planner only) ``view.rules_text``.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from arena_gen.core.agent import TaskView
from arena_gen.core.probes import Probe
from arena_gen.envs.energy.agents import probe_replies
from arena_gen.envs.energy.agents.changepoint import (
    EnergyChangePointPlanner,
    EnergyPersistencePlanner,
)
from arena_gen.envs.energy.agents.planner import _PRIOR, EnergyPlanner, _floats
from arena_gen.envs.energy.game_v7 import EnergyGameV7
from arena_gen.envs.energy.rules_v7 import format_action, kind_of
from arena_gen.envs.energy.window_lp_v7 import SiteWindow, blocks, solve

__all__ = ["SiteChangePoint", "SiteDispatcher", "SitePersistence", "SitePlanner",
           "read_report"]

_NUM = r"(-?\d+(?:\.\d+)?)"
_PAIR = re.compile(rf"([a-z]+\d*) {_NUM}")
_RATED = re.compile(r"Yesterday \(day (\d+)\): rated (.*?), battery command")
_ACTUAL = re.compile(rf"actual (.*?); battery (discharged|charged) {_NUM}")
_TODAY = re.compile(rf"Today \(day (\d+)\): demand {_NUM}, budget {_NUM}")
_VIOLATED = re.compile(r"(demand|budget) violated")
_REGIME = re.compile(r"Site ([a-z]+\d+) from day (\d+) on: repeats every (\d+) days, base "
                     r"pattern[^\[]*\[([^\]]*)\]")

#: One day's report: the day, rated and actual output per generator, and the battery flow.
Report = tuple[int, dict[str, float], dict[str, float], float]


def read_report(obs: str) -> tuple[Report | None, tuple[int, float, float] | None]:
    """Yesterday's report of a v7 observation (or None) and today's (day, demand, budget)."""
    report = None
    rated, actual = _RATED.search(obs), _ACTUAL.search(obs)
    if rated and actual:
        flow = float(actual.group(3)) * (1 if actual.group(2) == "discharged" else -1)
        report = (int(rated.group(1)),
                  {k: float(v) for k, v in _PAIR.findall(rated.group(2))},
                  {k: float(v) for k, v in _PAIR.findall(actual.group(1))}, flow)
    today = _TODAY.search(obs)
    if today is None:
        return report, None
    return report, (int(today.group(1)), float(today.group(2)), float(today.group(3)))


class SiteDispatcher:
    """The v7 receding-horizon dispatcher; subclasses name each site's model (module doc)."""

    name = "planner"
    privileged = False
    #: Days per planning window, days between plans, carbon margin, each site's least rating.
    window = 15
    replan = 3
    carbon_margin = 0.004
    floor = 2.0
    #: The v1-v6 rung whose efficiency model each site gets (its ``z`` is the pessimism).
    model: type[EnergyPlanner] = EnergyPlanner

    def __init__(self) -> None:
        self.public: dict[str, Any] = {}
        self.sites: list[str] = []
        self.models: dict[str, EnergyPlanner] = {}
        self.thermal: list[float] = []
        self.prev: dict[str, float] = {}
        self.cum_thermal = 0.0
        self.cum_supply = 0.0
        self.seen: set[int] = set()
        self.plan: np.ndarray | None = None
        self.plan_day = 0
        self.violated = False
        self.z = float(self.model.z)

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        self.__init__()  # type: ignore[misc]
        self.public = dict(view.public)
        self.sites = list(view.public["sites"])
        self.models = {s: self.model() for s in self.sites}
        for model in self.models.values():
            model.public = self.public
        self.prev = {k: float(view.public["initial_rated"].get(k, 0.0))
                     for k in ("thermal", *self.sites)}
        self.prev["battery"] = 0.0

    def observe_site(self, site: str, day: int, value: float) -> None:
        """Feed one site's efficiency to its model."""
        self.models[site].learn(kind_of(site), day, value)

    def _observe(self, obs: str) -> tuple[int, float, float] | None:
        report, today = read_report(obs)
        if report is not None and report[0] not in self.seen:
            day, rated, actual, flow = report
            self.seen.add(day)
            for k, value in rated.items():
                if value >= 1.0 and k in actual:
                    if k == "thermal":
                        self.thermal.append(actual[k] / value)
                    elif k in self.models:
                        self.observe_site(k, day, actual[k] / value)
            self.prev = {k: rated.get(k, 0.0) for k in ("thermal", *self.sites)}
            self.prev["battery"] = 0.0
            self.cum_thermal += actual.get("thermal", 0.0)
            self.cum_supply += sum(actual.values()) + flow
            self.violated = _VIOLATED.search(obs) is not None
        return today

    def predict(self, source: str, days: np.ndarray, today: int) -> tuple[np.ndarray, float]:
        """Predicted efficiencies of ``source`` on ``days`` and their sigma."""
        if source == "thermal":
            mean = float(np.mean(self.thermal)) if self.thermal else _PRIOR["thermal"]
            return np.full(len(days), mean), 0.01
        return self.models[source].predict(kind_of(source), days, today)

    def act(self, observation: str) -> str:
        parsed = self._observe(observation)
        if parsed is None:
            return "{}"
        day, demand, budget = parsed
        generators = ("thermal", *self.sites)
        cap = {k: float(v) for k, v in self.public["capacity"].items()}
        prices = {k: float(v) for k, v in self.public["prices"].items()}
        days = np.arange(day, min(int(self.public["horizon"]), day + self.window))
        pred = {k: self.predict(k, days, day) for k in generators}
        e = {k: p[0] for k, p in pred.items()}
        pess = {k: np.maximum(0.05, p[0] - self.z * p[1]) for k, p in pred.items()}
        row = None
        if self.plan is not None and not self.violated and day - self.plan_day < min(
                self.replan, len(self.plan)):
            row = self.plan[day - self.plan_day]
        else:
            window = SiteWindow(
                generators=generators, demand=np.full(len(days), demand),
                budget=np.full(len(days), budget * 0.999), supply_eff=pess, eff=e,
                capacity=cap, prices=prices, prev=dict(self.prev), stored=0.0,
                past_thermal=self.cum_thermal, past_supply=self.cum_supply, past_ramp=0.0,
                carbon=float(self.public["target_carbon"]) - self.carbon_margin,
                floor=self.floor, battery=False)
            self.plan, self.plan_day = solve(window), day
            if self.plan is not None:
                row = self.plan[0]
        col = {b: i for i, b in enumerate(blocks(generators))}
        if row is None:  # no plan meets demand and budget: all thermal it can afford
            cmd = {"thermal": min(cap["thermal"], demand / pess["thermal"][0])}
        else:
            cmd = {k: max(0.0, float(row[col[k]])) for k in generators}
            self._refit(cmd, demand, budget, cap, prices, e, pess)
        cmd["battery"] = 0.0
        return format_action(cmd, self.sites, decimals=2)

    def _refit(self, cmd: dict[str, float], demand: float, budget: float,
               cap: Mapping[str, float], prices: Mapping[str, float],
               e: Mapping[str, np.ndarray], pess: Mapping[str, np.ndarray]) -> None:
        """Thermal re-fitted to today's demand; over budget, load moved from the dearest
        sites to thermal (v2's day)."""
        rest = demand * 1.0005 - sum(cmd[s] * pess[s][0] for s in self.sites)
        cmd["thermal"] = min(cap["thermal"], max(0.0, rest / pess["thermal"][0]))
        over = sum(cmd[k] * prices[k] for k in cmd) - 0.999 * budget
        for s in sorted(self.sites, key=lambda k: -prices[k] / e[k][0]):
            if over <= 0:
                break
            saving = prices[s] - prices["thermal"] * pess[s][0] / pess["thermal"][0]
            cut = min(cmd[s] - self.floor, over / saving) if saving > 0 else 0.0
            if cut > 0:
                cmd[s] -= cut
                cmd["thermal"] += cut * pess[s][0] / pess["thermal"][0]
                over -= cut * saving

    def answer_probes(self, probes: Sequence[Probe]) -> list[str]:
        """From its own predictions (a copy predicts: predicting fills caches), through a v7
        game compiled from a one-day world of its beliefs."""
        mind = copy.deepcopy(self)

        def believe(source: str, day: int) -> float:
            return float(mind.predict(source, np.array([day]), day)[0][0])
        return belief_replies(probes, self.public, believe)


class SitePlanner(SiteDispatcher):
    """The with-rules rung: each site's model reads that site's disclosed regimes."""

    name = "planner"
    model = EnergyPlanner

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        super().reset(view, mode, rng)
        for m in _REGIME.finditer(view.rules_text or ""):
            site, day, period, base = m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)
            if site in self.models:
                kind = kind_of(site)
                self.models[site].regimes.append((day, {kind: period}, {kind: _floats(base)}))
        for model in self.models.values():
            model.regimes.sort(key=lambda r: r[0])


class SiteChangePoint(SiteDispatcher):
    """The inductive rung: v3's change-point learner per site, each site's shifts its own."""

    name = "heuristic"
    model = EnergyChangePointPlanner

    def observe_site(self, site: str, day: int, value: float) -> None:
        """v3's daily step for one renewable, unpooled: score the residual, store, CUSUM."""
        model = self.models[site]
        assert isinstance(model, EnergyChangePointPlanner)
        kind = kind_of(site)
        guess, sigma, known = model._guess(kind, day, day)
        model.eff[kind][day] = value
        if known:
            model._update(kind, day, abs(value - guess) / max(sigma, model.sigma_floor), 1,
                          (kind,))


class SitePersistence(SiteDispatcher):
    """The model-free rung: every site delivers tomorrow what it did yesterday."""

    name = "persistence"
    model = EnergyPersistencePlanner


def belief_world(public: Mapping[str, Any], day: int, demand: float, budget: float,
                 eff: Mapping[str, float]) -> dict[str, Any]:
    """A v7 world whose day ``day`` is what the agent believes of it (earlier days alike)."""
    days = day + 1
    sites = list(public["sites"])
    return {"horizon": days, "sites": sites, "demand": [demand] * days,
            "budget": [budget] * days, "eff_thermal": [float(eff["thermal"])] * days,
            "eff": {s: [float(eff[s])] * days for s in sites},
            "regimes": {s: [{"day": 0}] for s in sites},
            "capacity": dict(public["capacity"]), "prices": dict(public["prices"]),
            "initial_rated": dict(public["initial_rated"]),
            "target_stability": float(public["target_stability"]),
            "target_carbon": float(public["target_carbon"])}


def belief_replies(probes: Sequence[Probe], public: Mapping[str, Any],
                   believe: Callable[[str, int], float]) -> list[str]:
    """Per probe, the reply implied by ``believe(source, day)``: v2's replies
    (:func:`~.probe_replies.belief_replies`) over thermal and every site, through a v7 game."""
    return probe_replies.belief_replies(probes, public, believe,
                                        ("thermal", *public["sites"]), belief_world,
                                        EnergyGameV7)
