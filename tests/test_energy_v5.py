"""Energy v5 (issue 38, released 2026-12-07): probes asked in matched sets, on released Lite worlds
played by the v5 game. The attack on the answers' balance is ``test_probe_guessers.py``'s; here:
registration, exact answers by the text env, the pairs' and sets' shape, robustness inside the whole
0.03 box, the with-rules planner at 100 % and the learner rising."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from functools import cache

import numpy as np
import pytest
from test_probes_envs import _energy_by_env, _replay_to_milestones, released

from arena_gen.core import registry
from arena_gen.core.probes import Probe, draw
from arena_gen.core.task import Task
from arena_gen.envs.energy import V4
from arena_gen.envs.energy.game_v1 import DISPATCH_OK, DISPATCH_ROBUST, EFF_STEP, GENERATORS
from arena_gen.envs.energy.game_v5 import EnergyGameV5
from arena_gen.suite import ladder

#: Lite tasks the exactness and shape tests draw on (all four milestones, attempts 0-2).
TASKS = 8


@cache
def v5_lite() -> tuple[Task, ...]:
    """The released Lite energy tasks (v4) labelled version 5: the same worlds, v5's game."""
    return tuple(dataclasses.replace(t, env_version=5) for t in released("energy", "lite"))


def asked(tasks: int = TASKS, attempts: int = 3) -> list[tuple[Task, object, list[Probe]]]:
    """(task, state, the milestone's probes) at every milestone of the first ``tasks``."""
    out = []
    for task in v5_lite()[:tasks]:
        game = registry.make_game(task)
        for m, (state, visited) in enumerate(_replay_to_milestones(task)):
            out += [(task, state, draw(game, state, visited, task.sha256, a, m))
                    for a in range(attempts)]
    return out


def test_v5_is_the_released_successor_of_v4() -> None:
    spec = registry.get("energy", 5)
    assert not spec.preview and registry.get("energy").version == 5
    assert isinstance(registry.make_game(v5_lite()[0]), EnergyGameV5)
    same = {f.name for f in dataclasses.fields(spec)} - {"version", "game", "preview"}
    assert all(getattr(spec, name) == getattr(V4, name) for name in same)


def test_every_v5_answer_is_the_text_envs() -> None:
    count = Counter()
    for task, state, probes in asked():
        game = registry.make_game(task)
        played = _energy_by_env(task, probes)
        assert [game.probe_answer(state, p) for p in probes] == played
        count.update(p.kind for p in probes)
    assert count[DISPATCH_OK] >= 100 and count["efficiency"] >= 100, count


def test_pairs_share_a_dispatch_per_unit_of_demand_and_split_yes_no() -> None:
    for task, state, probes in asked():
        game = registry.make_game(task)
        dispatch = [p for p in probes if p.kind == DISPATCH_OK]
        answers = Counter(game.probe_answer(state, p) for p in dispatch)
        assert answers["yes"] == answers["no"] == len(dispatch) // 2
        units = np.array([[p.subject["dispatch"][k] / p.subject["demand"] for k in GENERATORS]
                          for p in dispatch])  # per unit of demand, up to the 0.01 rounding
        for i, p in enumerate(dispatch):
            twins = [j for j in range(len(dispatch)) if j != i
                     and np.abs(units[j] - units[i]).max() < 1e-4]
            assert len(twins) == 1, units
            partner = dispatch[twins[0]]
            assert partner.subject["day"] != p.subject["day"]
            assert game.probe_answer(state, partner) != game.probe_answer(state, p)
        for p in dispatch:
            cmd, prev = p.subject["dispatch"], p.subject["prev"]
            assert cmd["battery"] == prev["battery"] == 0.0
            assert sum(abs(cmd[k] - prev[k]) for k in GENERATORS) <= 80.0 + 1e-6


def test_efficiency_sets_share_their_options_and_each_is_right_once() -> None:
    for task, state, probes in asked():
        game = registry.make_game(task)
        by_options: dict[tuple[float, ...], list[str]] = {}
        for p in probes:
            if p.kind == "efficiency":
                by_options.setdefault(tuple(p.subject["options"]), []).append(
                    game.probe_answer(state, p))
        for options, letters in by_options.items():
            assert len(set(letters)) == len(letters), (options, letters)  # each right once
            gaps = np.diff(sorted(options))
            assert gaps.min() >= EFF_STEP - 1e-9


def _answer_moved(task: Task, probe: Probe, move: dict[str, float]) -> str:
    """The dispatch question's answer in a world whose asked day's efficiencies are moved by
    ``move`` (the text env stepped, as :func:`_energy_by_env`)."""
    day = int(probe.subject["day"])
    world = json.loads(json.dumps(task.world))
    for k in GENERATORS:
        world[f"eff_{k}"][day] += move[k]
    return _energy_by_env(dataclasses.replace(task, world=world), [probe])[0]


def test_dispatch_answers_hold_anywhere_in_the_box() -> None:
    """Corners and random interior points of the 0.03 box around the day's efficiencies."""
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(38_5)))
    checked = 0
    for task, state, probes in asked(tasks=4, attempts=1):
        game = registry.make_game(task)
        for p in probes:
            if p.kind != DISPATCH_OK:
                continue
            answer = game.probe_answer(state, p)
            for _ in range(6):
                move = dict(zip(GENERATORS, rng.uniform(-DISPATCH_ROBUST, DISPATCH_ROBUST, 3)
                                * rng.choice([1.0, 1.0, 0.5], 3), strict=True))
                assert _answer_moved(task, p, move) == answer, (task.id, p.subject, move)
                checked += 1
    assert checked >= 200


def test_v5_probes_are_a_function_of_task_attempt_and_milestone() -> None:
    one, two = v5_lite()[:2]
    game = registry.make_game(one)
    state, visited = _replay_to_milestones(one)[1]

    def texts(task: Task, attempt: int, m: int) -> list[dict[str, object]]:
        return [p.to_dict() for p in draw(game, state, visited, task.sha256, attempt, m)]

    assert texts(one, 0, 1) == texts(one, 0, 1)
    assert texts(one, 0, 1) != texts(one, 1, 1) != texts(two, 1, 1)


@pytest.mark.slow
def test_the_with_rules_planner_answers_every_v5_probe() -> None:
    for curve in _v5_curves("planner", 6):
        assert all(p["correct"] == p["asked"] == 8 for p in curve), curve


@pytest.mark.full
def test_the_with_rules_planner_answers_every_v5_probe_of_lite() -> None:
    for curve in _v5_curves("planner", None):
        assert all(p["correct"] == p["asked"] == 8 for p in curve), curve


@pytest.mark.full  # the learner over all of Lite: about a minute (energy's LP)
def test_the_scripted_learner_knows_more_at_the_last_v5_milestone() -> None:
    curves = _v5_curves("heuristic", None)
    first = sum(c[0]["correct"] for c in curves) / sum(c[0]["asked"] for c in curves)
    last = sum(c[-1]["correct"] for c in curves) / sum(c[-1]["asked"] for c in curves)
    assert last > first + 0.2, (first, last)


def _v5_curves(rung: str, tasks: int | None) -> list[list[dict[str, int]]]:
    """The knowledge curves of one rung on the first ``tasks`` v5-labelled Lite tasks (all by
    default), played as the format-3 ladder plays it."""
    spec = registry.get("energy", 5)
    factory, mode = ((spec.load("planner"), "with-rules") if rung == "planner"
                     else (spec.load("heuristic"), "inductive"))
    return [ladder._attempt(task, factory(), mode, 0, probes=ladder.probe_key(task))["probes"]
            for task in v5_lite()[:tasks]]


def test_a_world_too_short_for_sets_asks_v1s_questions() -> None:
    task = v5_lite()[0]
    short = dataclasses.replace(task, world={**task.world, "horizon": 1})
    game = registry.make_game(short)
    state = game.initial()
    probes = draw(game, state, [state], task.sha256, 0, 0)
    assert len(probes) == 8 and {p.kind for p in probes} == {"efficiency"}
    assert {p.subject["day"] for p in probes} == {0}
    assert Counter(game.probe_answer(state, p) for p in probes) == Counter("AABBCCDD")
