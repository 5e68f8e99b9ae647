"""Energy Dispatch: schedule thermal, wind, solar and a battery each day under hidden efficiencies.

The rules (:class:`Rules`, the one transition function) and the game (:class:`EnergyGame`, whose
docstring holds the Gymnasium sections and the Information keys) live here; the text env is
the generic :class:`~arena_gen.core.game_env.GameEnv` around the game.

Semantics follow the released OdysseyArena environment (EnergyEnv_v5): cost uses the rated
values plus the battery wear x |actual battery flow|; the ramp sums |rated(t) - rated(t-1)| over
thermal, wind, solar and the clamped battery *command*, normalised by the sum of the four
capacities (1280); supply is floored at 1e-6; the thermal share is cumulative thermal actual
output / cumulative supply, where supply includes the battery flow (charging subtracts).

Decisions where the spec is silent: unknown keys are rejected (a typo such as ``"Thermal"``
would otherwise silently schedule 0); the whole reply must be the JSON object (surrounding
whitespace allowed); a collapse on the last day is a failure; after the episode ends the state
no longer changes. The turn budget is H + ceil(0.1 H) (132 for Lite, 1100 for Challenge). In
Challenge the pattern shift draws a new base pattern *and* a new period for wind and solar from
the shift day on (tiled from that day); the rules text discloses both periods and the day. The
judge assesses ``stable`` and ``low_carbon`` over the full horizon only: an episode that ends
early has them violated. The verifier's non-triviality check plans with the range minima of
the efficiencies (wind 0.60, solar 0.65, thermal 0.95) under the same no-violation LP; the task
is non-trivial when that plan is infeasible (always so far: at those efficiencies a unit of
supply costs more than the 4.2 budget factor allows) or fails on the true world.
"""

from __future__ import annotations

import dataclasses
import json
import math
import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from arena_gen.core.game import ActionError, Check, Event, Facts, Game, TaskLike
from arena_gen.core.probes import Probe, balanced, choice_correct, letters
from arena_gen.core.task import RubricItem

SOURCES = ("thermal", "wind", "solar", "battery")
GENERATORS = ("thermal", "wind", "solar")
#: The generators whose efficiency follows a hidden periodic pattern.
RENEWABLES = ("wind", "solar")
#: Consecutive violation days that end the episode.
COLLAPSE_DAYS = 3
#: The rubric item ids, in rubric order.
SURVIVED, STABLE, LOW_CARBON = "survived", "stable", "low_carbon"
#: Probe kinds: a renewable's efficiency on the next day (multiple choice within a tolerance),
#: and whether a named dispatch meets demand and the day's stability and carbon limits.
EFFICIENCY, DISPATCH_OK = "efficiency", "dispatch_ok"
YES_NO = ("yes", "no")
#: Efficiency options: one within ``EFF_TOLERANCE`` of the truth, the others ``EFF_STEP`` apart
#: (so exactly one is within the tolerance, and any estimate off by less than half a step
#: picks it).
EFF_OPTIONS, EFF_TOLERANCE, EFF_STEP = 4, 0.05, 0.12
#: A dispatch question is asked only when its answer is the same with every efficiency of the
#: day moved by up to this much (noise a rules-reading planner cannot know never decides it).
DISPATCH_ROBUST = 0.03
_TRIES = 48


def parse_action(action: str) -> dict[str, float]:
    """Return the four commands of an action, or raise ValueError with a one-line reason."""
    text = action.strip()
    if not text:
        raise ValueError('empty action; write a JSON object such as {"thermal": 200, "wind": 100,'
                         ' "solar": 80, "battery": 0}')
    try:
        data = _decode(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON ({exc.msg}); write one JSON object with keys "
                         f"thermal, wind, solar, battery") from None
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
    if not isinstance(data, dict):
        raise ValueError("the action must be a JSON object with keys thermal, wind, solar, "
                         "battery")
    if not data.keys() <= _KEYS:
        unknown = [k for k in data if k not in SOURCES]
        raise ValueError(f"unknown key {str(unknown[0])[:30]!r}; allowed keys: "
                         f"{', '.join(SOURCES)}")
    out = dict(_NO_COMMAND)
    for key, value in data.items():
        if type(value) is float and -_INF < value < _INF:  # the common case: finite, as below
            out[key] = value
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"{key} must be a number, got {json.dumps(value)[:30]}")
        try:
            number = float(value)
        except OverflowError:
            number = math.inf
        if not math.isfinite(number):
            raise ValueError(f"{key} must be a finite number")
        out[key] = number
    return out


_KEYS = frozenset(SOURCES)
_INF = math.inf
#: Every command 0 (a missing key), in ``SOURCES`` order.
_NO_COMMAND = {k: 0.0 for k in SOURCES}


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not a finite number")


#: Built once: ``json.loads`` with ``parse_constant`` builds a new decoder on every call (half
#: the time of a dispatch's parse).
_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


#: The decoder's scanner: a value read from index 0 to the end is what ``decode`` returns (it
#: skips JSON whitespace first, but a value scanned from 0 starts with none).
_SCAN: Callable[[str, int], tuple[Any, int]] = _DECODER.scan_once  # type: ignore[attr-defined]


def _decode(text: str) -> Any:
    """``json.loads(text, parse_constant=_reject_constant)``, the same values and errors (the
    byte-order-mark check is ``json.loads``'s own, which a bare decoder skips): one value
    spanning the whole text is scanned directly, anything else (whitespace around it, extra
    data, no value) goes through ``decode`` for its very error."""
    if text.startswith("\ufeff"):
        raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
    try:
        value, end = _SCAN(text, 0)
    except StopIteration as err:
        if text[:1] in _JSON_SPACE:  # decode scans after the whitespace (or "" is empty)
            return _DECODER.decode(text)
        # What ``raw_decode`` raises when no value starts where the text does.
        raise json.JSONDecodeError("Expecting value", text, err.value) from None
    if end == len(text):
        return value
    return _DECODER.decode(text)


#: JSON's whitespace (what ``decode`` skips); ``"" in`` it holds too.
_JSON_SPACE = " \t\n\r"


def format_action(cmd: dict[str, float], decimals: int = 3) -> str:
    """Render commands as the action JSON text (fixed key order)."""
    return "{" + ", ".join(f'"{k}": {cmd.get(k, 0.0):.{decimals}f}' for k in SOURCES) + "}"


@dataclass
class DayRecord:
    """What happened on one day: rated and actual values, supply, cost, ramp, violations."""

    day: int
    rated: dict[str, float]
    actual: dict[str, float]
    supply: float
    demand: float
    cost: float
    budget: float
    ramp: float
    stability: float
    demand_violated: bool
    budget_violated: bool

    def to_dict(self) -> dict[str, Any]:
        return {"day": self.day, "rated": dict(self.rated), "actual": dict(self.actual),
                "supply": self.supply, "demand": self.demand, "cost": self.cost,
                "budget": self.budget, "ramp": self.ramp, "stability": self.stability,
                "demand_violated": self.demand_violated, "budget_violated": self.budget_violated}


@dataclass
class GridState:
    """The mutable state of one episode."""

    day: int
    stored: float
    prev: dict[str, float]
    stability_sum: float = 0.0
    cum_thermal: float = 0.0
    cum_supply: float = 0.0
    streak: int = 0
    collapsed: bool = False
    last: DayRecord | None = field(default=None)

    def copy(self) -> GridState:
        """A copy owning its ``prev`` dict (what a day rebinds or reads): the state
        ``dataclasses.replace(self, prev=dict(self.prev))`` returns, without its per-field work
        (a twelfth of a dispatch step)."""
        after = object.__new__(type(self))
        after.__dict__.update(self.__dict__)
        after.prev = dict(self.prev)
        return after

    @property
    def stability(self) -> float:
        """Running average daily stability (1.0 before the first day, as released)."""
        return self.stability_sum / self.day if self.day else 1.0

    @property
    def thermal_share(self) -> float:
        """Cumulative thermal actual output over cumulative supply (0 before the first day)."""
        return self.cum_thermal / self.cum_supply if self.cum_supply > 0 else 0.0


class Rules:
    """The one transition function of an energy world, shared by env, verifier, agents, judge."""

    def __init__(self, world: dict[str, Any]) -> None:
        self.horizon = int(world["horizon"])
        self.demand = list(map(float, world["demand"]))  # [float(x) for x in ...], at half
        self.budget = list(map(float, world["budget"]))  # the cost (once per game)
        self.eff = {"thermal": list(map(float, world["eff_thermal"])),
                    "wind": list(map(float, world["eff_wind"])),
                    "solar": list(map(float, world["eff_solar"]))}
        self.capacity = {k: float(world["capacity"][k]) for k in SOURCES}
        self.prices = {k: float(world["prices"][k]) for k in SOURCES}
        self.initial = {k: float(world["initial_rated"].get(k, 0.0)) for k in GENERATORS}
        self.initial["battery"] = 0.0
        self.target_stability = float(world["target_stability"])
        self.target_carbon = float(world["target_carbon"])
        self.max_ramp = sum(self.capacity.values())
        self._caps = tuple(self.capacity[k] for k in SOURCES)
        self._prices = tuple(self.prices[k] for k in SOURCES)
        #: What the rules read of each day, one tuple a day (one index where five were): as
        #: many days as the shortest series has, where indexing that series fails as before.
        self._days = list(zip(self.eff["thermal"], self.eff["wind"], self.eff["solar"],
                              self.demand, self.budget, strict=False))
        for name, values in (("demand", self.demand), ("budget", self.budget),
                             *((f"eff_{k}", v) for k, v in self.eff.items())):
            if len(values) < self.horizon:
                raise ValueError(f"world {name} has {len(values)} days, horizon {self.horizon}")

    def shifted(self, day: int, shift: Mapping[str, float]) -> Rules:
        """These rules with ``day``'s efficiencies moved by ``shift`` (the probes' robustness
        check): a copy sharing everything but its list of days."""
        view = object.__new__(Rules)
        view.__dict__.update(self.__dict__)
        view._days = days = list(self._days)
        th, wi, so, demand, budget = days[day]
        days[day] = (th + shift.get("thermal", 0.0), wi + shift.get("wind", 0.0),
                     so + shift.get("solar", 0.0), demand, budget)
        return view

    def start(self) -> GridState:
        """The state before day 0."""
        return GridState(day=0, stored=0.0, prev=dict(self.initial))

    def over(self, state: GridState) -> bool:
        """Whether the episode has ended (horizon reached or collapsed)."""
        return state.collapsed or state.day >= self.horizon

    def step(self, state: GridState, cmd: dict[str, float]) -> DayRecord:
        """Play one day with commands ``cmd`` (clamped here); mutates and returns the record."""
        # Unrolled over the sources (a third of a dispatch step was the comprehensions): the
        # same operations on the same operands in the same order, so the same floats. Each
        # ``min(a, b)`` / ``max(a, b)`` is written as the one test the builtin makes (``max``
        # keeps its first argument unless the second is greater, ``min`` unless the second is
        # less: the same object, signed zeros and NaN included), and ``float`` is skipped
        # where the value already is one (it would return it).
        t = state.day
        e_thermal, e_wind, e_solar, demand, budget = self._days[t]
        cap_thermal, cap_wind, cap_solar, cap_battery = self._caps
        get = cmd.get
        thermal = get("thermal", 0.0)
        if type(thermal) is not float:
            thermal = float(thermal)
        if 0.0 > thermal:
            thermal = 0.0
        if cap_thermal < thermal:
            thermal = cap_thermal
        wind = get("wind", 0.0)
        if type(wind) is not float:
            wind = float(wind)
        if 0.0 > wind:
            wind = 0.0
        if cap_wind < wind:
            wind = cap_wind
        solar = get("solar", 0.0)
        if type(solar) is not float:
            solar = float(solar)
        if 0.0 > solar:
            solar = 0.0
        if cap_solar < solar:
            solar = cap_solar
        battery = get("battery", 0.0)
        if type(battery) is not float:
            battery = float(battery)
        low = -cap_battery
        if low > battery:
            battery = low
        if cap_battery < battery:
            battery = cap_battery
        rated = {"thermal": thermal, "wind": wind, "solar": solar, "battery": battery}
        a_thermal = thermal * e_thermal
        a_wind = wind * e_wind
        a_solar = solar * e_solar
        stored = state.stored
        if battery >= 0:
            flow = stored if stored < battery else battery  # min(battery, stored)
        else:
            room = cap_battery - stored
            charge = -battery
            flow = -(room if room < charge else charge)  # -min(-battery, room)
        actual = {"thermal": a_thermal, "wind": a_wind, "solar": a_solar, "battery": flow}
        state.stored = stored - flow
        supply = a_thermal + a_wind + a_solar + flow
        if not supply > 1e-6:
            supply = 1e-6  # max(1e-6, supply)
        p_thermal, p_wind, p_solar, p_battery = self._prices
        cost = sum((thermal * p_thermal, wind * p_wind, solar * p_solar)) + abs(flow) * p_battery
        demand_violated = supply < demand
        budget_violated = cost > budget
        prev = state.prev
        ramp = sum((abs(thermal - prev["thermal"]), abs(wind - prev["wind"]),
                    abs(solar - prev["solar"]), abs(battery - prev["battery"])))
        share = ramp / self.max_ramp
        stability = 1.0 - 0.5 * (share if share < 1.0 else 1.0)  # min(1.0, share)
        stability -= 0.5 * budget_violated + 0.5 * demand_violated
        if 0.0 > stability:  # min(max(stability, 0.0), 1.0)
            stability = 0.0
        if 1.0 < stability:
            stability = 1.0
        state.prev = {"thermal": thermal, "wind": wind, "solar": solar, "battery": battery}
        state.stability_sum += stability
        state.cum_thermal += a_thermal
        state.cum_supply += supply
        state.day = t + 1
        state.streak = state.streak + 1 if (demand_violated or budget_violated) else 0
        if state.streak >= COLLAPSE_DAYS:
            state.collapsed = True
        # Positional: the dataclass ``__init__`` takes keywords at thrice the cost.
        record = DayRecord(t, rated, actual, supply, demand, cost, budget, ramp, stability,
                           demand_violated, budget_violated)
        state.last = record
        return record


#: Which constraints a day broke, as the feedback and the observation name them, per (demand
#: met, budget met): read as ``_BROKE[not rec.demand_violated, not rec.budget_violated]``.
_BROKE = {(False, False): "demand and budget violated", (False, True): "demand violated",
          (True, False): "budget violated", (True, True): "no violation"}


# The observation's lines as ``%`` templates: ``%.2f`` of a number is ``format(value, ".2f")``
# (the same conversion of the same double) and ``%s`` of an int is ``format(value, "")``; one
# ``%`` a text is a fifth faster than a ``str.format`` a line. ``{...}`` marks the parts fixed by
# the task, filled in once per game (``EnergyGame.__init__``).
_STATUS = ("=== Day %s{of_horizon}\nStatus: stability %.6f{stability_target} | thermal share "
           "%.6f{carbon_target} | battery stored %.2f{of_capacity}")
_YESTERDAY = ("Yesterday (day %s): rated thermal %.2f, wind %.2f, solar %.2f, battery command "
              "%.2f\n  actual thermal %.2f, wind %.2f, solar %.2f; battery %s%.2f\n  supply %.2f "
              "vs demand %.2f; cost %.2f vs budget %.2f; ramp %.2f; day stability %.4f; %s; "
              "consecutive violation days %s")
_FIRST = "Yesterday: first day, no history."
_TODAY = "Today (day %s): demand %.2f, budget %.2f"
_OVER = "The episode is over."


@dataclass(frozen=True)
class EnergyFacts(Facts):
    """What judges and logs know of an energy state."""

    day: int
    horizon: int
    collapsed: bool
    survived: bool
    stability: float
    thermal_share: float
    target_stability: float
    target_carbon: float
    stored: float
    violation_streak: int
    last_day: dict[str, Any] | None

    def to_dict(self) -> dict[str, Any]:
        """``Facts.to_dict`` (``dataclasses.asdict``) written out for these fields: the text env
        calls it every step; a ``last_day`` not shaped as :meth:`DayRecord.to_dict` takes the
        generic path."""
        last = self.last_day
        if last is not None:
            if type(last) is not dict or type(last.get("rated")) is not dict or type(
                    last.get("actual")) is not dict:
                return super().to_dict()
            last = {**last, "rated": dict(last["rated"]), "actual": dict(last["actual"])}
        return {"day": self.day, "horizon": self.horizon, "collapsed": self.collapsed,
                "survived": self.survived, "stability": self.stability,
                "thermal_share": self.thermal_share, "target_stability": self.target_stability,
                "target_carbon": self.target_carbon, "stored": self.stored,
                "violation_streak": self.violation_streak, "last_day": last}


class EnergyGame(Game[GridState, dict[str, float], EnergyFacts]):
    """Energy Dispatch.

    Description:
        Each day the agent sets the rated output of thermal, wind and solar generation and a
        battery command. Actual output is rated x a hidden daily efficiency; wind and solar
        efficiencies follow hidden periodic patterns (period 15-25 days, small noise) that the
        agent must infer from what it observes (yesterday's rated and actual outputs). Goal:
        reach the horizon without collapsing, with average stability above the target and
        thermal share below the target.
    Action Space:
        A JSON object ``{"thermal": x, "wind": x, "solar": x, "battery": x}`` of finite
        numbers. Thermal, wind and solar are clamped to ``[0, capacity]``; battery to
        ``[-80, 80]`` (positive discharges, negative charges). Missing keys are 0. Malformed
        JSON, a non-object, an unknown key, or a non-numeric / non-finite / boolean value is
        invalid: a one-line reason, the day does not advance, one turn spent.
    Observation:
        The feedback line, the day, running stability and thermal share against their
        targets, stored battery energy, yesterday's rated and actual outputs, battery flow,
        supply vs demand, cost vs budget, ramp, the day's stability and which constraints
        broke, the consecutive violation count, today's demand and budget, and the turns
        left. Efficiencies are never shown directly.
    Starting State:
        Day 0, empty battery, the task's initial rated values as yesterday's setting (the ramp
        of day 0 is measured from them; the battery's previous command is 0).
    Rewards:
        1.0 on the final day if the task succeeds, else 0.0.
    Episode End:
        Terminated when the horizon is reached, or on the third consecutive day with a demand
        or budget violation (a collapse, failure); truncated when the turn budget is spent.
    Information:
        ``day``, ``horizon``, ``collapsed``, ``survived`` (horizon reached without collapse),
        ``stability`` (running average), ``thermal_share`` (cumulative), ``target_stability``,
        ``target_carbon``, ``stored`` (battery energy), ``violation_streak``, ``last_day`` (the
        last day's record: rated, actual, supply, demand, cost, budget, ramp, stability and
        violations) or None.
    Rubric:
        ``survived``, ``stable`` (average stability above target) and ``low_carbon`` (thermal
        share below target), the last two over the full horizon only. Success: all met.
    Probes:
        ``efficiency``: a renewable's (wind or solar) efficiency on the next day to dispatch
        (the last day once the episode is over), four values offered, exactly one within
        0.05 of the truth, its letter balanced (chance 25 %). ``dispatch_ok``: given the day
        (its demand and budget), yesterday's rated commands and the stored energy, does a named
        dispatch meet demand with the day's stability above the stability target and the day's
        thermal share of supply below the carbon target? ``yes``/``no``, half each (chance
        50 %); asked only when every efficiency moved by 0.03 keeps the answer. Answers step
        the game's own rules on a copy.
    Arguments:
        ``task``: an energy :class:`~arena_gen.core.task.Task`.
    Version History:
        v1: initial release.
        v2: this game unchanged (same :class:`Rules`, observation and rubric) on v2 worlds.
        The rules text discloses each regime's base efficiency pattern (with-rules mode is
        deductive up to the noise); base patterns have 1-3 day segments (v1: 2-5) and wider
        swings, so the pattern must be learnt; the verifier witnesses with receding-horizon
        LPs (linear in the horizon); a baseline ladder (random, the inductive LP dispatcher,
        v1's period-greedy heuristic, the with-rules LP planner) is calibrated per suite. See
        docs/envs/energy.md for the measured figures.
        v3: (a preview) this game unchanged on v3 worlds (Lite: v2's; Challenge: two pattern
        shifts, each regime at least 90 days); a format-2 ladder with a model-free rung, a
        change-detecting inductive heuristic and period_greedy over the v2 periods.
        v4: this game, v3's worlds and presets; each task proves it resists model-free play
        (issue 38): a task the persistence rung solves, or whose random-policy success bound
        (Clopper-Pearson, 100 seeded random episodes) exceeds 5 %, is rejected.
    """

    #: Per probe kind, what a uniform guess or a constant reply scores (answers are balanced).
    probe_chance: ClassVar[dict[str, float]] = {EFFICIENCY: 1 / EFF_OPTIONS, DISPATCH_OK: 0.5}

    def __init__(self, task: TaskLike) -> None:
        super().__init__(task)
        self.rules = Rules(task.world)
        r = self.rules
        # The observation's templates with the parts fixed by the task formatted once: (a day
        # dispatched, the first day) x (days ahead, the episode over).
        fixed = {"of_horizon": f" of {r.horizon} ===",
                 "stability_target": f" (target > {r.target_stability:.6f})",
                 "carbon_target": f" (target < {r.target_carbon:.6f})",
                 "of_capacity": f" / {r.capacity['battery']:.0f}"}
        status = _STATUS.format(**{k: v.replace("%", "%%") for k, v in fixed.items()})
        self._day_ahead = "\n".join((status, _YESTERDAY, _TODAY))
        self._day_over = "\n".join((status, _YESTERDAY, _OVER))
        self._first_ahead = "\n".join((status, _FIRST, _TODAY))
        self._first_over = "\n".join((status, _FIRST, _OVER))
        self._shown: tuple[tuple[Any, ...], str] | None = None
        self._efficiencies: dict[tuple[int, str], float] = {}

    def parse(self, text: str) -> dict[str, float]:
        try:
            return parse_action(text)
        except ValueError as exc:
            raise ActionError(str(exc)) from None

    def initial(self) -> GridState:
        return self.rules.start()

    def step(self, state: GridState, action: dict[str, float]) -> tuple[GridState, Event]:
        # ``state.copy()`` but for its copy of ``prev``: the day reads ``prev``, never changes
        # it, and rebinds it to a dict of its own.
        after = object.__new__(type(state))
        after.__dict__.update(state.__dict__)
        rec = self.rules.step(after, action)
        done = self.rules.over(after)
        win = done and self.success(after)
        feedback = (f"Day {rec.day} dispatched: "
                    f"{_BROKE[not rec.demand_violated, not rec.budget_violated]}.")
        if after.collapsed:
            feedback += (f" Grid collapse: {COLLAPSE_DAYS} consecutive violation days. "
                         f"The episode is over (failure).")
        elif done:
            feedback += (" Horizon reached: " + ("success." if win else
                                                 "targets missed (failure)."))
        # The object ``Event(feedback=..., reward=...)`` builds, without the frozen ``__init__``'s
        # ``object.__setattr__`` per field (as :meth:`facts`; compared in a test).
        event = object.__new__(Event)
        event.__dict__.update(feedback=feedback, valid=True, reward=1.0 if win else 0.0)
        return after, event

    def reject(self, state: GridState, error: ActionError) -> tuple[GridState, Event]:
        return state, Event(feedback=f"Invalid action: {error}. The day did not advance.",
                            valid=False)

    def done(self, state: GridState) -> bool:
        return self.rules.over(state)

    def facts(self, state: GridState) -> EnergyFacts:
        r = self.rules
        # The object ``EnergyFacts(day=..., ...)`` builds (no defaults, no ``__post_init__``),
        # without the frozen ``__init__``'s ``object.__setattr__`` per field (a twentieth of a
        # text step); ``tests/test_energy_step_pin.py`` compares it with the constructor's.
        facts = object.__new__(EnergyFacts)
        facts.__dict__.update(
            day=state.day, horizon=r.horizon, collapsed=state.collapsed,
            survived=state.day >= r.horizon and not state.collapsed,
            stability=state.stability, thermal_share=state.thermal_share,
            target_stability=r.target_stability, target_carbon=r.target_carbon,
            stored=state.stored, violation_streak=state.streak,
            last_day=state.last.to_dict() if state.last else None)
        return facts

    @classmethod
    def rubric(cls, params: Mapping[str, Any], world: Mapping[str, Any]) -> list[RubricItem]:
        return [
            RubricItem(SURVIVED, "The horizon was reached without three consecutive violation "
                                 "days."),
            RubricItem(STABLE, "The average daily stability over the horizon is above the "
                               "target."),
            RubricItem(LOW_CARBON, "The thermal share of supply over the horizon is below the "
                                   "target."),
        ]

    @staticmethod
    def _verdicts(facts: EnergyFacts) -> tuple[bool, bool, bool]:
        """Whether ``survived``, ``stable`` and ``low_carbon`` are met: what :meth:`checks`
        reports and :meth:`met` reads without formatting the evidence."""
        survived = facts.survived
        return (survived, survived and facts.stability > facts.target_stability,
                survived and facts.thermal_share < facts.target_carbon)

    def met(self, facts: EnergyFacts) -> bool:
        survived, stable, low_carbon = self._verdicts(facts)
        return survived is True and stable is True and low_carbon is True  # Game.met's test

    def checks(self, facts: EnergyFacts) -> list[Check]:
        survived, stable, low_carbon = self._verdicts(facts)
        day, horizon = facts.day, facts.horizon
        if facts.collapsed:
            end = f"grid collapsed after day {day - 1} (3 consecutive violation days)"
        elif not facts.survived:
            end = f"stopped at day {day} of {horizon}"
        else:
            end = f"reached day {horizon}"
        partial = "" if facts.survived else f"; horizon not reached ({end})"
        t_stab, t_carb = facts.target_stability, facts.target_carbon
        return [
            Check(SURVIVED, survived, end),
            Check(STABLE, stable,
                  f"average stability {facts.stability:.4f} vs target > {t_stab:.4f}{partial}"),
            Check(LOW_CARBON, low_carbon,
                  f"thermal share {facts.thermal_share:.4f} vs target < {t_carb:.4f}{partial}"),
        ]

    def render(self, state: GridState) -> str:
        # A rejected text shows the very same state again: the last text is reused when every
        # field render reads is the same object as then (``is``: never a false hit; a day's
        # record is not changed once dispatched; it is compared first: a new day fails there).
        s = state
        key = (s.last, s.stored, s.stability_sum, s.cum_thermal, s.cum_supply, s.day, s.streak,
               s.collapsed)
        shown = self._shown
        if shown is not None and shown[0][0] is key[0] and all(map(operator.is_, key, shown[0])):
            return shown[1]
        text = self._render(s)
        self._shown = (key, text)
        return text

    def _render(self, s: GridState) -> str:
        r = self.rules
        day = s.day
        rec = s.last
        if rec is None:
            status = (min(day, r.horizon), s.stability, s.thermal_share, s.stored)
            if r.over(s):
                return self._first_over % status
            return self._first_ahead % (*status, day, r.demand[day], r.budget[day])
        rated, actual = rec.rated, rec.actual
        flow = actual["battery"]
        if flow >= 0:
            charge, flow = "discharged ", flow
        else:
            charge, flow = "charged ", -flow
        args = (min(day, r.horizon), s.stability, s.thermal_share, s.stored, rec.day,
                rated["thermal"], rated["wind"], rated["solar"], rated["battery"],
                actual["thermal"], actual["wind"], actual["solar"], charge, flow, rec.supply,
                rec.demand, rec.cost, rec.budget, rec.ramp, rec.stability,
                _BROKE[not rec.demand_violated, not rec.budget_violated], s.streak)
        if r.over(s):
            return self._day_over % args
        return self._day_ahead % (*args, day, r.demand[day], r.budget[day])

    @staticmethod
    def random_action(public: dict[str, Any], rng: np.random.Generator) -> str:
        cap = public["capacity"]
        cmd = {k: float(rng.uniform(0.0, float(cap[k]))) for k in GENERATORS}
        cmd["battery"] = float(rng.uniform(-float(cap["battery"]), float(cap["battery"])))
        return format_action(cmd, decimals=1)

    # -- world-model probes (arena_gen.core.probes); answers step the rules on a copy -------

    def probe_day(self, state: GridState) -> int:
        """The day probes ask about: the next day to dispatch, or the last once it is over."""
        return min(state.day, self.rules.horizon - 1)

    def efficiency(self, day: int, source: str) -> float:
        """``source``'s efficiency on ``day``: what one unit rated delivers, read by stepping a
        fresh day with one unit of it rated (kept per day and source: the probes read each
        many times). A generator's output reads its own rated value alone, so one day with one
        unit of each generator rated gives all three, as three days of one unit each would."""
        known = self._efficiencies.get((day, source))
        if known is None:
            cmd = {k: 0.0 for k in SOURCES}
            read = GENERATORS if source in GENERATORS else (source,)
            for k in read:
                cmd[k] = 1.0
            actual = self.rules.step(GridState(day=day, stored=0.0, prev=dict(cmd)), cmd).actual
            for k in read:
                self._efficiencies[day, k] = actual[k]
            known = actual[source]
        return known

    def day_record(self, day: int, stored: float, prev: Mapping[str, float],
                   cmd: Mapping[str, float], shift: Mapping[str, float] | None = None
                   ) -> DayRecord:
        """The record of dispatching ``cmd`` on ``day`` from ``stored`` and yesterday's
        ``prev`` (the rules' own step, which the game's step plays, on a fresh state; ``shift``
        moves that day's efficiencies by the amounts given, for the robustness check only)."""
        rules = self.rules.shifted(day, shift) if shift else self.rules
        before = GridState(day=day, stored=float(stored), prev={k: float(prev[k]) for k in SOURCES})
        return rules.step(before, dict(cmd))

    def dispatch_meets(self, rec: DayRecord) -> bool:
        """Demand met, the day's stability above its target, its thermal share below."""
        r = self.rules
        return (not rec.demand_violated and rec.stability > r.target_stability
                and rec.actual["thermal"] / rec.supply < r.target_carbon)

    def probes(self, state: GridState, visited: Sequence[GridState], rng: np.random.Generator,
               count: int) -> list[Probe]:
        """``count`` questions about the probe day: half dispatch (in pairs of one ``yes`` and
        one ``no`` scenario; a pair the game cannot find both of becomes two efficiency
        questions), the rest efficiency, each kind's answers balanced, in a drawn order."""
        dispatch: list[tuple[dict[str, float], dict[str, float]]] = []
        for _ in range(count // 4):
            pair = [self._scenario(state, want, rng) for want in YES_NO]
            if pair[0] is not None and pair[1] is not None:
                dispatch += [pair[0], pair[1]]
        slots = balanced(rng, count - len(dispatch), letters(EFF_OPTIONS))
        made = [self._efficiency_probe(state, slot, rng) for slot in slots]
        made += [self._dispatch_probe(state, cmd, prev) for cmd, prev in dispatch]
        order = rng.permutation(len(made))
        return [dataclasses.replace(made[int(j)], id=f"q{i}") for i, j in enumerate(order)]

    def _efficiency_probe(self, state: GridState, slot: str, rng: np.random.Generator
                          ) -> Probe:
        day = self.probe_day(state)
        source = RENEWABLES[int(rng.integers(len(RENEWABLES)))]
        truth = round(self.efficiency(day, source), 2)
        lo, hi = self._eff_range(source)
        below = [k for k in range(EFF_OPTIONS) if truth - k * EFF_STEP >= lo
                 and truth + (EFF_OPTIONS - 1 - k) * EFF_STEP <= hi]
        k = below[int(rng.integers(len(below)))] if below else 0
        values = [round(truth + (j - k) * EFF_STEP, 2) for j in range(EFF_OPTIONS)]
        others = [values[j] for j in rng.permutation(EFF_OPTIONS) if j != k]
        labels = letters(EFF_OPTIONS)
        at = labels.index(slot)
        options = [*others[:at], truth, *others[at:]]
        shown = " ".join(f"{lab}) {v:.2f}." for lab, v in zip(labels, options, strict=True))
        return Probe(id="", kind=EFFICIENCY, choices=labels, question=(
            f"What is {source}'s efficiency (actual output / rated output) on day {day}, "
            f"within {EFF_TOLERANCE:g}? {shown} Answer with exactly one letter: A, B, C or D."),
            subject={"day": day, "source": source, "options": options})

    def _eff_range(self, source: str) -> tuple[float, float]:
        """Where the options of ``source``'s question may lie: its range (the world's, else
        the series' own) widened by half a step, so no option is absurd on its face."""
        ranges = self.task.world.get("eff_ranges") or {}
        series = self.rules.eff[source]
        lo, hi = ranges.get(source, (min(series), max(series)))
        return float(lo) - EFF_STEP / 2, float(hi) + EFF_STEP / 2

    def _candidate(self, day: int, prev: dict[str, float], rng: np.random.Generator
                   ) -> tuple[dict[str, float], dict[str, float]]:
        """A scenario to ask about (2 decimals, no battery), drawn near the limits: a supply
        around demand, a thermal share around the carbon target, the rest mostly from the
        renewable cheaper per unit delivered; yesterday is the state's own, or (half the time)
        the dispatch moved by a small ramp."""
        r = self.rules
        eff = {k: self.efficiency(day, k) for k in GENERATORS}
        supply = r.demand[day] * float(rng.uniform(0.95, 1.12))
        thermal = supply * float(rng.uniform(r.target_carbon - 0.1, r.target_carbon + 0.03))
        cheap, dear = sorted(RENEWABLES, key=lambda k: r.prices[k] / eff[k])
        split = float(rng.uniform(0.6, 1.0))  # mostly the cheaper renewable, as budgets need
        cmd = {"thermal": thermal / eff["thermal"],
               cheap: (supply - thermal) * split / eff[cheap],
               dear: (supply - thermal) * (1 - split) / eff[dear]}
        out = {k: round(min(max(cmd[k], 0.0), r.capacity[k]), 2) + 0.0 for k in GENERATORS}
        out["battery"] = 0.0
        if rng.random() < 0.5:
            moves = rng.dirichlet(np.ones(len(GENERATORS))) * float(rng.uniform(0.0, 100.0))
            prev = {k: round(max(0.0, out[k] + float(m) * (1 if rng.random() < 0.5 else -1)), 2)
                    + 0.0 for k, m in zip(GENERATORS, moves, strict=True)}
            prev["battery"] = 0.0
        return out, prev

    def _robust(self, day: int, stored: float, prev: dict[str, float],
                cmd: dict[str, float], answer: bool) -> bool:
        """Whether the answer holds with the day's efficiencies moved to each corner."""
        d = DISPATCH_ROBUST
        for th, ren in ((-d, -d), (d, d), (d, -d), (-d, d)):
            rec = self.day_record(day, stored, prev, cmd,
                                  {"thermal": th, "wind": ren, "solar": ren})
            if self.dispatch_meets(rec) != answer:
                return False
        return True

    def _scenario(self, state: GridState, want: str, rng: np.random.Generator
                  ) -> tuple[dict[str, float], dict[str, float]] | None:
        """A (dispatch, yesterday) pair whose robust answer is ``want``, or None."""
        day = self.probe_day(state)
        own = {k: round(float(state.prev[k]), 2) + 0.0 for k in SOURCES}
        stored = round(float(state.stored), 2) + 0.0
        for _ in range(_TRIES):
            cmd, prev = self._candidate(day, own, rng)
            answer = self.dispatch_meets(self.day_record(day, stored, prev, cmd))
            if answer == (want == "yes") and self._robust(day, stored, prev, cmd, answer):
                return cmd, prev
        return None

    def _dispatch_probe(self, state: GridState, cmd: dict[str, float],
                        prev: dict[str, float]) -> Probe:
        day = self.probe_day(state)
        stored = round(float(state.stored), 2) + 0.0
        r = self.rules
        yesterday = ", ".join(f"{k} {prev[k]:.2f}" for k in SOURCES)
        return Probe(id="", kind=DISPATCH_OK, choices=YES_NO, question=(
            f"Suppose it is day {day} (demand {r.demand[day]!r}, budget {r.budget[day]!r}), "
            f"yesterday's rated commands were {yesterday} and the battery stores {stored:.2f}. "
            f"If you dispatch {format_action(cmd, decimals=2)}, does supply meet demand with "
            f"that day's stability above {r.target_stability!r} and that day's thermal share "
            f"of supply below {r.target_carbon!r}? Answer with exactly one word: yes or no."),
            subject={"day": day, "demand": r.demand[day], "budget": r.budget[day],
                     "prev": prev, "stored": stored, "dispatch": cmd})

    def probe_answer(self, state: GridState, probe: Probe) -> str:
        """The option within the tolerance of the day's efficiency, or whether the dispatch
        meets the day's limits (both by stepping the rules)."""
        sub = probe.subject
        day = int(sub["day"])
        if not 0 <= day < self.rules.horizon:
            raise ValueError(f"probe day {day} is outside the horizon {self.rules.horizon}")
        if probe.kind == EFFICIENCY and probe.choices is not None:
            truth = self.efficiency(day, str(sub["source"]))
            near = [c for c, v in zip(probe.choices, sub["options"], strict=True)
                    if abs(float(v) - truth) <= EFF_TOLERANCE]
            if len(near) != 1:
                raise ValueError(f"efficiency probe with {len(near)} options in tolerance")
            return near[0]
        if probe.kind == DISPATCH_OK:
            rec = self.day_record(day, sub["stored"], sub["prev"], sub["dispatch"])
            return "yes" if self.dispatch_meets(rec) else "no"
        raise ValueError(f"not an energy probe: {probe.kind!r}")

    def probe_correct(self, probe: Probe, answer: str, reply: str) -> bool:
        return choice_correct(probe, answer, reply)
