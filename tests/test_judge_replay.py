"""The judge replays every trajectory: a forged outcome is flagged and scored by the replay."""

from __future__ import annotations

from conftest import built_tasks

from arena_gen.core.episode import run_episode
from arena_gen.core.registry import make_env
from arena_gen.scoring.judge import judge
from arena_gen.scoring.score import judge_record


def test_honest_oracle_trajectory_is_met_and_not_flagged() -> None:
    from arena_gen.agents.oracle import OracleAgent

    task = built_tasks("lights", count=1)[0]
    record = run_episode(task, OracleAgent())
    findings, mismatch = judge(task, record)
    assert [f["status"] for f in findings] == ["met"] and not mismatch


def test_forged_one_turn_success_is_flagged_and_scored_by_the_replay() -> None:
    task = built_tasks("lights", count=1)[0]
    env = make_env(task)
    env.reset()
    _, _, _, _, info = env.step("0")
    n = task.world["n"]
    forged = {"task_id": task.id, "env": "lights", "attempt": 0, "steps": 1, "success": True,
              "end_reason": "success",
              "final_info": {**info, "state": (1 << n) - 1, "bulbs_on": n, "success": True},
              "turns": [{"turn": 1, "action": "0", "valid": True}]}
    line = judge_record(task, forged)
    assert line["flags"]["replay_mismatch"] and line["flags"]["reward_hacking_suspected"]
    assert [f["status"] for f in line["findings"]] == ["violated"]
    on = bin(info["state"]).count("1")
    assert line["findings"][0]["evidence"] == f"final state: {on}/{n} bulbs on"
