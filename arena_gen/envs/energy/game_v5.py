"""Energy Dispatch v5: v4's game with probes whose answers no public fact of a question tells.

v1's drawing (shared by v1-v4) chose each question's dispatch near the limits and kept it when
its answer was the one wanted, so the answer followed the dispatch's public numbers: "yes when
the summed rated output is above the day's demand" scored 64 % against 50 % chance (issue 38).
v5 asks in matched pairs instead. Both questions of a pair name the same dispatch per unit of
demand (the same rated sum over demand, thermal share of rated and wind/solar split, the same
battery state and budget share) on two days drawn from the horizon, and exactly one meets the
limits: which one is decided by the two days' hidden efficiencies alone. Every public number of
a question is its partner's, or is drawn the same way for both (yesterday's commands, so the
ramp), or names its day (the day, its demand); the two days are drawn alike, so a rule on those
numbers scores chance unless it tells the days' efficiencies apart, which is knowledge of the
world.

``efficiency`` questions had a smaller tell of the same kind: the true value sat at a uniform
place among four evenly spaced options, so the option nearest the usual efficiency of its
source was right 30 % of the time against 25 % chance (the test's draw on Lite). v5 asks them
in sets: four days whose efficiencies of one renewable are at least a step apart, the four
values as every question's options, so each option is right for exactly one day of the set.

The rules, worlds, presets and calibration are v4's.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence

import numpy as np

from arena_gen.core.probes import Probe, balanced, letters
from arena_gen.envs.energy.game_v1 import (
    DISPATCH_ROBUST,
    EFF_OPTIONS,
    EFF_STEP,
    EFF_TOLERANCE,
    EFFICIENCY,
    GENERATORS,
    RENEWABLES,
    DayRecord,
    EnergyGame,
    GridState,
)

__all__ = ["EnergyGameV5", "Member"]

#: Candidate pairs tried per pair asked (each: another day, a thermal share, a split).
PAIR_TRIES = 48
#: Where a pair's thermal share of output (at the two days' mean efficiencies) is drawn,
#: around the carbon target (below it, demand decides; above it, the carbon limit does).
SHARE_BELOW, SHARE_ABOVE = 0.1, 0.03
#: The largest ramp drawn between a question's dispatch and its yesterday (kept only when the
#: day's stability, demand met, is still above the target).
RAMP_DRAWN = 80.0
#: An efficiency raise that makes any dispatch of these questions meet demand: the day's
#: stability with demand met, which is a function of the public numbers alone.
_MET = 10.0

#: One question of a pair: its day, dispatch and yesterday's commands.
Member = tuple[int, dict[str, float], dict[str, float]]


class EnergyGameV5(EnergyGame):
    """Energy Dispatch, version 5: :class:`~.game_v1.EnergyGame` with matched dispatch pairs.

    Description:
        As v1: each day set thermal, wind and solar rated outputs and a battery command under
        hidden efficiencies; reach the horizon with average stability and thermal share on
        the right side of their targets.
    Action Space:
        As v1: a JSON object ``{"thermal": x, "wind": x, "solar": x, "battery": x}``.
    Observation:
        As v1.
    Starting State:
        As v1: day 0, empty battery, the task's initial rated values as yesterday's.
    Rewards:
        As v1: 1.0 on the final day if the task succeeds, else 0.0.
    Episode End:
        As v1: the horizon, or a collapse (three consecutive violation days); truncated when
        the turn budget is spent.
    Information:
        As v1.
    Rubric:
        As v1: ``survived``, ``stable``, ``low_carbon``.
    Probes:
        ``efficiency``: a renewable's efficiency on a day, four values offered, exactly one
        within 0.05 (chance 25 %), asked in sets: four days of the horizon (taken in a drawn
        order, each kept when its value is at least 0.12 from those kept before) whose four
        values are the options of every question of the set, in one drawn letter order, so
        each option is right once; a set not needing all four asks a drawn part of it, and
        a renewable with no four such days gives v1's question about the probe day.
        ``dispatch_ok``: the question of v1 (does the named dispatch, from the named
        yesterday and stored energy, meet demand with the day's stability above its target
        and its thermal share below the carbon target?), asked in pairs. A pair names one
        dispatch per unit of demand, scaled by each of its two days' demand: two days of the
        horizon drawn from the task's probe stream (not the probe day: its efficiencies are
        fixed per state, so it would be a day a guesser can single out). It is built at the two
        days' mean efficiencies (a thermal share of output drawn around the carbon target, a
        wind/solar split drawn uniformly), so one day's output is as far above the limit as
        the other's is below it. Yesterday's commands are the dispatch moved by a drawn ramp
        of at most 80 (never the state's own, which would tell how the agent dispatched).
        A pair is asked only when its answers differ and each holds with every efficiency of
        its day moved by up to 0.03 in any direction (all eight corners: every one meets the
        limits, or every one misses demand, or every one is over the carbon target), and
        both days' stability with demand met (ramp and budget: public numbers) is above the
        target, so only efficiencies decide. ``yes``/``no``, half each (chance 50 %); a pair
        not found in 48 tries becomes two efficiency questions. Answers step the game's own
        rules on a copy.
    Arguments:
        ``task``: an energy task (a v4 world plays the same).
    Version History:
        v5: (released 2026-12-07) v4's game, worlds, presets and calibration; ``dispatch_ok``
        questions in matched pairs over two drawn days and ``efficiency`` questions in sets of four
        drawn days sharing their options (issue 38: v4's drawing let "yes when the rated sum is
        above demand" score 64 % against 50 % chance, a fitted logistic regression 74 %, and the
        option nearest a source's usual efficiency 30 % against 25 %).
    """

    def probes(self, state: GridState, visited: Sequence[GridState], rng: np.random.Generator,
               count: int) -> list[Probe]:
        """``count`` questions: half dispatch (matched pairs, one ``yes`` and one ``no``; a
        pair not found becomes two efficiency questions), the rest efficiency, each kind's
        answers balanced, in a drawn order."""
        dispatch: list[Member] = []
        for _ in range(count // 4):
            dispatch += self._pair(state, rng) or []
        made: list[Probe] = []
        while len(made) < count - len(dispatch):
            size = min(EFF_OPTIONS, count - len(dispatch) - len(made))
            made += self._efficiency_set(size, rng, self.question_days(state)) or [
                self._efficiency_probe(state, slot, rng)
                for slot in balanced(rng, size, letters(EFF_OPTIONS))]
        made += [self._dispatch_probe(_on(state, day), cmd, prev) for day, cmd, prev in dispatch]
        order = rng.permutation(len(made))
        return [dataclasses.replace(made[int(j)], id=f"q{i}") for i, j in enumerate(order)]

    def question_days(self, state: GridState) -> range:
        """The days questions are drawn from: the whole horizon (v6 narrows it)."""
        return range(self.rules.horizon)

    def _efficiency_set(self, size: int, rng: np.random.Generator, days_from: range
                        ) -> list[Probe] | None:
        """``size`` efficiency questions sharing one set of options: a renewable's
        efficiencies on four days at least ``EFF_STEP`` apart (days taken in a drawn order,
        each kept when it is that far from those kept before), ``size`` of them asked, drawn;
        None when neither renewable has four such days."""
        for s in rng.permutation(len(RENEWABLES)):
            source = RENEWABLES[int(s)]
            days: list[int] = []
            values: list[float] = []
            for day in (days_from[int(i)] for i in rng.permutation(len(days_from))):
                value = round(self.efficiency(day, source), 2) + 0.0
                if all(round(abs(value - v), 2) >= EFF_STEP for v in values):
                    days.append(day)
                    values.append(value)
                    if len(days) == EFF_OPTIONS:
                        break
            if len(days) < EFF_OPTIONS:
                continue
            options = [values[int(j)] for j in rng.permutation(EFF_OPTIONS)]
            labels = letters(EFF_OPTIONS)
            shown = " ".join(f"{lab}) {v:.2f}." for lab, v in zip(labels, options, strict=True))
            return [Probe(id="", kind=EFFICIENCY, choices=labels, question=(
                f"What is {source}'s efficiency (actual output / rated output) on day "
                f"{days[int(j)]}, within {EFF_TOLERANCE:g}? {shown} Answer with exactly one "
                f"letter: A, B, C or D."),
                subject={"day": days[int(j)], "source": source, "options": options})
                for j in rng.permutation(EFF_OPTIONS)[:size]]
        return None

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
            # the second is settled only when the first is (it draws nothing)
            first_settled = self._settled(members[0][0], stored, members[0][2], members[0][1])
            if first_settled is None:
                continue
            settled = [first_settled, self._settled(members[1][0], stored, members[1][2],
                                                    members[1][1])]
            if sorted(map(str, settled)) == ["no", "yes"]:
                yes = settled.index("yes")
                return [members[yes], members[1 - yes]]
        return None

    def _unit(self, first: int, other: int, rng: np.random.Generator) -> dict[str, float]:
        """Rated output per unit of demand whose supply at the two days' mean efficiencies is
        the demand, with a drawn thermal share of it and a drawn wind/solar split (a function
        of the two days taken together: swapping them changes nothing)."""
        target = self.rules.target_carbon
        mean = {k: (self.efficiency(first, k) + self.efficiency(other, k)) / 2
                for k in GENERATORS}
        share = float(rng.uniform(target - SHARE_BELOW, target + SHARE_ABOVE))
        wind = float(rng.uniform(0.0, 1.0))
        return {"thermal": share / mean["thermal"],
                "wind": (1 - share) * wind / mean["wind"],
                "solar": (1 - share) * (1 - wind) / mean["solar"]}

    def _member(self, day: int, stored: float, unit: dict[str, float],
                rng: np.random.Generator) -> Member | None:
        """``unit`` scaled by ``day``'s demand (2 decimals, no battery) and a yesterday a drawn
        ramp away, or None when it exceeds a capacity or the day's stability with demand met
        is not above the target."""
        r = self.rules
        cmd = {k: round(r.demand[day] * unit[k], 2) + 0.0 for k in GENERATORS}
        if any(cmd[k] > r.capacity[k] for k in GENERATORS):
            return None
        cmd["battery"] = 0.0
        moves = rng.dirichlet(np.ones(len(GENERATORS))) * float(rng.uniform(0.0, RAMP_DRAWN))
        signs = rng.integers(2, size=len(GENERATORS))
        prev = {k: round(max(0.0, cmd[k] + float(m) * (1 if s else -1)), 2) + 0.0
                for k, m, s in zip(GENERATORS, moves, signs, strict=True)}
        prev["battery"] = 0.0
        met = self.day_record(day, stored, prev, cmd, {k: _MET for k in GENERATORS})
        if met.demand_violated or met.budget_violated or not (
                met.stability > r.target_stability):
            return None
        return day, cmd, prev

    def _settled(self, day: int, stored: float, prev: dict[str, float],
                 cmd: dict[str, float]) -> str | None:
        """``yes`` when every corner of the day's efficiencies moved by up to
        ``DISPATCH_ROBUST`` meets the limits; ``no`` when every corner misses demand, or
        every corner is at or over the carbon target (each a half-space of efficiencies, so
        the whole box then misses); else None."""
        d = DISPATCH_ROBUST
        # The corners in turn, until none of the three "every corner" verdicts can hold (a
        # corner that meets the limits rules out both "no"s): the verdict of all eight.
        meets = misses = over = True
        for move in itertools.product((-d, d), repeat=len(GENERATORS)):
            rec = self.day_record(day, stored, prev, cmd, dict(zip(GENERATORS, move,
                                                                   strict=True)))
            meets = meets and self.dispatch_meets(rec)
            misses = misses and rec.demand_violated
            over = over and not self._low_carbon(rec)
            if not (meets or misses or over):
                return None
        if meets:
            return "yes"
        return "no"

    def _low_carbon(self, rec: DayRecord) -> bool:
        """The day's thermal share of supply below the carbon target (as ``dispatch_meets``)."""
        return rec.actual["thermal"] / rec.supply < self.rules.target_carbon


def _on(state: GridState, day: int) -> GridState:
    """``state`` on ``day`` (what v1's question reads of it: the day and the stored energy)."""
    at = state.copy()
    at.day = day
    return at
