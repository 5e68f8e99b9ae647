"""World-model probes of every env on the released suites: exact answers (checked by stepping
the text env, not through ``probe_answer``), balance against guessing, the with-rules planner
at 100 %, learners that rise, determinism, a strict parser and the ladder's knowledge curves."""

from __future__ import annotations

import dataclasses
import json
import pickle
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena_gen.agents.oracle import OracleAgent
from arena_gen.agents.random_agent import RandomAgent
from arena_gen.core import registry
from arena_gen.core.agent import TaskView
from arena_gen.core.episode import Episode
from arena_gen.core.probes import Probe, draw, grade, milestone_turns, parse_choice
from arena_gen.core.schema import validate_doc
from arena_gen.core.suite_io import read_suite, write_suite
from arena_gen.core.task import Task
from arena_gen.envs.trading.game_v6 import REGIMES, regime_at
from arena_gen.suite import ladder
from arena_gen.suite.build import build_suite, generate_task
from arena_gen.suite.verify import verify_suite

ROOT = Path(__file__).resolve().parents[1]
ENVS = ("lights", "trading", "energy", "repo")


@cache
def released(env: str, suite: str) -> tuple[Task, ...]:
    """The released tasks of one env in the folder ``suites/<suite>``."""
    return tuple(read_suite(ROOT / "suites" / suite, envs=[env]).tasks[env])


_STATES: dict[str, list[tuple[Any, list[Any]]]] = {}


def milestone_states(task: Task) -> list[tuple[Any, list[Any]]]:
    """Per milestone of the budget, the state the witness reaches by then and the states it
    visited (a witness shorter than a milestone stays at its end); one replay per task."""
    if task.sha256 not in _STATES:  # by content: both released Challenges use the same ids
        _STATES[task.sha256] = _replay_to_milestones(task)
    return _STATES[task.sha256]


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


def _energy_by_env(task: Task, probes: list[Probe]) -> list[str]:
    """Put the text env on the probe's day (yesterday's commands, stored energy as asked),
    send the dispatch (or one unit of the source alone) and read the day from ``info``."""
    env = registry.make_env(task)
    target, carbon = task.world["target_stability"], task.world["target_carbon"]
    out = []
    for probe in probes:
        sub = probe.subject
        env.reset()
        state = env.state
        state.day = int(sub["day"])
        if probe.kind == "efficiency":
            renewables = task.world.get("sites", ("wind", "solar"))  # v7 and later: sites
            state.prev = {k: 0.0 for k in ("thermal", *renewables, "battery")}
            info = env.step(json.dumps({sub["source"]: 1.0}))[4]
            eff = info["last_day"]["actual"][sub["source"]]
            near = [c for c, v in zip(probe.choices or (), sub["options"], strict=True)
                    if abs(v - eff) <= 0.05]
            out.append(near[0] if len(near) == 1 else f"{len(near)} options in tolerance")
            continue
        state.prev, state.stored = dict(sub["prev"]), float(sub["stored"])
        day = env.step(json.dumps(sub["dispatch"]))[4]["last_day"]
        ok = (not day["demand_violated"] and day["stability"] > target
              and day["actual"]["thermal"] / day["supply"] < carbon)
        out.append("yes" if ok else "no")
    return out


def _repo_by_env(task: Task, probes: list[Probe]) -> list[str]:
    """Type the stated environment into the text env (Python, then each package by exact
    version, checked against ``info``), then the probe's command; read what it prints."""
    out = []
    for probe in probes:
        sub = probe.subject
        env = registry.make_env(task)
        env.reset()
        game = env.game
        installed = [-1] * game.rules.n
        for name, version in sub["installed"].items():
            p = game.rules.index[name]
            installed[p] = [game.rules.vname(p, v) for v in range(len(game.rules.versions[p]))
                            ].index(version)
        pythons = [game.rules.pythons[i] for i in range(len(game.rules.pythons))]
        env.state = type(env.state)(
            -1 if sub["python"] is None else
            [game.pip_list(type(env.state)(i, env.state.installed)).split("\n")[0]
             for i in range(len(pythons))].index(f"Python: {sub['python']}"),
            tuple(installed))
        info = env.step("pip list")[4]
        assert info["installed"] == sub["installed"] and info["python"] == sub["python"]
        feedback = env.step(sub["command"])[4]["feedback"]
        text = " ".join(feedback.split())
        if probe.kind == "command_ok":
            out.append("no" if text.startswith("ERROR") else "yes")
        else:
            options = sub["options"]
            out.append(probe.choices[options.index(text)] if text in options else "absent")
    return out


def _in_force(task: Task, state: Any) -> Task:
    """``task`` with the factor map in force on ``state``'s day as its only map (trading v6
    asks about that regime; a world without ``regimes`` plays as v5), else ``task``."""
    if task.env != "trading" or not task.world.get(REGIMES):
        return task
    maps = [task.world["matrix"], *(r["matrix"] for r in task.world[REGIMES])]
    day = min(state.day, int(task.world["horizon"]) - 1)
    world = {k: v for k, v in task.world.items() if k != REGIMES}
    return _with_world(dataclasses.replace(task, world=world),
                       matrix=maps[regime_at(task.world, day)])


#: Per env, the answers probes get by playing the text env (never through probe_answer).
BY_ENV: dict[str, Callable[[Task, list[Probe]], list[str]]] = {"lights": _lights_by_env,
                                                              "trading": _trading_by_env,
                                                              "energy": _energy_by_env,
                                                              "repo": _repo_by_env}


@pytest.mark.parametrize("suite", ["lite", "challenge", "challenge-moderate"])
@pytest.mark.parametrize("env", ENVS)
def test_every_probe_answer_equals_the_replayed_answer(env: str, suite: str) -> None:
    asked = 0
    for task in released(env, suite):
        game = registry.make_game(task)
        for m, (state, visited) in enumerate(milestone_states(task)):
            probes = draw(game, state, visited, task.sha256, 0, m)
            played = BY_ENV[env](_in_force(task, state), probes)
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
    for attempt in range(enough):
        for task in released(env, "lite"):
            game = registry.make_game(task)
            for m, (state, visited) in enumerate(milestone_states(task)):
                out += [(game, state, p)
                        for p in draw(game, state, visited, task.sha256, attempt, m)]
                if len(out) >= enough:
                    return out
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


def _curves(env: str, suite: str, rung: str, tasks: int | None = None
            ) -> list[list[dict[str, int]]]:
    """The knowledge curves of one rung on the first ``tasks`` tasks of a suite (all by
    default), played as the format-3 ladder plays it."""
    spec = registry.for_task(released(env, suite)[0])
    factory, mode = ((spec.load("planner"), "with-rules") if rung == "planner"
                     else (spec.load("heuristic"), "inductive"))
    return [ladder._attempt(task, factory(), mode, 0, probes=ladder.probe_key(task))["probes"]
            for task in released(env, suite)[:tasks]]


#: Lite tasks the planner test plays per env in CI (energy's LP and repo's SAT planners take
#: about a second a task; every task is played by the ``full`` run).
PLANNER_TASKS = {"lights": 30, "trading": 30, "energy": 6, "repo": 8}


def _planner_answers_all(env: str, suite: str, tasks: int) -> None:
    turns = len(milestone_turns(released(env, suite)[0].budget))
    for curve in _curves(env, suite, "planner", tasks):
        assert len(curve) == turns
        assert all(p["correct"] == p["asked"] == 8 for p in curve), curve


@pytest.mark.slow
@pytest.mark.parametrize("env", ENVS)
def test_the_with_rules_planner_answers_every_probe(env: str) -> None:
    _planner_answers_all(env, "lite", PLANNER_TASKS[env])


@pytest.mark.full
@pytest.mark.parametrize("suite", ["lite", "challenge", "challenge-moderate"])
@pytest.mark.parametrize("env", ENVS)
def test_the_with_rules_planner_answers_every_probe_of_every_task(env: str, suite: str) -> None:
    _planner_answers_all(env, suite, len(released(env, suite)))


@pytest.mark.slow  # the learner over all of Lite: 4-10 s per env (energy's LP: a full run)
@pytest.mark.parametrize("env", [pytest.param(e, marks=pytest.mark.full) if e == "energy" else e
                                 for e in ENVS])
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
    stored = Task.from_dict(doc, check_hash=False)
    validate_doc(stored.to_dict(), "task")
    # verify replays the ladder of the stored task (its ladder attached): the same probes
    assert ladder.probe_key(stored) == ladder.probe_key(task) != stored.sha256
    assert ladder.climb(stored, cal) == first


def test_an_older_ladder_format_records_no_probes() -> None:
    task = generate_task("lights", "lite", 7, 0, version=3).task  # released 2026-12-02
    spec = registry.for_task(task)
    assert spec.ladder_version < 3
    lad = ladder.climb(task, spec.load("calibration")["lite"], only={"planner"})
    assert "probes" not in lad["planner"]["results"][0]
    assert lad == {"planner": task.certificate.facts["ladder"]["planner"]}


@pytest.fixture
def lights_at_format_3() -> Iterator[registry.EnvSpec]:
    """The newest lights version re-registered at ladder format 3 for one test."""
    spec = registry.get("lights")
    registry.unregister("lights", spec.version)
    registry.register(dataclasses.replace(spec, ladder_version=3))
    try:
        yield registry.get("lights")
    finally:
        registry.unregister("lights", spec.version)
        registry.register(spec)


def test_a_format_3_build_verifies_and_rebuilds_the_same(
        lights_at_format_3: registry.EnvSpec, tmp_path: Path) -> None:
    result = build_suite("lite", 7, ["lights"], counts={"lights": 2})
    for task in result.tasks["lights"]:
        for rung in task.certificate.facts["ladder"].values():
            assert all(len(r["probes"]) == 4 for r in rung["results"])
    write_suite(tmp_path / "s", result.manifest, result.tasks)
    report = verify_suite(tmp_path / "s")  # replays every ladder: the same probes, replies
    assert len(report.checks) == 2 and all(c.ok for c in report.checks), report.checks
    again = build_suite("lite", 7, ["lights"], counts={"lights": 2})
    assert [t.to_dict() for t in again.tasks["lights"]] == [
        t.to_dict() for t in result.tasks["lights"]]
    assert report.manifest_problems == ["manifest counts.lights is 2, the lite preset's is 30"]


#: Lite tasks per env the no-side-effect test plays (energy's rungs are slow).
SAME_TASKS = {"lights": 4, "trading": 3, "energy": 2, "repo": 4}


@pytest.mark.slow
@pytest.mark.parametrize("env", ENVS)
def test_answering_probes_changes_no_rung_result(env: str, monkeypatch: pytest.MonkeyPatch
                                                  ) -> None:
    """Every rung of a released format-3 ladder, its knowledge curves removed, is the same
    task's ladder climbed at format 2 (no probes asked): answering changed no action,
    success, step or value."""
    for task in released(env, "lite")[:SAME_TASKS[env]]:
        spec = registry.for_task(task)
        assert spec.ladder_version == 3
        monkeypatch.setattr(ladder.registry, "for_task",
                            lambda _t, s=spec: dataclasses.replace(s, ladder_version=2))
        plain = ladder.climb(task, spec.load("calibration")["lite"])
        monkeypatch.undo()
        stored = json.loads(json.dumps(task.certificate.facts["ladder"]))
        assert set(plain) == set(stored)
        for rung, record in stored.items():
            assert all(len(r.pop("probes")) == 4 for r in record["results"]), rung
            assert record == plain[rung], (task.id, rung)


@pytest.mark.parametrize("rung", ["heuristic", "planner"])
@pytest.mark.parametrize("env", ENVS)
def test_answering_leaves_the_answerer_as_it_was(env: str, rung: str) -> None:
    """At each milestone of a Lite task the answerer's whole state (pickled) is the same
    before and after it answers: nothing it learns or caches is touched."""
    task = released(env, "lite")[1]
    spec = registry.for_task(task)
    mode = "with-rules" if rung == "planner" else "inductive"
    agent = spec.load(rung)()
    episode = Episode(task, agent, mode=mode, attempt=0, run_seed=0)
    game, visited = episode.env.game, [episode.env.state]
    for m, turn in enumerate(milestone_turns(task.budget)):
        while not episode.over and len(episode.turns) < turn:
            episode.step(agent.act(episode.obs), 0.0)
            visited.append(episode.env.state)
        probes = draw(game, episode.env.state, visited, task.sha256, 0, m)
        before = _snapshot(agent)
        assert len(agent.answer_probes(probes)) == len(probes)
        assert _snapshot(agent) == before, (m, turn)


def _snapshot(agent: Any) -> dict[str, bytes]:
    """Each attribute of ``agent`` pickled (compiled rules, which hold closures, by identity:
    they are read-only once built)."""
    out = {}
    for name, value in vars(agent).items():
        try:
            out[name] = pickle.dumps(value)
        except (AttributeError, TypeError, pickle.PicklingError):
            out[name] = repr(id(value)).encode()
    return out


@pytest.mark.parametrize("env", ENVS)
def test_the_oracle_answers_from_the_world(env: str) -> None:
    task = released(env, "lite")[2]
    oracle = OracleAgent()
    oracle.reset(TaskView.of(task, "inductive", privileged=True), "inductive",
                 np.random.default_rng(0))
    game = registry.make_game(task)
    for m, (state, visited) in enumerate(milestone_states(task)):
        probes = draw(game, state, visited, task.sha256, 0, m)
        assert all(grade(game, state, probes, oracle.answer_probes(probes)))
