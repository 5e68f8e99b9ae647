"""The runner: episodes, run directories, resume after SIGKILL, agents, Gymnasium access."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import gymnasium
import pytest
from conftest import built_tasks

import arena_gen  # noqa: F401  (registers the Gymnasium ids)
from arena_gen.agents.human import HumanAgent
from arena_gen.core import registry
from arena_gen.core.episode import InfraError, run_episode
from arena_gen.core.errors import ArenaGenError, SchemaError
from arena_gen.core.suite_io import write_suite
from arena_gen.runner.run import RunConfig, run_suite
from arena_gen.runner.rundir import RunDir, line_digest
from arena_gen.scoring.score import score_run
from arena_gen.suite.build import build_suite

TIMING = ("latency", "seconds")


@pytest.fixture(scope="module")
def lite_lights(tmp_path_factory: pytest.TempPathFactory) -> Path:
    built = build_suite("lite", 7, ["lights"])
    return write_suite(tmp_path_factory.mktemp("suite") / "lite", built.manifest, built.tasks)


def strip_timing(obj):
    if isinstance(obj, dict):
        return {k: strip_timing(v) for k, v in obj.items() if k not in TIMING}
    if isinstance(obj, list):
        return [strip_timing(v) for v in obj]
    return obj


def test_oracle_solves_every_task_in_min_steps(lite_lights: Path, tmp_path: Path) -> None:
    rundir = run_suite(RunConfig(suite=str(lite_lights), agent="oracle", out=str(tmp_path / "r")))
    records = rundir.records()
    assert len(records) == 30
    assert all(r["success"] and r["end_reason"] == "success" for r in records)
    assert all(r["steps"] == r["min_steps"] for r in records)
    meta = json.loads((tmp_path / "r" / "run.json").read_text())
    assert meta["suite_sha256"] and meta["package_versions"]["arena-gen"] == arena_gen.__version__


def test_random_agent_is_seeded_per_task_and_attempt(lite_lights: Path, tmp_path: Path) -> None:
    a = run_suite(RunConfig(suite=str(lite_lights), agent="random", attempts=2, jobs=1,
                            out=str(tmp_path / "a"), tasks=["lights-lite-7-0001"]))
    b = run_suite(RunConfig(suite=str(lite_lights), agent="random", attempts=2, jobs=2,
                            out=str(tmp_path / "b"), tasks=["lights-lite-7-0001"]))
    ra, rb = strip_timing(a.records()), strip_timing(b.records())
    assert ra == rb
    assert ra[0]["turns"] != ra[1]["turns"]  # attempts differ
    assert all(t["action"].isdigit() for t in ra[0]["turns"])


def test_a_run_reads_only_the_tasks_it_plays(lite_lights: Path, tmp_path: Path) -> None:
    """``--tasks ID`` validates that task alone (a whole read of Lite was most of a run's
    start-up): a damaged other line does not stop it, the damaged line itself does, and
    ``score`` (which reads the whole suite) still refuses the damaged suite."""
    suite = tmp_path / "suite"
    shutil.copytree(lite_lights, suite)
    path = suite / "lights.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:29]) + "{not json\n", encoding="utf-8")  # the 30th task
    rundir = run_suite(RunConfig(suite=str(suite), agent="oracle", out=str(tmp_path / "r"),
                                 tasks=["lights-lite-7-0001"]))
    assert [(r["task_id"], r["success"]) for r in rundir.records()] == [
        ("lights-lite-7-0001", True)]
    with pytest.raises(SchemaError, match="lights.jsonl:30"):
        run_suite(RunConfig(suite=str(suite), agent="oracle", out=str(tmp_path / "r2"),
                            tasks=["lights-lite-7-0029"]))
    with pytest.raises(SchemaError, match="lights.jsonl:30"):
        score_run(tmp_path / "r")
    assert not (tmp_path / "r2").exists()


def test_existing_run_needs_resume(lite_lights: Path, tmp_path: Path) -> None:
    cfg = RunConfig(suite=str(lite_lights), agent="oracle", out=str(tmp_path / "r"),
                    tasks=["lights-lite-7-0000"])
    run_suite(cfg)
    with pytest.raises(Exception, match="--resume"):
        run_suite(cfg)
    cfg.resume = True
    assert len(run_suite(cfg).records()) == 1
    cfg.attempts = 2
    with pytest.raises(Exception, match="attempts differs"):
        run_suite(cfg)


def test_torn_line_is_repaired_on_resume(lite_lights: Path, tmp_path: Path) -> None:
    cfg = RunConfig(suite=str(lite_lights), agent="oracle", out=str(tmp_path / "r"),
                    tasks=["lights-lite-7-0000", "lights-lite-7-0001"])
    run_suite(cfg)
    full = strip_timing(RunDir(cfg.out).records())
    path = Path(cfg.out) / "trajectories.jsonl"
    first, second = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(first + second[:50])  # killed mid-write of line 2
    meta = json.loads((Path(cfg.out) / "run.json").read_text())
    meta["chain"] = {"head": line_digest(first), "pending": line_digest(second)}  # as then
    (Path(cfg.out) / "run.json").write_text(json.dumps(meta))
    cfg.resume = True
    run_suite(cfg)
    assert strip_timing(RunDir(cfg.out).records()) == full


def test_sigkill_then_resume_equals_uninterrupted(lite_lights: Path, tmp_path: Path) -> None:
    args = ["--suite", str(lite_lights), "--agent", "random", "--attempts", "12",
            "--display", "none"]
    whole = tmp_path / "whole"
    subprocess.run([sys.executable, "-m", "arena_gen.cli", "run", *args, "--out", str(whole)],
                   check=True)
    killed = tmp_path / "killed"
    proc = subprocess.Popen([sys.executable, "-m", "arena_gen.cli", "run", *args,
                             "--out", str(killed)])
    lines = killed / "trajectories.jsonl"
    deadline = time.time() + 60
    while time.time() < deadline and proc.poll() is None:
        if lines.is_file() and lines.read_bytes().count(b"\n") >= 40:
            break
        time.sleep(0.002)
    assert proc.poll() is None, "the run finished before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    partial = lines.read_bytes().count(b"\n")
    assert 40 <= partial < 360
    subprocess.run([sys.executable, "-m", "arena_gen.cli", "run", *args, "--out", str(killed),
                    "--resume"], check=True)
    assert strip_timing(RunDir(killed).records()) == strip_timing(RunDir(whole).records())
    assert len(RunDir(killed).records()) == 360


class Flaky:
    name = "flaky"
    privileged = False

    def __init__(self, fail_with: Exception) -> None:
        self.fail_with = fail_with
        self.turn = 0

    def reset(self, view, mode, rng) -> None:
        self.turn = 0

    def act(self, observation: str) -> str:
        self.turn += 1
        if self.turn == 3:
            raise self.fail_with
        return "0"


def test_agent_failures_end_the_attempt_with_a_reason() -> None:
    task = built_tasks("lights", count=1)[0]
    rec = run_episode(task, Flaky(InfraError("HTTP 503 after 5 retries")))
    assert rec["end_reason"] == "infra_error" and rec["steps"] == 2
    assert "503" in rec["error"]
    rec = run_episode(task, Flaky(ZeroDivisionError("bug")))
    assert rec["end_reason"] == "agent_error" and "ZeroDivisionError" in rec["error"]


def test_human_agent_sees_the_agent_observation() -> None:
    task = built_tasks("lights", count=1)[0]
    shown: list[str] = []
    plan = iter(list(task.certificate.witness))
    agent = HumanAgent(read=lambda prompt: next(plan), write=shown.append)
    rec = run_episode(task, agent, mode="with-rules")
    assert rec["success"] and rec["steps"] == task.certificate.min_steps
    assert any("Rules:" in s for s in shown) and any("State: off" in s for s in shown)


def test_gymnasium_make_drives_one_task_per_env(env_name: str) -> None:
    spec = registry.get(env_name)
    task = built_tasks(env_name, count=1)[0]
    env = gymnasium.make(spec.gym_id, task=task)
    obs, info = env.reset(seed=0)
    assert isinstance(obs, str) and info["valid"]
    for action in task.certificate.witness:
        obs, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break
    assert info["success"]
    env.close()


def test_gymnasium_make_without_a_task_says_what_it_needs(env_name: str) -> None:
    spec = registry.get(env_name)
    with pytest.raises(ArenaGenError, match=r"needs a task: gymnasium.make\(.*task=TASK"):
        gymnasium.make(spec.gym_id)


def test_summarize_counts_the_trajectory_success_without_judging() -> None:
    from arena_gen.runner.run import summarize

    records = [
        {"env": "lights", "success": True, "end_reason": "success", "steps": 4, "seconds": 0.5},
        {"env": "lights", "success": False, "end_reason": "budget", "steps": 9, "seconds": 0.25},
        {"env": "repo", "success": False, "end_reason": "infra_error", "steps": 1},
        {"env": "repo", "success": False, "end_reason": "env_error", "steps": 2},
        {"env": "repo", "success": False, "end_reason": "agent_error", "steps": 0},
    ]
    assert summarize(records) == {
        "lights": {"episodes": 2, "success": 1, "infra_error": 0, "env_error": 0,
                   "agent_error": 0, "turns": 13, "seconds": 0.75},
        "repo": {"episodes": 3, "success": 0, "infra_error": 1, "env_error": 1,
                 "agent_error": 1, "turns": 3, "seconds": 0.0},
    }
