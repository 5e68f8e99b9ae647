"""Certified detectability of the per-site pattern shifts of energy v7 and v8 (issue 39): each
site's series is its own, so each (site, shift) gets v3-v6's minimum detection day on it.

What carries over (docs/induction.md, "Per-site shifts"): a site's efficiency series is drawn
from its own child stream, its regimes from its own shift days, and an agent reads each site's
actual output separately (the observation lists every site), so the no-shift hypothesis of a
site's k-th shift is :mod:`.detectability`'s, applied to that site's series alone: the regime
begun on the site's previous shift (or day 0) still in force up to ``d - 1``, some period of
the preset's range, a base in the kind's range, deviations within ``D``. ``D`` is per site and
regime (the largest deviation the site's own series drew from its base before the shift),
``bound=`` fixes it for every site. The placement argument is per site too: the site draws its
own count from ``shift_counts``, so it must still have ``shift_counts[0] - (k - 1)`` shifts of
``min_regime`` days each after ``d - 1``. What does not carry over: a v3-v6 shift is refuted
by wind or by solar, one day for both sources; a site's shift is refuted by that site alone
(other sites' shifts fall on their own days and explain nothing about it), so a v7 world has
one minimum per (site, shift), and a one-wind, one-solar world whose two sites shift on the
same days has v3-v6's minimum as the earlier of its two sites' (tests).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from arena_gen.core.episode import Episode
from arena_gen.envs.energy.detectability import (
    DetectabilityLimit,
    ShiftBound,
    clock_check,
    decide,
    no_shift_base,
    own_deviation,
    placement_day,
    remaining,
    source_refuted,
)
from arena_gen.envs.energy.rules_v7 import kind_of

__all__ = ["certify_sites", "reveal_lines", "site_declarations", "site_witness"]


def certify_sites(world: Mapping[str, Any], params: Mapping[str, Any], *,
                  bound: float | None = None, seconds: float = 60.0
                  ) -> dict[str, list[ShiftBound]]:
    """Per site (in the world's order), the certified minimum detection day of each of its
    shifts; ``bound`` fixes ``D``. Raises :class:`DetectabilityLimit` past ``seconds``."""
    clock = time.perf_counter()
    horizon = int(world["horizon"])
    periods = range(int(params["t_min"]), int(params["t_max"]) + 1)
    min_regime = int(params.get("min_regime") or 1)
    out: dict[str, list[ShiftBound]] = {}
    for site in world["sites"]:
        regs = world["regimes"][site]
        series = world["eff"][site]
        lo, hi = (float(x) for x in world["eff_ranges"][kind_of(site)])
        out[site] = []
        for k in range(1, len(regs)):
            start, day = int(regs[k - 1]["day"]), int(regs[k]["day"])
            dev = bound if bound is not None else own_deviation(
                series, regs[k - 1]["base"], start, day, lo, hi)
            alive, first = source_refuted(
                series, start, day, horizon, periods, lo, hi, dev,
                clock_check(clock, seconds, f"{site} shift {k} (day {day}),"))
            place = placement_day(horizon, remaining(params, k), min_regime)
            minimum, method = decide(day, horizon, [] if first is None else [first], place,
                                     alive == 0)
            out[site].append(ShiftBound(index=k, day=day, start=start, minimum=minimum,
                                        method=method, bound={site: dev},
                                        periods_alive={site: alive}, site=site))
    return out


def site_witness(world: Mapping[str, Any], params: Mapping[str, Any],
                 cert: ShiftBound) -> dict[str, Any] | None:
    """An unshifted world for the day before ``cert.minimum`` at ``cert.site`` (the world itself
    when that is the shift's day): every series and every other site as they are, the site's
    shift moved to ``minimum - 1`` (its later shifts as far as ``min_regime`` needs, re-tiled)
    and its regime before given a base explaining its days within the bound; None if none is."""
    site = str(cert.site)
    regs = [dict(r) for r in world["regimes"][site]]
    out = {**world, "regimes": {**world["regimes"], site: regs}}
    moved = cert.minimum - 1
    if moved <= cert.day:
        return out
    lo, hi = (float(x) for x in world["eff_ranges"][kind_of(site)])
    prev, true = regs[cert.index - 1], regs[cert.index - 1]["base"]
    for period in sorted(range(int(params["t_min"]), int(params["t_max"]) + 1),
                         key=lambda p: p != len(true)):
        base = no_shift_base(world["eff"][site], cert.start, moved, period, lo, hi,
                             cert.bound[site], [true[j % len(true)] for j in range(period)])
        if base is not None:
            prev["base"], prev["period"] = base, period
            break
    else:
        return None
    day, min_regime = moved, int(params.get("min_regime") or 1)
    for shift in regs[cert.index:]:
        day = max(int(shift["day"]), day)
        turn, base = day - int(shift["day"]), shift["base"]
        shift["base"] = [base[(i + turn) % len(base)] for i in range(len(base))]
        shift["day"] = day
        day += min_regime
    return out if day <= int(world["horizon"]) else None


def site_declarations(task: Any, agent: Any) -> tuple[dict[str, list[int]], int]:
    """Per site, the days on which a per-site change-point learner (``agent.models[site]``
    with a ``shifts`` list, as v7's ``heuristic``) declared that site's shift, playing ``task``
    as the ladder does (the day it was dispatching when the list grew), and the days played."""
    episode = Episode(task, agent, mode="inductive", attempt=0, run_seed=0)
    days: dict[str, list[int]] = {s: [] for s in task.world["sites"]}
    while not episode.over:
        seen = {s: len(agent.models[s].shifts) for s in days} if agent.models else {}
        day = int(episode.env.state.day)
        episode.step(agent.act(episode.obs), 0.0)
        for site in days:
            days[site].extend([day] * (len(agent.models[site].shifts) - seen.get(site, 0)))
    return days, int(episode.env.state.day)


def reveal_lines(task: Any) -> list[str]:
    """``show --reveal``'s lines: every site's shifts with their certified minimum detection
    days (none for a world without shifts; the stop message if certifying stops)."""
    try:
        cert = certify_sites(task.world, task.params)
    except DetectabilityLimit as exc:
        return [str(exc)]
    return [f"{c.site} shift {c.index} on day {c.day} (regime from day {c.start}): a learner "
            f"can know of it on day {c.minimum} at the earliest (least delay {c.delay} day"
            f"{'s' if c.delay > 1 else ''}, by {c.method}; deviations within "
            f"{c.bound[site]:.3f})" for site, shifts in cert.items() for c in shifts]
