"""Energy v6 (a preview, issue 42 with issue 38's energy tail): registration, Lite = v5's
worlds, the paper-scale Challenge's worlds (hypothesis on the sampler's invariants), questions
about the regime in force only (exact on small cases, answered as the text env does), the
verifier's witness replayed by the v6 game, v5's probes unchanged (a pinned digest)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_probes_envs import _energy_by_env, released

from arena_gen.core import registry
from arena_gen.core.game import WorldView
from arena_gen.core.presets import PresetError
from arena_gen.core.probes import draw, milestone_turns
from arena_gen.core.seeds import child, rng
from arena_gen.core.task import Draft, Task
from arena_gen.envs.energy import V5
from arena_gen.envs.energy.game_v1 import DISPATCH_OK, EFFICIENCY
from arena_gen.envs.energy.game_v5 import EnergyGameV5
from arena_gen.envs.energy.game_v6 import EnergyGameV6, regime_starts
from arena_gen.envs.energy.sampler_v3 import PRESETS as PRESETS_V3
from arena_gen.envs.energy.sampler_v3 import sample as sample_v3
from arena_gen.envs.energy.sampler_v6 import COUNT_CHILD, PRESETS, EnergyPresetV6, sample
from arena_gen.suite.build import build_suite

ROOT = Path(__file__).resolve().parents[1]
#: sha256 of v5's probes at every milestone of the first three released Lite and Challenge
#: energy tasks (attempt 0), recorded with v5 as released (before v6's day hook).
V5_PROBES = "2ba7957094a15ef40c01b8ddf481fcaa70e4d24a0534580d0eb268077076b76d"


def seq(*path: int) -> np.random.SeedSequence:
    return np.random.SeedSequence([7, 1, 3, *path])


@cache
def challenge(index: int) -> tuple[Draft, tuple[str, ...]]:
    """A v6 Challenge draft (the first accepted candidate of its stream) and its witness."""
    spec = registry.get("energy", 6)
    verify = spec.load("verifier")
    for attempt in range(20):
        draft = sample(PRESETS["challenge"], seq(index, attempt))
        cert = verify(draft)
        if spec.acceptance()(draft, cert) is None:
            return draft, tuple(cert.witness)
    raise AssertionError("no accepted candidate")


def as_task(draft: Draft) -> Task:
    """A released Lite task carrying ``draft``'s world, labelled version 6 (for the text env)."""
    return dataclasses.replace(released("energy", "lite")[0], env_version=6, world=draft.world,
                               public=draft.public, budget=draft.budget, params=draft.params)


def test_v6_is_a_preview_of_v5s_game_with_its_own_worlds() -> None:
    spec = registry.get("energy", 6)
    assert spec.preview and registry.get("energy").version == 5
    same = {f.name for f in dataclasses.fields(spec)} - {
        "version", "game", "sampler", "presets", "accept", "calibration", "levels",
        "build_seconds", "preview"}
    assert all(getattr(spec, name) == getattr(V5, name) for name in same)
    assert spec.load("calibration") == V5.load("calibration")


@pytest.mark.parametrize("index", range(4))
def test_lite_draws_v5s_worlds(index: int) -> None:
    for attempt in range(2):
        v6 = sample(PRESETS["lite"], seq(index, attempt))
        v5 = sample_v3(PRESETS_V3["lite"], seq(index, attempt))
        assert dataclasses.asdict(v6) == dataclasses.asdict(v5)


def test_challenge_is_paper_scale() -> None:
    preset = PRESETS["challenge"]
    assert preset.horizon == 1000 and preset.count == 10 and preset.shift_counts == (4, 7)
    assert preset.min_regime == 120
    draft = sample(preset, seq(0, 0))
    assert draft.budget == 1100 and len(draft.world["eff_wind"]) == 1000
    count = int(rng(child(seq(0, 0), COUNT_CHILD)).integers(4, 8))
    assert len(draft.world["shifts"]) == count == len(draft.params["shift_days"])
    with pytest.raises(PresetError, match="exceed the horizon"):
        preset.replace(shift_counts=(4, 8))
    with pytest.raises(PresetError, match="lo > hi"):
        preset.replace(shift_counts=(5, 4))


@settings(max_examples=40, deadline=None)
@given(lo=st.integers(1, 4), extra=st.integers(0, 3), min_regime=st.integers(8, 20),
       spare=st.integers(0, 60), seed=st.integers(0, 2**32 - 1))
def test_sampler_invariants(lo: int, extra: int, min_regime: int, spare: int,
                            seed: int) -> None:
    hi = lo + extra
    horizon = (hi + 1) * min_regime + spare
    preset = PRESETS["challenge"].replace(horizon=horizon, shift_counts=(lo, hi),
                                          shifts=lo, min_regime=min_regime, t_min=4, t_max=9)
    draft = sample(preset, np.random.SeedSequence([seed, 5]))
    world = draft.world
    days = [s["day"] for s in world["shifts"]]
    assert lo <= len(days) <= hi and days == draft.params["shift_days"]
    starts = regime_starts(world)
    assert starts == [0, *days]
    lengths = np.diff([*starts, horizon])
    assert lengths.min() >= min_regime, lengths
    for k in ("wind", "solar"):
        lo_e, hi_e = world["eff_ranges"][k]
        series = np.array(world[f"eff_{k}"])
        assert len(series) == horizon and lo_e <= series.min() and series.max() <= hi_e
        periods = [world[f"{k}_period"], *(s[f"{k}_period"] for s in world["shifts"])]
        assert all(4 <= p <= 9 for p in periods)
    assert "shift" not in draft.public["intro"]
    for day in days:
        assert f"On day {day} the patterns shift" in draft.rules_text
    assert sample(preset, np.random.SeedSequence([seed, 5])) == draft


def small_world(horizon: int, shifts: list[int]) -> dict[str, Any]:
    """A tiny world (flat efficiencies) whose patterns shift on ``shifts``."""
    return {"horizon": horizon, "demand": [100.0] * horizon, "budget": [420.0] * horizon,
            "eff_thermal": [1.0] * horizon, "eff_wind": [0.8] * horizon,
            "eff_solar": [0.9] * horizon, "capacity": {"thermal": 600.0, "wind": 350.0,
                                                       "solar": 250.0, "battery": 80.0},
            "prices": {"thermal": 3.0, "wind": 5.0, "solar": 6.0, "battery": 0.1},
            "initial_rated": {"thermal": 60.0, "wind": 30.0, "solar": 20.0},
            "target_stability": 0.96, "target_carbon": 0.7,
            "shift": None, "shifts": [{"day": d} for d in shifts]}


def test_question_days_are_the_regime_in_force() -> None:
    game = EnergyGameV6(WorldView(small_world(12, [5, 9])))
    state = game.initial()
    expected = {0: range(0, 5), 4: range(0, 5), 5: range(5, 9), 8: range(5, 9),
                9: range(9, 12), 11: range(9, 12), 12: range(9, 12)}  # 12: over, the last day
    for day, days in expected.items():
        state.day = day
        assert game.question_days(state) == days, day
    v1_style = {**small_world(12, []), "shifts": None, "shift": {"day": 7}}
    assert regime_starts(v1_style) == [0, 7]
    assert EnergyGameV6(WorldView(small_world(12, []))).question_days(state) == range(12)
    beyond = EnergyGameV6(WorldView(small_world(6, [5, 9])))
    state.day = 6
    assert beyond.question_days(state) == range(5, 6)


def test_without_shifts_v6_asks_v5s_questions() -> None:
    for task in released("energy", "lite")[:3]:
        v5, v6 = EnergyGameV5(task), EnergyGameV6(task)
        state = v5.initial()
        for m, action in enumerate(task.certificate.witness[:60:20]):
            state = v5.act(state, action)[0]
            assert draw(v5, state, [state], task.sha256, 1, m) == draw(
                v6, state, [state], task.sha256, 1, m)


def test_v5s_probes_on_released_tasks_are_unchanged() -> None:
    digest = hashlib.sha256()
    for suite in ("lite", "challenge-moderate"):
        for task in released("energy", suite)[:3]:
            game = EnergyGameV5(task)
            state = game.initial()
            visited = [state]
            for action in task.certificate.witness:
                state = game.act(state, action)[0]
                visited.append(state)
            for m, turn in enumerate(milestone_turns(task.budget)):
                at = visited[min(turn, len(visited) - 1)]
                for p in draw(game, at, visited, task.sha256, 0, m):
                    digest.update(json.dumps(p.to_dict(), sort_keys=True).encode())
    assert digest.hexdigest() == V5_PROBES


def test_challenge_witness_and_probes_by_the_v6_game() -> None:
    """The verifier's witness replays to success through the v6 game; at each milestone every
    question's day is in the regime in force, and every answer is the text env's."""
    draft, witness = challenge(0)
    task = as_task(draft)
    game = registry.make_game(task)
    assert isinstance(game, EnergyGameV6)
    state = game.initial()
    states = [state]
    for action in witness:
        state = game.act(state, action)[0]
        states.append(state)
    assert game.success(state) and len(witness) == 1000
    starts = regime_starts(draft.world)
    kinds: set[str] = set()
    for m, turn in enumerate(milestone_turns(task.budget)):
        at = states[min(turn, len(states) - 1)]
        day = min(at.day, 999)
        start = max(s for s in starts if s <= day)
        end = min([s for s in starts if s > day] + [1000])
        probes = draw(game, at, states, "0" * 64, 0, m)
        kinds |= {p.kind for p in probes}
        assert all(start <= p.subject["day"] < end for p in probes), (start, end)
        assert [game.probe_answer(at, p) for p in probes] == _energy_by_env(task, probes)
    assert kinds == {EFFICIENCY, DISPATCH_OK}


def test_a_v6_preset_round_trips() -> None:
    preset = PRESETS["challenge"]
    assert EnergyPresetV6.of(preset.to_dict()) == preset


def test_levels_draw_v3s_worlds() -> None:
    levels = registry.get("energy", 6).load("levels")
    v3 = registry.get("energy", 3).load("levels")
    assert list(levels) == list(v3)
    for name in ("L1", "L5"):
        ours = sample(levels[name], seq(0, 0))
        theirs = sample_v3(v3[name], seq(0, 0))
        assert dataclasses.asdict(ours) == dataclasses.asdict(theirs), name


@pytest.mark.full  # about 90 s of CPU: seed 7's ten 1,000-day tasks, ladder and resistance
def test_seed_7_challenge_ladder_and_knowledge_curve() -> None:
    """Seed 7's v6 Challenge as benchmarks/README.md reports it: only the change-point
    heuristic among the learners solves some (4 of 10), the planner all, and the heuristic's
    knowledge is higher at the last milestone than at the first."""
    built = build_suite("challenge", 7, ["energy"], jobs=2, versions={"energy": 6})
    tasks = built.tasks["energy"]
    assert built.manifest["calibration"]["energy"]["missed"] == []
    ladders = [t.certificate.facts["ladder"] for t in tasks]
    solved = {rung: sum(lad[rung]["successes"] > 0 for lad in ladders) for rung in ladders[0]}
    assert solved == {"random": 0, "persistence": 0, "period_greedy": 0, "heuristic": 4,
                      "planner": 10}
    points = [r["probes"] for lad in ladders for r in lad["heuristic"]["results"]]
    first, last = (sum(p[m]["correct"] for p in points) for m in (0, -1))
    assert (first, last) == (58, 61)
