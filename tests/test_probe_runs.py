"""Probes in runs (#38): asked at milestones to a side copy of the agent, recorded without
answers, never changing the episode, and graded by the judge from the replay alone."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import toy_env

from arena_gen.core import registry
from arena_gen.core.agent import TaskView
from arena_gen.core.episode import run_episode
from arena_gen.core.probe_ask import schedule
from arena_gen.core.probes import Probe
from arena_gen.core.records import Trajectory
from arena_gen.core.schema import validate_doc
from arena_gen.core.suite_io import read_suite, write_suite
from arena_gen.runner.run import RunConfig, run_suite
from arena_gen.scoring.score import judge_attempt, score_run
from arena_gen.suite.build import build_suite


@pytest.fixture(scope="module")
def probe_suite(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    registry.register(toy_env.spec(1, game=toy_env.ProbeCounterGame))
    try:
        built = build_suite("lite", 5, ["counter"])
        yield write_suite(tmp_path_factory.mktemp("s") / "suite", built.manifest, built.tasks)
    finally:
        registry.unregister("counter")


@pytest.fixture()
def registered(probe_suite: Path) -> Path:
    """The suite, its probe-offering counter registered (for the module's tests)."""
    return probe_suite


class Walker:
    """Goes down ``down`` times, then up to the target (so episodes pass several milestones);
    answers probes from the true target when ``knows``, else always ``yes``."""

    name = "walker"
    privileged = False

    def __init__(self, knows: bool = True, down: int = 6, fail: bool = False) -> None:
        self.knows, self.down, self.fail = knows, down, fail
        self.asked: list[tuple[int, list[str], str]] = []

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        self.played = 0

    def act(self, observation: str) -> str:
        self.played += 1
        return "down" if self.played <= self.down else "up"

    def answer_probes(self, probes: Sequence[Probe], observation: str = "") -> list[str]:
        self.asked.append((self.played, [p.question for p in probes], observation))
        if self.fail:
            raise RuntimeError("cannot answer")
        if not self.knows:
            return ["yes"] * len(probes)
        game = registry.make_game(self.task)
        return [game.probe_answer(0, p) for p in probes]


def _tasks(suite: Path) -> list[Any]:
    return read_suite(suite).tasks["counter"]


def _walker(task: Any, **kw: Any) -> Walker:
    agent = Walker(**kw)
    agent.task = task
    return agent


def test_schedule_milestones_and_the_end() -> None:
    assert schedule(20, 20) == [(5, "25%"), (10, "50%"), (15, "75%"), (20, "100%")]
    # the milestones an episode did not reach are asked at its end, one point each
    assert schedule(20, 12) == [(5, "25%"), (10, "50%"), (12, "75%"), (12, "100%")]
    assert schedule(2, 2) == [(1, "50%"), (2, "100%")]
    assert schedule(20, 0) == [(0, "25%"), (0, "50%"), (0, "75%"), (0, "100%")]


def test_probes_are_recorded_per_milestone_and_change_nothing(registered: Path) -> None:
    task = _tasks(registered)[0]
    plain = run_episode(task, _walker(task), probes=0)
    agent = _walker(task)
    probed = run_episode(task, agent, probes=4)
    Trajectory.model_validate(probed)
    validate_doc(probed, "trajectory")  # the schema file readers use
    validate_doc(plain, "trajectory")
    assert "probes" not in plain
    for key in ("turns", "success", "end_reason", "steps", "final_info", "budget"):
        if key == "turns":  # latencies differ between two runs; everything else is equal
            strip = [{k: v for k, v in t.items() if k != "latency"} for t in plain[key]]
            assert strip == [{k: v for k, v in t.items() if k != "latency"} for t in probed[key]]
        else:
            assert plain[key] == probed[key], key
    expected = schedule(probed["budget"], probed["steps"])
    assert [(m["turn"], m["label"]) for m in probed["probes"]] == expected
    assert [m["index"] for m in probed["probes"]] == list(range(len(expected)))
    assert [a[0] for a in agent.asked] == [t for t, _ in expected]  # asked after that turn
    assert all(len(m["probes"]) == len(m["replies"]) == 4 for m in probed["probes"])
    line = json.dumps(probed)
    assert "answer" not in line.replace("Answer yes", "")  # the questions carry no answers
    assert all("subject" not in p for m in probed["probes"] for p in m["probes"])
    assert agent.asked[0][2].startswith("value ")  # the observation after the milestone turn


def test_an_agent_that_cannot_answer_goes_on_and_scores_wrong(registered: Path) -> None:
    task = _tasks(registered)[0]
    for agent in (_walker(task, fail=True), Mute()):
        rec = run_episode(task, agent, probes=3)
        assert rec["end_reason"] == "success" and rec["probes"]
        for m in rec["probes"]:
            assert m["replies"] == [None] * 3 and m["error"]
        line, _ = judge_attempt(task, rec, probes=3)
        assert line["knowledge"]["final_accuracy"] == 0.0


class Mute:
    """Plays ``up`` and has no ``answer_probes``."""

    name = "mute"
    privileged = False

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        pass

    def act(self, observation: str) -> str:
        return "up"


def test_the_judge_grades_from_the_replay(registered: Path) -> None:
    task = _tasks(registered)[0]
    knower = run_episode(task, _walker(task), probes=6)
    guesser = run_episode(task, _walker(task, knows=False), probes=6)
    good, _ = judge_attempt(task, knower, probes=6)
    bad, _ = judge_attempt(task, guesser, probes=6)
    curve = good["knowledge"]["milestones"]
    assert [(m["turn"], m["label"]) for m in curve] == [
        (m["turn"], m["label"]) for m in knower["probes"]]
    assert all(m["asked"] == m["correct"] == 6 for m in curve)
    assert good["knowledge"]["final_accuracy"] == 100.0
    assert bad["knowledge"]["final_accuracy"] < 100.0
    assert good["findings"] == bad["findings"]  # knowledge is apart from the rubric


def test_a_forged_trajectory_cannot_raise_its_knowledge(registered: Path) -> None:
    """Questions swapped for easy ones, answers written in, turns and labels moved: the judge
    draws its own probes and reads only the replies, so nothing rises."""
    task = _tasks(registered)[0]
    rec = run_episode(task, _walker(task, knows=False), probes=6)
    honest, _ = judge_attempt(task, rec, probes=6)
    assert honest["knowledge"]["final_accuracy"] < 100.0
    forged = json.loads(json.dumps(rec))
    for m in forged["probes"]:
        m["turn"], m["label"] = 0, "end"
        for p in m["probes"]:
            p["question"], p["kind"] = "Is 1 equal to 1? Answer yes or no.", "above"
            p["answer"], p["correct"] = "yes", True
        m["answer"] = ["yes"] * len(m["replies"])
    forged["knowledge"] = {"final_accuracy": 100.0}
    again, _ = judge_attempt(task, forged, probes=6)
    assert again["knowledge"] == honest["knowledge"]
    # a milestone dropped from the file is a milestone of wrong replies, not one fewer asked
    dropped = json.loads(json.dumps(rec))
    dropped["probes"] = dropped["probes"][1:]
    fewer, _ = judge_attempt(task, dropped, probes=6)
    first = fewer["knowledge"]["milestones"][0]
    assert first["asked"] == 6 and first["correct"] == 0
    # a forged count per milestone in the file is not read: the run's count is
    assert all(m["asked"] == 6 for m in again["knowledge"]["milestones"])


def test_run_and_score_report_knowledge(registered: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    run_suite(RunConfig(suite=str(registered), agent="oracle", out=str(out), probes=2))
    meta = json.loads((out / "run.json").read_text())
    assert meta["probes"] == {"per_milestone": 2}
    summary = score_run(out)
    know = summary["envs"]["counter"]["knowledge"]
    assert know["episodes"] == len(_tasks(registered))
    assert know["accuracy"] == 100.0  # the oracle answers from the world it sees
    assert know["knows_vs_succeeds"]["succeeded"]["episodes"] == know["episodes"]
    assert know["knows_vs_succeeds"]["failed"]["episodes"] == 0
    assert summary["overall"]["knowledge"]["probes"] == know["probes"] > 0
    assert summary["run"]["probes"] == {"per_milestone": 2}
    findings = [json.loads(x) for x in (out / "findings.jsonl").read_text().splitlines()]
    assert all("knowledge" in f for f in findings)
    # the runner drew from the task's own stream (its probe key)
    from arena_gen.core.game import play
    from arena_gen.core.probe_ask import probe_key
    from arena_gen.core.probes import draw

    by_id = {t.id: t for t in _tasks(registered)}
    for rec in (json.loads(x) for x in (out / "trajectories.jsonl").read_text().splitlines()):
        task = by_id[rec["task_id"]]
        game = registry.make_game(task)
        states = play(game, [t["action"] for t in rec["turns"]]).states
        for index, (turn, _) in enumerate(schedule(rec["budget"], rec["steps"])):
            asked = draw(game, states[turn], states[:turn + 1], probe_key(task), 0, index, 2)
            assert [p["question"] for p in rec["probes"][index]["probes"]] == [
                p.question for p in asked]
    edited = json.loads((out / "run.json").read_text())  # the count is part of the plan
    edited["probes"]["per_milestone"] = 1
    (out / "run.json").write_text(json.dumps(edited))
    with pytest.raises(Exception, match="does not chain"):
        score_run(out)
    edited["probes"]["per_milestone"] = 2
    (out / "run.json").write_text(json.dumps(edited))
    off = tmp_path / "off"
    run_suite(RunConfig(suite=str(registered), agent="oracle", out=str(off)))
    assert "probes" not in json.loads((off / "run.json").read_text())
    assert "knowledge" not in score_run(off)["overall"]
    from arena_gen.scoring.report import build_report

    page = build_report([out, off])  # the section shows the run that asked probes, only it
    assert page.count('id="knowledge"') == 1 and page.count("class='knowledge'") == 1
    assert 'id="knowledge"' not in build_report([off])
    with pytest.raises(Exception, match="--probes differs: 2 per milestone now, off"):
        run_suite(RunConfig(suite=str(registered), agent="oracle", out=str(off), probes=2,
                            resume=True))


def test_cli_run_probes_and_score_print_knows_vs_succeeds(registered: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    from click.testing import CliRunner

    from arena_gen.cli import main

    out = tmp_path / "cli"
    monkeypatch.setenv("ARENA_GEN_RUN_PROBES_PER_MILESTONE", "3")  # the CLI's env convention
    ran = CliRunner().invoke(main, ["run", "--suite", str(registered), "--agent", "random",
                                    "--out", str(out), "--probes", "--display", "plain"])
    assert ran.exit_code == 0, ran.output
    assert json.loads((out / "run.json").read_text())["probes"] == {"per_milestone": 3}
    lines = [json.loads(x) for x in (out / "trajectories.jsonl").read_text().splitlines()]
    assert all(len(m["probes"]) == 3 for rec in lines for m in rec["probes"])
    scored = CliRunner().invoke(main, ["score", str(out), "--display", "plain"])
    assert scored.exit_code == 0, scored.output
    assert "Knows vs succeeds" in scored.output and "succeeded" in scored.output


@pytest.mark.parametrize("agent,mode", [("planner", "with-rules"), ("heuristic", "inductive")])
def test_released_lights_runs_grade_as_the_ladder_does(agent: str, mode: str,
                                                      tmp_path: Path) -> None:
    """On released Lite lights tasks the runner and judge give each milestone the counts the
    ladder's own knowledge bookkeeping gives the same agent and seed (one schedule, one draw),
    and the with-rules planner is right at every milestone."""
    from arena_gen.agents.registry import make_agent
    from arena_gen.core.probe_ask import probe_key
    from arena_gen.suite.ladder import _attempt

    tasks = read_suite("lite", envs=["lights"]).tasks["lights"][:3]
    for task in tasks:
        record = run_episode(task, make_agent(agent, "lights", None, task.env_version),
                             mode=mode, probes=8)
        curve = judge_attempt(task, record, probes=8)[0]["knowledge"]["milestones"]
        ladder = _attempt(task, make_agent(agent, "lights", None, task.env_version), mode, 0,
                          probes=probe_key(task))["probes"]
        assert [(m["turn"], m["asked"], m["correct"]) for m in curve] == [
            (m["turn"], m["asked"], m["correct"]) for m in ladder]
        if agent == "planner":
            assert all(m["correct"] == m["asked"] == 8 for m in curve)


@pytest.mark.parametrize("probes", ["x", [1, None], [{"index": "0", "replies": "yes"}],
                                    [{"index": 0, "replies": {"q0": "yes"}}],
                                    [{"index": 0, "replies": [["yes"], 7, None] * 1000}]])
def test_malformed_probe_records_grade_wrong_never_raise(registered: Path, probes: Any) -> None:
    task = _tasks(registered)[0]
    rec = run_episode(task, _walker(task), probes=2)
    rec["probes"] = probes
    line, _ = judge_attempt(task, rec, probes=2)
    assert line["knowledge"]["final_accuracy"] == 0.0
    assert all(m["asked"] == 2 for m in line["knowledge"]["milestones"])
