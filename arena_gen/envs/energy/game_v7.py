"""Energy Dispatch v7 (a preview): several wind and solar sites, each with its own regimes.

The day, judge and rubric are v1's over :class:`~.rules_v7.SiteRules`; the action names every
site; the observation reports yesterday per site. The questions are v6's, asked per site about
the regime in force: ``efficiency`` sets of four days of one site's regime in force on the probe
day; ``dispatch_ok`` matched pairs on two days of the regime in force at every site (from the
latest shift of any site on or before the probe day to the day before the next shift of any).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from arena_gen.core.game import ActionError, Game, TaskLike
from arena_gen.core.probes import Probe, balanced, letters
from arena_gen.envs.energy.game_v1 import (
    _BROKE,
    DISPATCH_OK,
    DISPATCH_ROBUST,
    EFF_OPTIONS,
    EFF_STEP,
    EFF_TOLERANCE,
    EFFICIENCY,
    YES_NO,
    DayRecord,
    EnergyGame,
    GridState,
)
from arena_gen.envs.energy.game_v5 import PAIR_TRIES, RAMP_DRAWN, SHARE_ABOVE, SHARE_BELOW
from arena_gen.envs.energy.rules_v7 import SiteRules, format_action, parse_action

__all__ = ["EnergyGameV7", "site_starts"]

#: An efficiency raise that makes any question's dispatch meet demand (v5's).
_MET = 10.0

#: One question of a pair: its day, dispatch and yesterday's commands.
Member = tuple[int, dict[str, float], dict[str, float]]


def site_starts(world: Mapping[str, Any]) -> dict[str, list[int]]:
    """Per site, the first day of each of its regimes, in order (0 first)."""
    return {s: [int(r["day"]) for r in world["regimes"][s]] for s in world["sites"]}


def _regime(starts: Sequence[int], day: int, horizon: int) -> tuple[int, int]:
    """The regime ``[start, end)`` among ``starts`` (sorted, 0 first) that holds ``day``."""
    ends = [*starts[1:], horizon]
    return next((s, e) for s, e in zip(starts, ends, strict=True) if day < e)


class EnergyGameV7(EnergyGame):
    """Energy Dispatch, version 7: more sources, each site with its own hidden regimes.

    Description:
        Each day set thermal, every wind and solar site and a battery command under hidden
        efficiencies; reach the horizon with average stability and thermal share on the right
        side of their targets. Each site (2-3 wind, 2-3 solar at Challenge) has its own
        periodic pattern and its own shifts.
    Action Space:
        A JSON object naming ``thermal``, every site (``wind1``, ``solar2``, ...) and
        ``battery``; missing keys are 0; clamps as v1. Malformed JSON, a non-object, an
        unknown key (``wind`` of v1-v6 included), or a non-numeric / non-finite / boolean value
        is invalid: a one-line reason naming the allowed keys, the day does not advance, one
        turn spent.
    Observation:
        v1's lines with yesterday's rated and actual output of every site.
    Starting State:
        As v1: day 0, empty battery, the task's initial rated values as yesterday's.
    Rewards:
        As v1: 1.0 on the final day if the task succeeds, else 0.0.
    Episode End:
        As v1: the horizon, or a collapse (three consecutive violation days); truncated when
        the turn budget is spent.
    Information:
        As v1 (``last_day`` keyed by every source).
    Rubric:
        As v1: ``survived``, ``stable``, ``low_carbon``.
    Probes:
        ``efficiency``: one site's efficiency on a day of that site's regime in force, in sets
        of four days whose values are at least 0.12 apart and are every question's options
        (chance 25 %). ``dispatch_ok``: v5's matched pairs (one ``yes``, one ``no``; chance
        50 %) on two days of the regime in force at every site, the renewable share split over
        the sites by a drawn Dirichlet. Answers step the rules on a copy.
    Arguments:
        ``task``: an energy v7 task (a world with ``sites``).
    Version History:
        v7: (a preview, issue 42) more sources: several wind and solar sites, each with its
        own hidden pattern and shifts; questions per site about the regime in force.
    """

    def __init__(self, task: TaskLike) -> None:
        Game.__init__(self, task)
        self.rules: SiteRules = SiteRules(task.world)  # type: ignore[assignment]
        self.sites = self.rules.sites
        self._starts = site_starts(task.world)

    def parse(self, text: str) -> dict[str, float]:
        try:
            return parse_action(text, self.sites)
        except ValueError as exc:
            raise ActionError(str(exc)) from None

    def render(self, state: GridState) -> str:
        r = self.rules
        day = state.day
        lines = [f"=== Day {min(day, r.horizon)} of {r.horizon} ===",
                 f"Status: stability {state.stability:.6f} (target > {r.target_stability:.6f})"
                 f" | thermal share {state.thermal_share:.6f} (target < {r.target_carbon:.6f})"
                 f" | battery stored {state.stored:.2f} / {r.capacity['battery']:.0f}"]
        rec = state.last
        if rec is None:
            lines.append("Yesterday: first day, no history.")
        else:
            flow = rec.actual["battery"]
            charge = "discharged" if flow >= 0 else "charged"
            rated = ", ".join(f"{k} {rec.rated[k]:.2f}" for k in r.generators)
            actual = ", ".join(f"{k} {rec.actual[k]:.2f}" for k in r.generators)
            lines += [f"Yesterday (day {rec.day}): rated {rated}, battery command "
                      f"{rec.rated['battery']:.2f}",
                      f"  actual {actual}; battery {charge} {abs(flow):.2f}",
                      f"  supply {rec.supply:.2f} vs demand {rec.demand:.2f}; cost "
                      f"{rec.cost:.2f} vs budget {rec.budget:.2f}; ramp {rec.ramp:.2f}; day "
                      f"stability {rec.stability:.4f}; "
                      f"{_BROKE[not rec.demand_violated, not rec.budget_violated]}; "
                      f"consecutive violation days {state.streak}"]
        if r.over(state):
            lines.append("The episode is over.")
        else:
            lines.append(f"Today (day {day}): demand {r.demand[day]:.2f}, budget "
                         f"{r.budget[day]:.2f}")
        return "\n".join(lines)

    @staticmethod
    def random_action(public: dict[str, Any], rng: np.random.Generator) -> str:
        cap, sites = public["capacity"], list(public["sites"])
        cmd = {k: float(rng.uniform(0.0, float(cap[k]))) for k in ("thermal", *sites)}
        cmd["battery"] = float(rng.uniform(-float(cap["battery"]), float(cap["battery"])))
        return format_action(cmd, sites, decimals=1)

    # -- world-model probes -------------------------------------------------------------------

    def efficiency(self, day: int, source: str) -> float:
        """``source``'s efficiency on ``day``, read by stepping a fresh day with one unit of it
        rated and nothing else."""
        cmd = dict.fromkeys(self.rules.sources, 0.0)
        cmd[source] = 1.0
        return self.rules.step(GridState(day=day, stored=0.0, prev=dict(cmd)), cmd).actual[source]

    def day_record(self, day: int, stored: float, prev: Mapping[str, float],
                   cmd: Mapping[str, float], shift: Mapping[str, float] | None = None
                   ) -> DayRecord:
        """The record of dispatching ``cmd`` on ``day`` from ``stored`` and ``prev`` (the
        rules' own step on a fresh state; ``shift`` moves the day's efficiencies)."""
        eff = self.rules.efficiencies(day)
        if shift:
            eff = {k: v + float(shift.get(k, 0.0)) for k, v in eff.items()}
        state = GridState(day=day, stored=float(stored),
                          prev={k: float(prev[k]) for k in self.rules.sources})
        return self.rules.step(state, dict(cmd), eff)

    def site_days(self, state: GridState, site: str) -> range:
        """The days of ``site``'s regime in force on the probe day."""
        return range(*_regime(self._starts[site], self.probe_day(state), self.rules.horizon))

    def question_days(self, state: GridState) -> range:
        """The days of the regime in force at every site on the probe day."""
        spans = [self.site_days(state, s) for s in self.sites]
        return range(max(s.start for s in spans), min(s.stop for s in spans))

    def probes(self, state: GridState, visited: Sequence[GridState], rng: np.random.Generator,
               count: int) -> list[Probe]:
        """``count`` questions: half dispatch (matched pairs; a pair not found becomes two
        efficiency questions), the rest efficiency sets, in a drawn order."""
        dispatch: list[Member] = []
        for _ in range(count // 4):
            dispatch += self._pair(state, rng) or []
        made: list[Probe] = []
        while len(made) < count - len(dispatch):
            size = min(EFF_OPTIONS, count - len(dispatch) - len(made))
            made += self._efficiency_set(state, size, rng) or [
                self._single(state, slot, rng)
                for slot in balanced(rng, size, letters(EFF_OPTIONS))]
        made += [self._dispatch(day, state, cmd, prev) for day, cmd, prev in dispatch]
        order = rng.permutation(len(made))
        return [dataclasses.replace(made[int(j)], id=f"q{i}") for i, j in enumerate(order)]

    def _question(self, site: str, day: int, options: Sequence[float]) -> Probe:
        labels = letters(EFF_OPTIONS)
        shown = " ".join(f"{lab}) {v:.2f}." for lab, v in zip(labels, options, strict=True))
        return Probe(id="", kind=EFFICIENCY, choices=labels, question=(
            f"What is site {site}'s efficiency (actual output / rated output) on day {day}, "
            f"within {EFF_TOLERANCE:g}? {shown} Answer with exactly one letter: A, B, C or D."),
            subject={"day": day, "source": site, "options": list(options)})

    def _efficiency_set(self, state: GridState, size: int, rng: np.random.Generator
                        ) -> list[Probe] | None:
        """``size`` questions sharing one set of options: four days of a site's regime in
        force whose efficiencies are at least a step apart (sites and days in drawn orders),
        or None when no site has four such days."""
        for s in rng.permutation(len(self.sites)):
            site = self.sites[int(s)]
            span = self.site_days(state, site)
            days: list[int] = []
            values: list[float] = []
            for day in (span[int(i)] for i in rng.permutation(len(span))):
                value = round(self.efficiency(day, site), 2) + 0.0
                if all(round(abs(value - v), 2) >= EFF_STEP for v in values):
                    days.append(day)
                    values.append(value)
                    if len(days) == EFF_OPTIONS:
                        break
            if len(days) < EFF_OPTIONS:
                continue
            options = [values[int(j)] for j in rng.permutation(EFF_OPTIONS)]
            return [self._question(site, days[int(j)], options)
                    for j in rng.permutation(EFF_OPTIONS)[:size]]
        return None

    def _single(self, state: GridState, slot: str, rng: np.random.Generator) -> Probe:
        """v1's question about the probe day for a drawn site, the truth at letter ``slot``."""
        day = self.probe_day(state)
        site = self.sites[int(rng.integers(len(self.sites)))]
        truth = round(self.efficiency(day, site), 2)
        at = letters(EFF_OPTIONS).index(slot)
        return self._question(site, day, [round(truth + (j - at) * EFF_STEP, 2)
                                          for j in range(EFF_OPTIONS)])

    def _pair(self, state: GridState, rng: np.random.Generator) -> list[Member] | None:
        """Two questions with opposite settled answers (``yes`` first), or None."""
        days = self.question_days(state)
        stored = round(float(state.stored), 2) + 0.0
        for _ in range(PAIR_TRIES if len(days) >= 2 else 0):
            first, other = (days[int(i)] for i in rng.choice(len(days), size=2, replace=False))
            unit = self._unit(first, other, rng)
            drawn = [self._member(day, stored, unit, rng) for day in (first, other)]
            members = [m for m in drawn if m is not None]
            if len(members) < 2:
                continue
            settled = [self._settled(day, stored, prev, cmd) for day, cmd, prev in members]
            if sorted(map(str, settled)) == ["no", "yes"]:
                yes = settled.index("yes")
                return [members[yes], members[1 - yes]]
        return None

    def _unit(self, first: int, other: int, rng: np.random.Generator) -> dict[str, float]:
        """Rated output per unit of demand supplying the demand at the two days' mean
        efficiencies: a drawn thermal share, the rest split over the sites by a Dirichlet."""
        mean = {k: (self.efficiency(first, k) + self.efficiency(other, k)) / 2
                for k in self.rules.generators}
        target = self.rules.target_carbon
        share = float(rng.uniform(target - SHARE_BELOW, target + SHARE_ABOVE))
        split = rng.dirichlet(np.ones(len(self.sites)))
        return {"thermal": share / mean["thermal"],
                **{s: (1 - share) * float(w) / mean[s]
                   for s, w in zip(self.sites, split, strict=True)}}

    def _member(self, day: int, stored: float, unit: dict[str, float],
                rng: np.random.Generator) -> Member | None:
        """``unit`` scaled by ``day``'s demand (no battery) and a yesterday a drawn ramp away,
        or None when it exceeds a capacity or the day's stability with demand met is not above
        the target."""
        r = self.rules
        cmd = {k: round(r.demand[day] * unit[k], 2) + 0.0 for k in r.generators}
        if any(cmd[k] > r.capacity[k] for k in r.generators):
            return None
        cmd["battery"] = 0.0
        moves = rng.dirichlet(np.ones(len(r.generators))) * float(rng.uniform(0.0, RAMP_DRAWN))
        signs = rng.integers(2, size=len(r.generators))
        prev = {k: round(max(0.0, cmd[k] + float(m) * (1 if s else -1)), 2) + 0.0
                for k, m, s in zip(r.generators, moves, signs, strict=True)}
        prev["battery"] = 0.0
        met = self.day_record(day, stored, prev, cmd, dict.fromkeys(r.generators, _MET))
        if met.demand_violated or met.budget_violated or not (
                met.stability > r.target_stability):
            return None
        return day, cmd, prev

    def _corner(self, thermal: float, renewable: float) -> dict[str, float]:
        return {"thermal": thermal, **dict.fromkeys(self.sites, renewable)}

    def _settled(self, day: int, stored: float, prev: dict[str, float],
                 cmd: dict[str, float]) -> str | None:
        """``yes`` when every efficiency moved by up to ``DISPATCH_ROBUST`` meets the limits,
        ``no`` when every such move misses demand or every one is at or over the carbon target,
        else None. Supply rises with every efficiency and the thermal share rises with thermal's
        and falls with the sites' (the battery is idle), so the four corners of (thermal, all
        sites together) moved by -/+ the bound decide the whole box."""
        d = DISPATCH_ROBUST
        rec = {(a, b): self.day_record(day, stored, prev, cmd, self._corner(a, b))
               for a in (-d, d) for b in (-d, d)}
        if all(self.dispatch_meets(x) for x in rec.values()):
            return "yes"
        if rec[d, d].demand_violated or not self._low_carbon(rec[-d, d]):
            return "no"
        return None

    def _low_carbon(self, rec: DayRecord) -> bool:
        return rec.actual["thermal"] / rec.supply < self.rules.target_carbon

    def _dispatch(self, day: int, state: GridState, cmd: dict[str, float],
                  prev: dict[str, float]) -> Probe:
        stored = round(float(state.stored), 2) + 0.0
        r = self.rules
        yesterday = ", ".join(f"{k} {prev[k]:.2f}" for k in r.sources)
        return Probe(id="", kind=DISPATCH_OK, choices=YES_NO, question=(
            f"Suppose it is day {day} (demand {r.demand[day]!r}, budget {r.budget[day]!r}), "
            f"yesterday's rated commands were {yesterday} and the battery stores {stored:.2f}. "
            f"If you dispatch {format_action(cmd, self.sites, decimals=2)}, does supply meet "
            f"demand with that day's stability above {r.target_stability!r} and that day's "
            f"thermal share of supply below {r.target_carbon!r}? Answer with exactly one word: "
            f"yes or no."),
            subject={"day": day, "demand": r.demand[day], "budget": r.budget[day],
                     "prev": prev, "stored": stored, "dispatch": cmd})
