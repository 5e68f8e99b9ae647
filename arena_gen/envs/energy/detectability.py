"""Certified detectability of energy's hidden pattern shifts (issue 39): the earliest day any
learner can know a shift happened, so a detector's delay is scored against a floor.

Definition (docs/induction.md, "Certified detectability of hidden change"). For the k-th shift
of a world, on day ``s``, with the previous regime begun on day ``r`` (the previous shift, or
day 0), the *no-shift hypothesis* at day ``d`` is that the regime begun on ``r`` is still in
force on every day up to ``d - 1``. A learner dispatching day ``d`` has seen days ``0 .. d-1``.
The minimum ``d*`` is the earliest ``d`` at which the no-shift hypothesis is refuted for a
learner that is given more than any agent has: every efficiency exactly (an agent rating wind
and solar at capacity reads them to about 1e-5 from the rendered outputs), ``r`` itself, and a
bound ``D`` on how far any day's efficiency lies from its regime's base pattern (default: the
largest such deviation the world itself drew on the regime's days before ``s``, so the world's
own past is an explanation). Under that hypothesis a source's efficiencies on days ``r .. d-1``
are ``clip(b[(t - r) mod P] + e_t, lo, hi)`` for some period ``P`` of the preset's range, some
base pattern ``b`` in ``[lo, hi]`` (segments and the random walk put no hard limit on a base
value) and deviations ``|e_t| <= D``; consistency is one interval per phase, intersected over
the days of that phase, and it is refuted when every period empties some phase, for wind or
for solar. The sampler's placement refutes it too: the shifts the world must still have (v5:
all of its count; v6: the least count of its range) need ``min_regime`` days each after
``d - 1``. ``d*`` is the first of the two, and never before ``s + 1``.

Every unshifted explanation used is a world the sampler can draw (its Gaussian noise reaches
any deviation), with the true world's series on every day, so dynamics, LP, ladder and
resistance are the true world's; a more ignorant learner can only detect later, so ``d*`` is a
lower bound on any learner's detection day. Rounding to 6 decimals is ignored (it only widens
what an unshifted world can show).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena_gen.core.episode import Episode
from arena_gen.envs.energy.game_v1 import RENEWABLES

__all__ = ["DetectabilityLimit", "ShiftBound", "certify", "clock_check", "decide",
           "declarations", "no_shift_base", "no_shift_refuted", "own_deviation", "placement_day",
           "regimes", "remaining", "reveal_lines", "source_refuted", "witness"]

#: Efficiencies are compared in millionths (the series' 6 decimals), so every test is exact.
SCALE = 1_000_000


class DetectabilityLimit(RuntimeError):
    """Raised when certifying a world exceeds its time bound (the message says where)."""


@dataclass(frozen=True)
class ShiftBound:
    """The certified minimum detection day of one shift, with how it was reached."""

    index: int
    day: int
    start: int
    minimum: int
    method: str
    bound: dict[str, float]
    periods_alive: dict[str, int]
    #: The site whose shift this is (v7 and later; None for v3-v6's world-wide shifts).
    site: str | None = None

    @property
    def delay(self) -> int:
        """The least detection delay in days (``minimum - day``, at least 1)."""
        return self.minimum - self.day

    def to_dict(self) -> dict[str, Any]:
        """A plain dict for reports."""
        return {"index": self.index, "day": self.day, "start": self.start,
                "minimum": self.minimum, "delay": self.delay, "method": self.method,
                "bound": dict(self.bound), "periods_alive": dict(self.periods_alive),
                **({"site": self.site} if self.site is not None else {})}


def _micro(value: float) -> int:
    return int(round(float(value) * SCALE))


def regimes(world: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The world's regimes in order: first day, periods and base patterns per renewable."""
    first = {"day": 0, **{f"{k}_{f}": world[f"{k}_{f}"] for k in RENEWABLES
                          for f in ("period", "base")}}
    later = list(world.get("shifts") or [])
    if world.get("shift"):
        later = [world["shift"]]
    return [first, *later]


def own_deviation(series: Sequence[float], base: Sequence[float], start: int, end: int,
                  lo: float, hi: float) -> float:
    """The least ``D`` explaining days ``start .. end-1`` by ``base`` tiled from ``start``:
    the largest ``|v - b|`` (a clipped day needs only ``b - D`` at or below ``lo``, or
    ``b + D`` at or above ``hi``)."""
    lo_u, hi_u, worst = _micro(lo), _micro(hi), 0
    period = len(base)
    for t in range(start, end):
        v, b = _micro(series[t]), _micro(base[(t - start) % period])
        if v <= lo_u:
            gap = b - lo_u
        elif v >= hi_u:
            gap = hi_u - b
        else:
            gap = abs(v - b)
        worst = max(worst, gap)
    return worst / SCALE


def _phases(series: Sequence[float], start: int, end: int, period: int, lo: float, hi: float,
            bound: float) -> tuple[list[int], list[int], int | None]:
    """Per phase, the interval (in millionths) of base values explaining days ``start ..
    end-1`` within ``bound``, stopped at the first day that empties one (returned, else None)."""
    lo_u, hi_u, dev = _micro(lo), _micro(hi), _micro(bound)
    low = [lo_u] * period
    high = [hi_u] * period
    for t in range(start, end):
        j = (t - start) % period
        v = _micro(series[t])
        if v > lo_u:  # not clipped low: b >= v - D
            low[j] = max(low[j], v - dev)
        if v < hi_u:  # not clipped high: b <= v + D
            high[j] = min(high[j], v + dev)
        if v <= lo_u:  # clipped low: b - D <= lo (an unclipped lo also obeys it)
            high[j] = min(high[j], lo_u + dev)
        if v >= hi_u:
            low[j] = max(low[j], hi_u - dev)
        if low[j] > high[j]:
            return low, high, t
    return low, high, None


def no_shift_refuted(series: Sequence[float], start: int, end: int, period: int, lo: float,
                     hi: float, bound: float) -> int | None:
    """The first day ``t`` in ``start .. end-1`` whose efficiency no regime of ``period`` begun
    on ``start`` (base in ``[lo, hi]``, deviations within ``bound``) explains together with the
    days before it; None if every day up to ``end - 1`` is explained."""
    return _phases(series, start, end, period, lo, hi, bound)[2]


def no_shift_base(series: Sequence[float], start: int, end: int, period: int, lo: float,
                  hi: float, bound: float, prefer: Sequence[float]) -> list[float] | None:
    """A base pattern of ``period`` explaining days ``start .. end-1`` within ``bound``: each
    phase's ``prefer`` value moved into its interval (None when no base does)."""
    low, high, refuted = _phases(series, start, end, period, lo, hi, bound)
    if refuted is not None:
        return None
    return [min(max(_micro(p), a), b) / SCALE for p, a, b in zip(prefer, low, high, strict=True)]


def placement_day(horizon: int, remaining: int, min_regime: int) -> int | None:
    """The first day at which ``remaining`` more shifts, regimes of ``min_regime`` days, can no
    longer all lie ahead (None when none need to)."""
    if remaining <= 0:
        return None
    return horizon - remaining * min_regime + 1


def remaining(params: Mapping[str, Any], index: int) -> int:
    """Shifts an unshifted world must still have at the ``index``-th (1-based) shift: v6 draws
    its count from ``shift_counts`` (the least counts), v5 has exactly ``shifts``."""
    counts = params.get("shift_counts")
    least = int(counts[0]) if counts else int(params.get("shifts") or 1)
    return max(0, least - (index - 1))


def source_refuted(series: Sequence[float], start: int, day: int, horizon: int,
                   periods: range, lo: float, hi: float, bound: float,
                   check: Callable[[int], None]) -> tuple[int, int | None]:
    """For one source's regime begun on ``start`` and shifted on ``day``: how many periods
    explain its own days, and the first day on which every such period is refuted (None when
    one never is); ``check(period)`` raises past the time bound."""
    last: int | None = -1
    alive = 0
    for period in periods:
        check(period)
        t = no_shift_refuted(series, start, horizon, period, lo, hi, bound)
        if t is not None and t < day:
            continue  # this period does not explain the regime's own days
        alive += 1
        last = None if t is None or last is None else max(last, t)
    return alive, None if alive == 0 or last is None else last + 1


def decide(day: int, horizon: int, refuted: Sequence[int], place: int | None,
           outside: bool) -> tuple[int, str]:
    """The minimum and its method from the noise refutations, the placement day and whether
    some source's own days fit no period."""
    firsts = [d for d in (*refuted, place) if d is not None]
    if outside:
        return day + 1, "outside"
    if not firsts:
        return horizon + 1, "never"
    method = "noise" if refuted and (place is None or min(refuted) <= place) else "placement"
    return max(day + 1, min(firsts)), method


def certify(world: Mapping[str, Any], params: Mapping[str, Any], *,
            bound: float | None = None, seconds: float = 60.0) -> list[ShiftBound]:
    """The certified minimum detection day of every shift of a v4-v6 energy world (none for a
    world without shifts); ``bound`` fixes ``D`` (default: the world's own, per source and
    regime). Raises :class:`DetectabilityLimit` past ``seconds``."""
    clock = time.perf_counter()
    horizon = int(world["horizon"])
    periods = range(int(params["t_min"]), int(params["t_max"]) + 1)
    min_regime = int(params.get("min_regime") or 1)
    regs = regimes(world)
    out = []
    for k in range(1, len(regs)):
        start, day = int(regs[k - 1]["day"]), int(regs[k]["day"])
        bounds, refuted, alive, outside = {}, [], {}, False
        for source in RENEWABLES:
            lo, hi = (float(x) for x in world["eff_ranges"][source])
            series = world[f"eff_{source}"]
            dev = bound if bound is not None else own_deviation(
                series, regs[k - 1][f"{source}_base"], start, day, lo, hi)
            bounds[source] = dev
            alive[source], first = source_refuted(
                series, start, day, horizon, periods, lo, hi, dev,
                clock_check(clock, seconds, f"shift {k} (day {day}), {source}"))
            outside = outside or alive[source] == 0
            if first is not None:
                refuted.append(first)
        place = placement_day(horizon, remaining(params, k), min_regime)
        minimum, method = decide(day, horizon, refuted, place, outside)
        out.append(ShiftBound(index=k, day=day, start=start, minimum=minimum, method=method,
                              bound=bounds, periods_alive=alive))
    return out


def clock_check(clock: float, seconds: float, where: str) -> Callable[[int], None]:
    """A check raising :class:`DetectabilityLimit` once ``seconds`` have passed since
    ``clock``, naming ``where`` and the period reached."""
    def check(period: int) -> None:
        if time.perf_counter() - clock > seconds:
            raise DetectabilityLimit(
                f"detectability stopped after {seconds:g} s at {where} period {period}; "
                f"raise seconds= to finish")
    return check


def witness(world: Mapping[str, Any], params: Mapping[str, Any],
            cert: ShiftBound) -> dict[str, Any] | None:
    """An unshifted world for the day before ``cert.minimum`` (the world itself when that is
    the shift's day): this world's series, the shift moved to ``minimum - 1`` (later shifts as
    far as ``min_regime`` needs, each base re-tiled from its new day) and the regime before it
    given a base explaining its days within ``cert.bound``; None if none is found."""
    moved = cert.minimum - 1
    out = {**world, "shifts": [dict(x) for x in world.get("shifts") or []]}
    if moved <= cert.day:
        return out
    if not out["shifts"]:
        return None
    t_min, t_max = int(params["t_min"]), int(params["t_max"])
    min_regime, horizon = int(params.get("min_regime") or 1), int(world["horizon"])
    shifts = out["shifts"]
    prev = out if cert.index == 1 else shifts[cert.index - 2]
    for source in RENEWABLES:
        lo, hi = (float(x) for x in world["eff_ranges"][source])
        true = prev[f"{source}_base"]
        for period in sorted(range(t_min, t_max + 1), key=lambda p: p != len(true)):
            base = no_shift_base(world[f"eff_{source}"], cert.start, moved, period, lo, hi,
                                 cert.bound[source], [true[j % len(true)] for j in range(period)])
            if base is not None:
                prev[f"{source}_base"], prev[f"{source}_period"] = base, period
                break
        else:
            return None
    day = moved
    for shift in shifts[cert.index - 1:]:
        day = max(int(shift["day"]), day)
        turn = day - int(shift["day"])
        for source in RENEWABLES:
            base = shift[f"{source}_base"]
            shift[f"{source}_base"] = [base[(i + turn) % len(base)] for i in range(len(base))]
        shift["day"] = day
        day += min_regime
    return out if day <= horizon else None


def declarations(task: Any, agent: Any) -> tuple[list[int], int]:
    """The days on which a change-point learner (an agent with a ``shifts`` list, as the v3-v6
    ``heuristic``) declared a shift, playing ``task`` as the ladder does (the day it was
    dispatching when its list grew: it had seen the days before), and the days it played."""
    episode = Episode(task, agent, mode="inductive", attempt=0, run_seed=0)
    days: list[int] = []
    while not episode.over:
        seen = len(agent.shifts)
        day = int(episode.env.state.day)
        episode.step(agent.act(episode.obs), 0.0)
        days.extend([day] * (len(agent.shifts) - seen))
    return days, int(episode.env.state.day)


def reveal_lines(task: Any) -> list[str]:
    """``show --reveal``'s lines: every shift of the task's world with its certified minimum
    detection day (none for a world without shifts; the stop message if certifying stops)."""
    try:
        cert = certify(task.world, task.params)
    except DetectabilityLimit as exc:
        return [str(exc)]
    return [f"shift {c.index} on day {c.day} (regime from day {c.start}): a learner can know "
            f"of it on day {c.minimum} at the earliest (least delay {c.delay} day"
            f"{'s' if c.delay > 1 else ''}, by {c.method}; deviations within "
            + ", ".join(f"{k} {v:.3f}" for k, v in c.bound.items()) + ")" for c in cert]
