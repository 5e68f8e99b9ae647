"""World-model probes of every env on the released suites: exact answers (checked by stepping
the text env, not through ``probe_answer``), balance against guessing, the with-rules planner
at 100 %, learners that rise, determinism, a strict parser and the ladder's knowledge curves."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena_gen.agents.random_agent import RandomAgent
from arena_gen.core import registry
from arena_gen.core.agent import TaskView
from arena_gen.core.probes import Probe, draw, milestone_turns, parse_choice
from arena_gen.core.schema import validate_doc
from arena_gen.core.suite_io import read_suite
from arena_gen.core.task import Task
from arena_gen.suite import ladder

ROOT = Path(__file__).resolve().parents[1]
ENVS = ("lights", "trading")


@cache
def released(env: str, suite: str) -> tuple[Task, ...]:
    """The released tasks of one env in ``suites/<suite>``."""
    return tuple(read_suite(ROOT / "suites" / suite, envs=[env]).tasks[env])


_STATES: dict[str, list[tuple[Any, list[Any]]]] = {}


def milestone_states(task: Task) -> list[tuple[Any, list[Any]]]:
    """Per milestone of the budget, the state the witness reaches by then and the states it
    visited (a witness shorter than a milestone stays at its end); one replay per task."""
    if task.id not in _STATES:
        _STATES[task.id] = _replay_to_milestones(task)
    return _STATES[task.id]


def _replay_to_milestones(task: Task) -> list[tuple[Any, list[Any]]]:
    game = registry.make_game(task)
    state = game.initial()
    visited = [state]
    for action in task.certificate.witness:
        state = game.act(state, action)[0]
        visited.append(state)
    return [(visited[min(t, len(visited) - 1)], visited[:min(t, len(visited) - 1) + 1])
            for t in milestone_turns(task.budget)]


def _lights_by_env(task: Task, probes: list[Probe]) -> list[str]:
    """Put the text env in each probe's state, send the toggle, see whether the state moved."""
    env = registry.make_env(task)
    out = []
    for probe in probes:
        env.reset()
        env.state = int(probe.subject["state"])
        info = env.step(f"B{probe.subject['bulb']}")[4]
        out.append("yes" if info["state"] != probe.subject["state"] else "no")
    return out


def _with_world(task: Task, **changes: Any) -> Task:
    """``task`` with world keys replaced (a test-only variant)."""
    return dataclasses.replace(task, world={**task.world, **changes})


def _trading_by_env(task: Task, probes: list[Probe]) -> list[str]:
    """Make probe d's news day d's exact changes with no noise, prices high above the floor,
    hold day after day in the text env and read each day's price moves from ``info``."""
    world, k = task.world, len(probes)
    stocks = list(world["stocks"])
    assert k <= len(world["changes"])
    variant = _with_world(
        task, changes=[list(p.subject["news"]) for p in probes] + world["changes"][k:],
        noise=[[0.0] * len(stocks)] * k + world["noise"][k:],
        initial_prices=[1000.0] * len(stocks))
    env = registry.make_env(variant)
    before = env.reset()[1]["prices"]
    out = []
    for probe in probes:
        after = env.step("{}")[4]["prices"]
        moves = {s: a - b for s, a, b in zip(stocks, after, before, strict=True)}
        before = after
        if probe.kind == "move_sign":
            out.append("up" if moves[probe.subject["stock"]] > 0 else "down")
            continue
        order = sorted(probe.subject["stocks"], key=lambda s: -moves[s])
        assert probe.choices is not None
        out.append(probe.choices[[list(o) for o in probe.subject["options"]].index(order)])
    return out


#: Per env, the answers probes get by playing the text env (never through probe_answer).
BY_ENV: dict[str, Callable[[Task, list[Probe]], list[str]]] = {"lights": _lights_by_env,
                                                              "trading": _trading_by_env}


@pytest.mark.parametrize("suite", ["lite", "challenge"])
@pytest.mark.parametrize("env", ENVS)
def test_every_probe_answer_equals_the_replayed_answer(env: str, suite: str) -> None:
    asked = 0
    for task in released(env, suite):
        game = registry.make_game(task)
        for m, (state, visited) in enumerate(milestone_states(task)):
            probes = draw(game, state, visited, task.sha256, 0, m)
            played = BY_ENV[env](task, probes)
            for probe, by_env in zip(probes, played, strict=True):
                answer = game.probe_answer(state, probe)
                assert answer == by_env, (task.id, m, probe)
                assert game.probe_correct(probe, answer, answer)
                assert answer in (probe.choices or (answer,))
                asked += 1
    assert asked >= 8 * len(released(env, suite))


def _probes_of(env: str, enough: int) -> list[tuple[Any, Any, Probe]]:
    """At least ``enough`` (game, state, probe) from Lite's witnesses, attempts 0, 1, ..."""
    out: list[tuple[Any, Any, Probe]] = []
    attempt = 0
    while len(out) < enough:
        for task in released(env, "lite"):
            game = registry.make_game(task)
            for m, (state, visited) in enumerate(milestone_states(task)):
                out += [(game, state, p)
                        for p in draw(game, state, visited, task.sha256, attempt, m)]
        attempt += 1
    return out


@pytest.mark.parametrize("env", ENVS)
def test_guessing_and_constant_replies_score_at_most_chance(env: str) -> None:
    items = _probes_of(env, 1000)
    task = released(env, "lite")[0]
    agent = RandomAgent()
    agent.reset(TaskView.of(task, "inductive"), "inductive",
                np.random.Generator(np.random.PCG64(np.random.SeedSequence(2026))))
    replies = agent.answer_probes([p for _, _, p in items])
    chance = float(np.mean([type(g).probe_chance[p.kind] for g, _, p in items]))
    right = [g.probe_correct(p, g.probe_answer(s, p), r)
             for (g, s, p), r in zip(items, replies, strict=True)]
    assert np.mean(right) <= chance + 0.05
    for choice in sorted({c for _, _, p in items for c in p.choices or ()}):
        constant = [g.probe_correct(p, g.probe_answer(s, p), choice) for g, s, p in items]
        assert np.mean(constant) <= chance + 0.05, choice


def _curves(env: str, suite: str, rung: str) -> list[list[dict[str, int]]]:
    """Each Lite task's knowledge curve of one rung, played as the format-3 ladder plays it."""
    spec = registry.for_task(released(env, suite)[0])
    factory, mode = ((spec.load("planner"), "with-rules") if rung == "planner"
                     else (spec.load("heuristic"), "inductive"))
    return [ladder._attempt(task, factory(), mode, 0, probes=True)["probes"]
            for task in released(env, suite)]


@pytest.mark.parametrize("env", ENVS)
def test_the_with_rules_planner_answers_every_probe(env: str) -> None:
    for curve in _curves(env, "lite", "planner"):
        assert len(curve) == len(milestone_turns(released(env, "lite")[0].budget))
        assert all(p["correct"] == p["asked"] == 8 for p in curve), curve


@pytest.mark.slow  # every rung's learner over all of Lite: ~4-8 s per env
@pytest.mark.parametrize("env", ENVS)
def test_the_scripted_learner_knows_more_at_the_last_milestone(env: str) -> None:
    curves = _curves(env, "lite", "heuristic")
    first = sum(c[0]["correct"] for c in curves) / sum(c[0]["asked"] for c in curves)
    last = sum(c[-1]["correct"] for c in curves) / sum(c[-1]["asked"] for c in curves)
    assert last > first, (first, last)


@pytest.mark.parametrize("env", ENVS)
def test_probes_are_a_function_of_task_attempt_and_milestone(env: str) -> None:
    one, two = released(env, "lite")[:2]
    game = registry.make_game(one)
    state, visited = milestone_states(one)[1]

    def texts(task: Task, attempt: int, m: int) -> list[dict[str, Any]]:
        return [p.to_dict() for p in draw(game, state, visited, task.sha256, attempt, m)]

    assert texts(one, 0, 1) == texts(one, 0, 1)
    assert texts(one, 0, 1) != texts(one, 1, 1)
    assert texts(one, 0, 1) != texts(one, 0, 2)
    assert texts(one, 0, 1) != texts(two, 0, 1)


@pytest.fixture(scope="module")
def some_probes() -> list[tuple[Any, Any, Probe]]:
    return [item for env in ENVS for item in _probes_of(env, 1)[:8]]


@settings(max_examples=200, deadline=None)
@given(reply=st.one_of(st.text(max_size=300), st.none(), st.integers(), st.binary()),
       index=st.integers(0, 10_000))
def test_the_parser_never_raises_and_unparseable_is_wrong(
        some_probes: list[tuple[Any, Any, Probe]], reply: Any, index: int) -> None:
    game, state, probe = some_probes[index % len(some_probes)]
    answer = game.probe_answer(state, probe)
    verdict = game.probe_correct(probe, answer, reply)
    assert isinstance(verdict, bool)
    if probe.choices is not None and parse_choice(reply, probe.choices) is None:
        assert verdict is False


@pytest.mark.parametrize("reply, right", [("yes", True), (" Yes. ", True), ("`yes`", True),
                                          ("**YES**", True), ("no", False), ("yes, it does", False),
                                          ("yes no", False), ("", False), ("y", False)])
def test_the_choice_grammar_is_strict(reply: str, right: bool) -> None:
    probe = Probe(id="q0", kind="toggle_changes", question="?", choices=("yes", "no"))
    game = registry.make_game(released("lights", "lite")[0])
    assert game.probe_correct(probe, "yes", reply) is right


def test_a_format_3_ladder_records_a_valid_knowledge_curve(monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    task = released("lights", "lite")[0]
    spec = dataclasses.replace(registry.for_task(task), ladder_version=3)
    monkeypatch.setattr(ladder.registry, "for_task", lambda _task: spec)
    cal = spec.load("calibration")["lite"]
    first, again = ladder.climb(task, cal), ladder.climb(task, cal)
    assert first == again
    turns = milestone_turns(task.budget)
    for rung in first.values():
        for result in rung["results"]:
            assert all(p["turn"] <= t for p, t in zip(result["probes"], turns, strict=True))
            assert all(0 <= p["correct"] <= p["asked"] == 8 for p in result["probes"])
    assert first["planner"]["results"][0]["probes"][-1]["correct"] == 8
    doc = task.to_dict()
    doc["certificate"]["ladder"] = first
    validate_doc(Task.from_dict(doc, check_hash=False).to_dict(), "task")


def test_an_older_ladder_format_records_no_probes() -> None:
    task = released("lights", "lite")[0]
    spec = registry.for_task(task)
    assert spec.ladder_version < 3
    lad = ladder.climb(task, spec.load("calibration")["lite"], only={"planner"})
    assert "probes" not in lad["planner"]["results"][0]
    assert lad == {"planner": task.certificate.facts["ladder"]["planner"]}
