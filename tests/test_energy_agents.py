"""Energy judge, oracle and period-aware heuristic, played through the real runner."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_energy_env import small_task, v1_tasks
from test_energy_import import released_tasks

from arena_gen.agents.oracle import OracleAgent
from arena_gen.agents.random_agent import RandomAgent
from arena_gen.core import registry
from arena_gen.core.episode import run_episode
from arena_gen.envs.energy.agents.heuristic import (
    EnergyHeuristicAgent,
    estimate_period,
    parse_rules,
)
from arena_gen.scoring.judge import judge
from arena_gen.suite.build import generate_task


def _status(findings: list[dict]) -> dict[str, str]:  # type: ignore[type-arg]
    return {f["item"]: f["status"] for f in findings}


def test_oracle_meets_every_item() -> None:
    task = v1_tasks(count=1)[0]
    traj = run_episode(task, OracleAgent(), mode="inductive")
    assert traj["success"] and traj["steps"] == 120
    findings, mismatch = judge(task, traj)
    assert _status(findings) == {"survived": "met", "stable": "met", "low_carbon": "met"}
    assert not mismatch


def test_collapse_is_judged() -> None:
    task = small_task()

    class Idle:
        name, privileged = "idle", False

        def reset(self, *args: object) -> None: ...

        def act(self, observation: str) -> str:
            return "{}"

    traj = run_episode(task, Idle())
    assert traj["steps"] == 3 and traj["end_reason"] == "terminated"
    found, mismatch = judge(task, traj)
    assert _status(found) == {"survived": "violated", "stable": "violated",
                              "low_carbon": "violated"}
    assert "collapsed after day 2" in found[0]["evidence"] and not mismatch
    # The judge replays the actions: no turns is day 0, and a claimed success is not trusted.
    empty, mismatch = judge(task, {"final_info": {}})
    assert _status(empty)["survived"] == "violated" and not mismatch
    assert "stopped at day 0 of 12" in empty[0]["evidence"]
    _, mismatch = judge(task, {**traj, "success": True})
    assert mismatch


def test_random_agent_runs() -> None:
    task = small_task()
    traj = run_episode(task, RandomAgent())
    assert traj["steps"] >= 1 and all(t["valid"] for t in traj["turns"])


def test_heuristic_is_registered_and_parses_rules() -> None:
    assert registry.get("energy", 1).load("heuristic") is EnergyHeuristicAgent
    periods, shift = parse_rules(generate_task("energy", "lite", 7, 0, version=1).task.rules_text)
    assert periods is not None and shift is None
    text = ("Wind efficiency follows a pattern that repeats every 17 days and solar efficiency "
            "one that repeats every 23 days.\nOn day 400 the patterns shift once: from that day "
            "on, wind repeats every 19 days and solar every 15 days, counted from day 400.")
    assert parse_rules(text) == ({"wind": 17, "solar": 23}, (400, {"wind": 19, "solar": 15}))


def test_estimate_period_finds_the_lag() -> None:
    task = v1_tasks(count=1)[0]
    w = task.world
    series = dict(enumerate(w["eff_wind"][:80]))
    assert estimate_period(series, 80) == w["wind_period"]
    assert estimate_period(dict(enumerate(w["eff_wind"][:5])), 5) is None


@pytest.mark.slow
def test_heuristic_on_released_configs(shared_dir: Path) -> None:
    """Measured baseline: with the periods disclosed it wins about 13 of 30; it always plays
    valid actions, and most episodes reach the horizon."""
    tasks = released_tasks(shared_dir)
    for mode, floor in (("with-rules", 8), ("inductive", 6)):
        wins = survived = 0
        for task in tasks:
            traj = run_episode(task, EnergyHeuristicAgent(), mode=mode)
            assert all(t["valid"] for t in traj["turns"])
            wins += traj["success"]
            survived += _status(judge(task, traj)[0])["survived"] == "met"
        assert wins >= floor and survived >= 24, (mode, wins, survived)
