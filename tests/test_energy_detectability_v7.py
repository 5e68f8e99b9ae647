"""Certified detectability of energy v7/v8's per-site shifts (issue 39): brute force over a
tiny two-site class, agreement with v3-v6 where the worlds coincide, and the released v8
Challenge (every shift certified, the heuristic never before its minimum)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

from arena_gen.cli import main
from arena_gen.core import registry
from arena_gen.core.episode import Episode
from arena_gen.core.task import Task
from arena_gen.envs.energy.detectability import DetectabilityLimit, certify, own_deviation
from arena_gen.envs.energy.detectability_v7 import (
    certify_sites,
    site_declarations,
    site_witness,
)
from arena_gen.envs.energy.sampler_v7 import rules_text
from tests.test_energy_detectability import (
    BOUND,
    DAYS,
    GRID,
    HI,
    LO,
    MIN_REGIME,
    PARAMS,
    unshifted_series,
    world,
)

ROOT = Path(__file__).resolve().parents[1]


def site_world(series: dict[str, list[float]], shifts: dict[str, int | None]
               ) -> dict[str, Any]:
    """A hand-made v7 world over the given site series, each site's regimes its own (the same
    base as :func:`tests.test_energy_detectability.world`'s, so the two can coincide)."""
    base = {"period": 2, "base": [0.7, 0.7]}
    return {"horizon": len(next(iter(series.values()))), "sites": list(series),
            "eff": {s: list(v) for s, v in series.items()},
            "regimes": {s: [{"day": 0, **base}, *([] if shifts[s] is None
                                                  else [{"day": shifts[s], **base}])]
                        for s in series},
            "eff_ranges": {"wind": [LO, HI], "solar": [LO, HI], "thermal": [0.95, 1.05]}}


def brute_site_minimum(series: list[float], shift: int) -> int:
    """The earliest day ``d`` at which no unshifted series of the tiny class (one regime, its
    shift placed on day ``d`` or later) equals the site's on days ``0 .. d-1``, every series
    enumerated."""
    for d in range(shift + 1, DAYS + 1):
        if d > DAYS - MIN_REGIME:
            return d
        seen = tuple(series[:d])
        if not any(u[:d] == seen for u in unshifted_series()):
            return d
    return DAYS + 1


def draw_shifted(gen: np.random.Generator, shift: int) -> list[float]:
    """An unshifted series of the class up to ``shift``, then any grid values."""
    series = unshifted_series()
    old = list(series[int(gen.integers(len(series)))])
    return old[:shift] + [float(GRID[int(gen.integers(len(GRID)))])
                          for _ in range(DAYS - shift)]


def test_brute_force_certifies_each_site_on_its_own() -> None:
    gen = np.random.Generator(np.random.PCG64(np.random.SeedSequence([39, 7])))
    delays, methods = set(), set()
    for _ in range(16):
        days = {"wind1": int(gen.integers(2, 5)), "solar1": int(gen.integers(2, 5))}
        series = {s: draw_shifted(gen, d) for s, d in days.items()}
        cert = certify_sites(site_world(series, days), PARAMS, bound=BOUND)
        for site, day in days.items():
            (c,) = cert[site]
            assert (c.site, c.day, c.start) == (site, day, 0)
            assert c.minimum == brute_site_minimum(series[site], day), (site, series, day)
            delays.add(c.delay)
            methods.add(c.method)
            # The witness of the day before d*: the same series, the shift on d* - 1, the
            # regime before it explaining every day before that within D.
            wit = site_witness(site_world(series, days), PARAMS, c)
            assert wit is not None and wit["eff"] == series
            assert wit["regimes"][site][1]["day"] == max(day, c.minimum - 1)
            first = wit["regimes"][site][0]
            assert own_deviation(series[site], first["base"], 0, c.minimum - 1, LO, HI) <= \
                BOUND + 1e-9
            # Independent: the other site unshifted and redrawn leaves this one's certificate.
            other = next(s for s in days if s != site)
            flat = {site: series[site], other: list(unshifted_series()[0])}
            (alone,) = certify_sites(site_world(flat, {site: day, other: None}), PARAMS,
                                     bound=BOUND)[site]
            assert alone == c
            assert certify_sites(site_world(flat, {site: day, other: None}), PARAMS,
                                 bound=BOUND)[other] == []
    assert methods == {"noise", "placement"} and len(delays) >= 2


def test_one_site_of_each_kind_shifting_together_agrees_with_v3_to_v6() -> None:
    # The same series, both sites shifting on one day: v3-v6's minimum is the earlier site's,
    # with the bound fixed and with each regime's own deviation.
    gen = np.random.Generator(np.random.PCG64(np.random.SeedSequence([39, 8])))
    for _ in range(16):
        shift = int(gen.integers(2, 5))
        wind, solar = draw_shifted(gen, shift), draw_shifted(gen, shift)
        sites = site_world({"wind1": wind, "solar1": solar}, {"wind1": shift, "solar1": shift})
        for bound in (BOUND, None):
            (old,) = certify(world(wind, solar, shift), PARAMS, bound=bound)
            cert = certify_sites(sites, PARAMS, bound=bound)
            (w,), (s,) = cert["wind1"], cert["solar1"]
            assert old.minimum == min(w.minimum, s.minimum), (wind, solar, shift, bound)
            assert old.bound == {"wind": w.bound["wind1"], "solar": s.bound["solar1"]}
            assert old.periods_alive == {"wind": w.periods_alive["wind1"],
                                         "solar": s.periods_alive["solar1"]}


def test_the_clock_is_bounded_and_names_the_site() -> None:
    days = {"wind1": 3, "solar1": None}
    w = site_world({"wind1": [0.7] * 3 + [0.8] * 3, "solar1": [0.7] * 6}, days)
    with pytest.raises(DetectabilityLimit, match="stopped after 0 s at wind1 shift 1"):
        certify_sites(w, PARAMS, seconds=0.0)


def released_v8() -> list[Task]:
    """The released paper-scale Challenge's energy tasks (v8), read from ``suites/``."""
    path = ROOT / "suites" / "challenge" / "energy.jsonl"
    tasks = [Task.from_dict(json.loads(line)) for line in path.read_text().splitlines()]
    assert {t.env_version for t in tasks} == {8}
    return tasks


def test_every_released_v8_shift_is_certified() -> None:
    total = 0
    for task in released_v8():
        assert registry.get("energy", 8).hidden_change is not None
        cert = certify_sites(task.world, task.params)
        assert list(cert) == task.world["sites"]
        for site, shifts in cert.items():
            assert [c.day for c in shifts] == task.params["site_shifts"][site]
            assert all(c.day < c.minimum <= task.world["horizon"] for c in shifts)
            assert all(c.method == "noise" for c in shifts)
            total += len(shifts)
    assert total == 353


def test_the_v8_heuristic_never_declares_a_site_shift_before_its_certified_minimum() -> None:
    # Each site's CUSUM: its first declaration after a shift of that site (up to the site's
    # next shift) comes on or after the shift's d*.
    detected = 0
    for task in released_v8():
        agent = registry.get("energy", task.env_version).load("heuristic")()
        said, _ = site_declarations(task, agent)
        for site, shifts in certify_sites(task.world, task.params).items():
            ends = [c.day for c in shifts[1:]] + [task.world["horizon"]]
            for c, end in zip(shifts, ends, strict=True):
                first = next((d for d in said[site] if c.day < d <= end), None)
                if first is not None:
                    assert first >= c.minimum, (task.id, site, c.day, first, c.minimum)
                    detected += 1
    assert detected == 353


def test_show_reveal_prints_each_site_shift() -> None:
    def show(*flags: str) -> str:
        result = CliRunner().invoke(main, ["show", "energy-challenge-7-0000", "--suite",
                                           str(ROOT / "suites" / "challenge"), *flags])
        assert result.exit_code == 0, result.output
        return result.output

    heading = "-- hidden change: certified minimum detection day --"
    tail = show("--reveal").split(heading)[1].strip().splitlines()
    assert tail[0] == ("wind1 shift 1 on day 99 (regime from day 0): a learner can know of it "
                       "on day 106 at the earliest (least delay 7 days, by noise; deviations "
                       "within 0.044)")
    assert sum(line.startswith(("wind", "solar")) and " shift " in line for line in tail) == 36
    assert heading not in show()


def test_the_site_witness_is_an_unshifted_world_the_planner_solves() -> None:
    # energy-challenge-7-0000's wind1 shifts on day 99, certain only on day 106: the witness
    # moves it to day 105, every series as it was, the regime begun on day 0 explaining days
    # 0-104 within the certified bound, and the with-rules planner still solves it.
    task = released_v8()[0]
    cert = certify_sites(task.world, task.params)["wind1"][0]
    assert (cert.day, cert.minimum) == (99, 106)
    w = site_witness(task.world, task.params, cert)
    assert w is not None and w["eff"] == task.world["eff"]
    later = [r["day"] for r in task.world["regimes"]["wind1"][2:]]
    assert later[0] >= 105 + task.params["min_regime"]  # the later shifts need not move
    assert [r["day"] for r in w["regimes"]["wind1"]] == [0, 105, *later]
    assert {s: r for s, r in w["regimes"].items() if s != "wind1"} == \
        {s: r for s, r in task.world["regimes"].items() if s != "wind1"}
    lo, hi = task.world["eff_ranges"]["wind"]
    first = w["regimes"]["wind1"][0]
    assert own_deviation(w["eff"]["wind1"], first["base"], 0, 105, lo, hi) <= \
        cert.bound["wind1"] + 1e-9
    other = dataclasses.replace(task, world=w, rules_text=rules_text(w))
    agent = registry.get("energy", task.env_version).load("planner")()
    episode = Episode(other, agent, mode="with-rules", attempt=0, run_seed=0)
    while not episode.over:
        episode.step(agent.act(episode.obs), 0.0)
    assert episode.env.success
