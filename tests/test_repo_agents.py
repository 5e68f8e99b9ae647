"""Repo judge and agents: rubric findings, the oracle, the error-driven heuristic."""

from __future__ import annotations

import numpy as np
from conftest import built_tasks_of
from test_repo_worlds import hand_world, task_of

from arena_gen.agents.registry import make_agent
from arena_gen.core import registry
from arena_gen.core.agent import TaskView
from arena_gen.envs.repo.agents.heuristic_v1 import RepoHeuristicAgent
from arena_gen.scoring.judge import judge


def run_agent(agent: object, task: object, mode: str = "inductive") -> dict:
    """A trajectory as the runner records it: the actions, the final info and the success."""
    env = registry.make_env(task)
    obs, info = env.reset()
    agent.reset(TaskView.of(task, mode, privileged=getattr(agent, "privileged", False)),  # type: ignore[attr-defined]
                mode, np.random.default_rng(0))
    turns = []
    for _ in range(env.budget):
        action = agent.act(obs)  # type: ignore[attr-defined]
        obs, _, terminated, truncated, info = env.step(action)
        turns.append({"action": action})
        if terminated or truncated:
            break
    return {"turns": turns, "final_info": info, "success": env.success}


def test_judge_items_and_partial_credit() -> None:
    task = built_tasks_of("repo", 1, count=1)[0]
    ids = [r.id for r in task.rubric]
    assert ids == ["run_ok", "script_smoke_ok", "script_check_io_ok", "script_smoke_model_ok",
                   "script_run_train_ok", "script_run_eval_ok"]
    oracle = make_agent("oracle", "repo")
    findings, mismatch = judge(task, run_agent(oracle, task))
    assert [f["item"] for f in findings] == ids and not mismatch
    assert all(f["status"] == "met" for f in findings)
    findings, mismatch = judge(task, {})  # nothing played: the empty start state
    assert [f["status"] for f in findings] == ["violated"] * 6 and not mismatch
    # Partial credit: the witness without its final run passes every script, but run_ok fails.
    body = [{"action": a} for a in task.certificate.witness[:-1]]
    findings, mismatch = judge(task, {"turns": body, "success": False})
    assert [f["status"] for f in findings] == ["violated"] + ["met"] * 5 and not mismatch
    claimed = {"turns": body, "success": False, "final_info": {"run_ok": True}}
    assert judge(task, claimed)[1]  # a recorded state the replay refutes


def test_heuristic_solves_hand_world() -> None:
    trajectory = run_agent(RepoHeuristicAgent(), task_of(hand_world(), budget=60))
    assert trajectory["final_info"]["run_ok"] and trajectory["success"]


def test_heuristic_plays_lite_tasks_validly() -> None:
    wins = 0
    for task in built_tasks_of("repo", 1, count=2):
        env = registry.make_env(task)
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
