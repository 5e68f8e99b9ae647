"""Repo judge and agents: rubric findings, the oracle, the error-driven heuristic."""

from __future__ import annotations

import numpy as np
from arena_gen.scoring.judges.repo import judge
from conftest import built_tasks
from test_repo_worlds import hand_world, task_of

from arena_gen.agents.base import TaskView
from arena_gen.agents.repo_heuristic import RepoHeuristicAgent
from arena_gen.core import registry
from arena_gen.envs.repo import RepoEnv


def run_agent(agent: object, task: object, mode: str = "inductive") -> dict:
    env = RepoEnv(task)
    obs, info = env.reset()
    agent.reset(TaskView.of(task, mode, privileged=getattr(agent, "privileged", False)),  # type: ignore[attr-defined]
                mode, np.random.default_rng(0))
    for _ in range(env.budget):
        obs, _, terminated, truncated, info = env.step(agent.act(obs))  # type: ignore[attr-defined]
        if terminated or truncated:
            break
    return info


def test_judge_items_and_partial_credit() -> None:
    task = built_tasks("repo", count=1)[0]
    ids = [r.id for r in task.rubric]
    assert ids == ["run_ok", "script_smoke_ok", "script_check_io_ok", "script_smoke_model_ok",
                   "script_run_train_ok", "script_run_eval_ok"]
    oracle = registry.get("repo").load("oracle")()
    findings = judge(task, {"final_info": run_agent(oracle, task)})
    assert [f["item"] for f in findings] == ids
    assert all(f["status"] == "met" for f in findings)
    env = RepoEnv(task)
    _, info = env.reset()
    findings = judge(task, {"final_info": info})
    assert [f["status"] for f in findings] == ["violated"] * 6
    assert judge(task, {"final_info": {}})[0]["status"] == "not_assessable"


def test_heuristic_solves_hand_world() -> None:
    info = run_agent(RepoHeuristicAgent(), task_of(hand_world(), budget=60))
    assert info["run_ok"]


def test_heuristic_plays_lite_tasks_validly() -> None:
    wins = 0
    for task in built_tasks("repo", count=2):
        env = RepoEnv(task)
        obs, _ = env.reset()
        agent = RepoHeuristicAgent()
        agent.reset(TaskView.of(task, "inductive"), "inductive", np.random.default_rng(1))
        for _ in range(task.budget):
            obs, _, terminated, truncated, info = env.step(agent.act(obs))
            assert info["valid"], info["feedback"]
            if terminated or truncated:
                break
        wins += env.success
        assert env.turn >= task.certificate.min_steps or not env.success
    assert wins >= 1
