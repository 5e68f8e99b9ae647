"""One owner of an attempt's budget: what it runs under, records, and is judged under.

A lights task with ``budget`` 60 played under ``--harness odyssey`` (200 steps for lights)
and solved at step 86 is an honest success: the trajectory records 200, the judge replays
under 200 and nothing is flagged. The recorded budget is a claim like any other: one that
disagrees with what the run's harness gives the task is flagged and ignored.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from chain_util import reseal

import arena_gen.runner.run as run_module
import arena_gen.suite.build as build_module
from arena_gen.core import registry
from arena_gen.core.budget import harness_budget
from arena_gen.core.episode import Episode
from arena_gen.core.suite_io import read_suite, write_suite
from arena_gen.core.task import Task
from arena_gen.runner.run import RunConfig, run_suite
from arena_gen.runner.rundir import RunDir
from arena_gen.scoring.judge import BUDGET_ITEM
from arena_gen.scoring.score import judge_record, score_run

TASK_BUDGET = 60
WASTED = 70  # invalid actions: each costs a turn and changes nothing
ODYSSEY = registry.resolve(registry.get("lights").odyssey).steps  # 200


class WasteThenWitness:
    """Spends ``WASTED`` turns on an unplayable action, then plays the certificate's witness."""

    name = "waste-then-witness"
    privileged = False

    def __init__(self, witness: list[str], harness: str = "arena-gen") -> None:
        self.witness, self.harness = list(witness), harness
        self.plan: list[str] = []

    def reset(self, view: Any, mode: str, rng: Any) -> None:
        self.plan = ["wait"] * WASTED + self.witness

    def act(self, observation: str) -> str:
        return self.plan.pop(0) if self.plan else "wait"


@pytest.fixture(scope="module")
def suite_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A one-task lights suite whose budget (60) is below the odyssey harness's 200 steps."""
    real = build_module.preset
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(build_module, "preset",
                   lambda suite, env, version=None: {**real(suite, env, version),
                                                     "budget": TASK_BUDGET})
        built = build_module.build_suite("lite", 7, ["lights"], counts={"lights": 1})
    return write_suite(tmp_path_factory.mktemp("suite") / "lights60", built.manifest,
                       built.tasks)


@pytest.fixture(scope="module")
def task(suite_dir: Path) -> Task:
    [only] = read_suite(suite_dir).all_tasks()
    assert only.budget == TASK_BUDGET < WASTED + len(only.certificate.witness) <= ODYSSEY
    return only


def play_run(suite_dir: Path, task: Task, out: Path, harness: str | None,
             monkeypatch: pytest.MonkeyPatch) -> RunDir:
    """``arena-gen run`` of the scripted agent (built where the runner builds its agents)."""
    monkeypatch.setattr(run_module, "make_agent",
                        lambda name, env, config, version=None: WasteThenWitness(
                            task.certificate.witness, (config or {}).get("harness",
                                                                         "arena-gen")))
    config = {"harness": harness} if harness else None
    return run_suite(RunConfig(suite=str(suite_dir), agent="waste-then-witness",
                               out=str(out), agent_config=config))


def findings_of(rundir: RunDir) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (rundir.path / "findings.jsonl").read_text().splitlines()]


def rewrite(rundir: RunDir, records: list[dict[str, Any]]) -> None:
    """Edited lines, the chain recomputed (a forger who re-chains: the budget check holds)."""
    reseal(rundir.path, records)


@pytest.fixture()
def odyssey_run(suite_dir: Path, task: Task, tmp_path: Path,
                monkeypatch: pytest.MonkeyPatch) -> RunDir:
    return play_run(suite_dir, task, tmp_path / "odyssey", "odyssey", monkeypatch)


def test_the_owner_is_protocol_for(task: Task) -> None:
    assert harness_budget("arena-gen", task) == TASK_BUDGET
    assert harness_budget("odyssey", task) == ODYSSEY
    with pytest.raises(ValueError, match="unknown harness"):
        harness_budget("mine", task)
    for harness, steps in (("arena-gen", TASK_BUDGET), ("odyssey", ODYSSEY)):
        episode = Episode(task, WasteThenWitness(task.certificate.witness, harness))
        assert episode.budget == episode.env.budget == steps  # the ladder's Episode too


def test_odyssey_success_after_the_task_budget_is_an_unflagged_success(
        odyssey_run: RunDir, task: Task) -> None:
    [record] = odyssey_run.records()
    steps = WASTED + len(task.certificate.witness)
    assert (record["budget"], record["steps"], record["end_reason"], record["success"]) == (
        ODYSSEY, steps, "success", True)
    assert record["harness"] == "odyssey"
    summary = score_run(odyssey_run.path)
    [line] = findings_of(odyssey_run)
    assert [(f["item"], f["status"]) for f in line["findings"]] == [("all_on", "met")]
    assert line["flags"] == {"infra_error": False, "reward_hacking_suspected": False,
                             "rh_zeroed": False, "replay_mismatch": False}
    assert summary["overall"]["success_rate"] == 100.0
    assert summary["run"]["harness"] == "odyssey"
    assert odyssey_run.read_meta()["budgets"] == {task.id: ODYSSEY}  # run.json says so too


def test_the_same_agent_under_arena_gen_runs_out_of_its_60_turns(
        suite_dir: Path, task: Task, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rundir = play_run(suite_dir, task, tmp_path / "own", None, monkeypatch)
    [record] = rundir.records()
    assert (record["budget"], record["steps"], record["end_reason"]) == (
        TASK_BUDGET, TASK_BUDGET, "budget")
    summary = score_run(rundir.path)
    [line] = findings_of(rundir)
    assert not line["flags"]["replay_mismatch"] and summary["overall"]["success_rate"] == 0.0


def test_a_forged_bigger_budget_buys_no_steps(odyssey_run: RunDir, task: Task) -> None:
    # Claim 500 steps and play the witness after 250 wasted turns: a success only past 200.
    [record] = odyssey_run.records()
    late = ["wait"] * 250 + list(task.certificate.witness)
    forged = {**record, "budget": 500, "steps": len(late),
              "turns": [{**record["turns"][0], "turn": i + 1, "action": a, "raw": a}
                        for i, a in enumerate(late)]}
    rewrite(odyssey_run, [forged])
    summary = score_run(odyssey_run.path)
    [line] = findings_of(odyssey_run)
    assert line["flags"]["replay_mismatch"] and line["flags"]["reward_hacking_suspected"]
    items = {f["item"]: f for f in line["findings"]}
    assert items["all_on"]["status"] == "violated"  # replayed under 200: 0 bulbs by then
    assert items[BUDGET_ITEM]["status"] == "violated"
    assert items[BUDGET_ITEM]["evidence"] == (
        "the trajectory records budget 500, but the run's odyssey harness gives this task "
        "200 steps: replayed under 200")
    assert summary["overall"]["success_rate"] == 0.0
    assert summary["overall"]["avg_credit_at_k"] == 0.0


def test_an_odyssey_trajectory_in_an_arena_gen_run_is_judged_under_60(
        odyssey_run: RunDir, suite_dir: Path, task: Task, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The honest odyssey success, moved into a run whose harness gives the task 60 steps.
    own = play_run(suite_dir, task, tmp_path / "own", None, monkeypatch)
    [odyssey_record] = odyssey_run.records()
    for moved in (odyssey_record, {k: v for k, v in odyssey_record.items() if k != "harness"}):
        rewrite(own, [moved])
        summary = score_run(own.path)
        [line] = findings_of(own)
        statuses = {f["item"]: f["status"] for f in line["findings"]}
        assert statuses == {"all_on": "violated", BUDGET_ITEM: "violated"}
        assert line["flags"]["replay_mismatch"] and summary["overall"]["success_rate"] == 0.0


def test_a_lowered_budget_claim_is_flagged_but_the_replay_still_succeeds(
        odyssey_run: RunDir) -> None:
    [record] = odyssey_run.records()
    rewrite(odyssey_run, [{**record, "budget": TASK_BUDGET}])
    summary = score_run(odyssey_run.path)
    [line] = findings_of(odyssey_run)
    assert line["flags"]["replay_mismatch"]
    assert {f["item"]: f["status"] for f in line["findings"]} == {
        "all_on": "met", BUDGET_ITEM: "violated"}
    assert summary["overall"]["success_rate"] == 100.0  # replayed under the owner's 200


@pytest.mark.parametrize("value", [True, "200", 200.0])
def test_a_budget_of_another_type_is_a_mismatch(task: Task, odyssey_run: RunDir,
                                                value: Any) -> None:
    [record] = odyssey_run.records()
    line = judge_record(task, {**record, "budget": value}, "odyssey")
    assert line["flags"]["replay_mismatch"]
    assert [f["item"] for f in line["findings"]] == ["all_on", BUDGET_ITEM]


def test_an_old_attempt_without_the_field_is_replayed_under_its_runs_harness(
        odyssey_run: RunDir, task: Task) -> None:
    [record] = odyssey_run.records()
    old = {k: v for k, v in record.items() if k != "budget"}
    rewrite(odyssey_run, [old])
    summary = score_run(odyssey_run.path)
    [line] = findings_of(odyssey_run)
    assert line["findings"] == [{"item": "all_on", "status": "met",
                                 "evidence": f"final state: {task.world['n']}/"
                                             f"{task.world['n']} bulbs on"}]
    assert not line["flags"]["replay_mismatch"] and summary["overall"]["success_rate"] == 100.0


def test_an_old_run_json_without_the_harness_is_arena_gens(
        suite_dir: Path, task: Task, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rundir = play_run(suite_dir, task, tmp_path / "own", None, monkeypatch)
    meta = json.loads(rundir.run_json.read_text())
    del meta["harness"]
    rundir.run_json.write_text(json.dumps(meta))
    [record] = rundir.records()
    rewrite(rundir, [{k: v for k, v in record.items() if k != "budget"}])
    summary = score_run(rundir.path)
    [line] = findings_of(rundir)
    assert [f["item"] for f in line["findings"]] == ["all_on"]
    assert not line["flags"]["replay_mismatch"] and summary["run"]["harness"] == "arena-gen"


def test_judge_record_without_a_run_uses_the_recorded_harness(odyssey_run: RunDir,
                                                               task: Task) -> None:
    [record] = odyssey_run.records()
    line = judge_record(task, record)
    assert [f["status"] for f in line["findings"]] == ["met"]
    assert not line["flags"]["replay_mismatch"]
    # a harness this version does not know falls back to arena-gen's, and is flagged
    odd = judge_record(task, {**record, "harness": "mine"})
    assert odd["flags"]["replay_mismatch"]
    assert {f["item"]: f["status"] for f in odd["findings"]} == {
        "all_on": "violated", BUDGET_ITEM: "violated"}


def test_inspect_scores_the_odyssey_success_under_200(suite_dir: Path, task: Task) -> None:
    pytest.importorskip("inspect_ai")
    import tempfile

    from inspect_ai import Task as EvalTask
    from inspect_ai import eval as inspect_eval
    from inspect_ai.solver import solver

    from arena_gen.inspect import judge_scorer, suite_dataset
    from arena_gen.inspect.solver import play

    @solver
    def scripted():  # type: ignore[no-untyped-def]
        async def solve(state, generate):  # type: ignore[no-untyped-def]
            return await play(state, WasteThenWitness(task.certificate.witness, "odyssey"))
        return solve

    for harness in (None, "odyssey"):  # None: the harness the trajectory records
        eval_task = EvalTask(dataset=suite_dataset(str(suite_dir)), solver=scripted(),
                             scorer=judge_scorer(harness=harness))
        [log] = inspect_eval(eval_task, model="mockllm/model", display="none",
                             log_dir=tempfile.mkdtemp(), log_samples=True)
        assert log.status == "success", log.error
        [sample] = log.samples
        score = sample.scores["judge_scorer"]
        steps = WASTED + len(task.certificate.witness)
        floor = task.certificate.min_steps
        assert floor is not None
        assert score.value == {"success": 1.0, "credit": 100.0, "steps": float(steps),
                               "agent_error": 0.0, "env_error": 0.0, "pass_at_k": 1.0,
                               "induction_efficiency": (floor / steps) ** 2}
        assert score.metadata["budget"] == ODYSSEY
        assert not score.metadata["flags"]["replay_mismatch"]


def test_play_refuses_a_folder_of_another_harness(suite_dir: Path, task: Task,
                                                  tmp_path: Path) -> None:
    from arena_gen.core.errors import ArenaGenError
    from arena_gen.runner.play import play_task

    manifest = read_suite(suite_dir).manifest
    out = tmp_path / "play"
    rundir, record = play_task(task, WasteThenWitness(task.certificate.witness, "odyssey"),
                               manifest=manifest, suite_path=suite_dir, out=out)
    meta = rundir.read_meta()
    assert (meta["harness"], meta["budgets"], record["budget"]) == (
        "odyssey", {task.id: ODYSSEY}, ODYSSEY)
    with pytest.raises(ArenaGenError, match="harness"):
        play_task(task, WasteThenWitness(task.certificate.witness), manifest=manifest,
                  suite_path=suite_dir, out=out)


def test_task_replace_keeps_the_owner_in_step(task: Task) -> None:
    # a task whose own budget is above 200 keeps the odyssey harness's 200 steps for lights
    big = dataclasses.replace(task, budget=500)
    assert harness_budget("odyssey", big) == ODYSSEY and harness_budget("arena-gen", big) == 500
