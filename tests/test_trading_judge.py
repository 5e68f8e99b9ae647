"""Trading judge and heuristic agent: rubric findings, and the ridge learner on what it sees."""

from __future__ import annotations

import numpy as np
from conftest import built_tasks_of

from arena_gen.agents.oracle import OracleAgent
from arena_gen.core import registry
from arena_gen.core.agent import TaskView
from arena_gen.core.game import play as play_game
from arena_gen.envs.trading.agents.heuristic import (
    RidgeLearner,
    TradingHeuristicAgent,
    parse_observation,
)
from arena_gen.scoring.judge import judge


def play(task, agent, mode: str = "inductive", *, privileged: bool = False):  # noqa: ANN001,ANN201
    """A trajectory as the runner records it: the actions, the final info and the success."""
    env = registry.make_env(task)
    obs, info = env.reset()
    agent.reset(TaskView.of(task, mode, privileged=privileged), mode,
                np.random.Generator(np.random.PCG64(0)))
    done, turns = False, []
    while not done:
        action = agent.act(obs)
        obs, _, terminated, truncated, info = env.step(action)
        turns.append({"action": action})
        done = terminated or truncated
    return {"turns": turns, "final_info": info, "success": env.success}


class Holder:
    """Always holds cash."""

    def reset(self, *args: object) -> None:
        pass

    def act(self, observation: str) -> str:
        return "{}"


def statuses(findings: list[dict]) -> dict[str, str]:
    return {f["item"]: f["status"] for f in findings}


def test_oracle_meets_every_item() -> None:
    for task in built_tasks_of("trading", 1, count=2):
        findings, mismatch = judge(task, play(task, OracleAgent(), privileged=True))
        assert not mismatch
        assert statuses(findings) == {"profitable": "met", "beats_hold": "met",
                                      "half_oracle": "met"}
        assert "100.0% of the oracle" in findings[2]["evidence"]


def test_holding_cash_meets_nothing_above_zero() -> None:
    task = built_tasks_of("trading", 1, count=1)[0]
    trajectory = play(task, Holder())
    assert trajectory["success"] is False
    found, mismatch = judge(task, trajectory)
    findings = statuses(found)
    assert not mismatch
    assert findings["profitable"] == "violated" and findings["half_oracle"] == "violated"
    hold = task.certificate.facts["hold_profit"]
    assert findings["beats_hold"] == ("met" if hold < 0 else "violated")


def test_missing_or_unfinished_episodes_are_not_assessable() -> None:
    task = built_tasks_of("trading", 1, count=1)[0]
    findings, mismatch = judge(task, {})
    assert {f["status"] for f in findings} == {"not_assessable"} and not mismatch
    early = {"turns": [{"action": "{}"}] * 7, "final_info": {"day": 7, "total_value": 1e9},
             "success": False}
    findings, mismatch = judge(task, early)
    assert {f["status"] for f in findings} == {"not_assessable"}
    assert "day 7 of 120" in findings[0]["evidence"]
    assert mismatch  # the claimed value is not what the seven holds replay to


def test_checks_are_the_success_rule() -> None:
    """TradingGame.checks reads the certificate's baselines; success is all three met."""
    task = built_tasks_of("trading", 1, count=1)[0]
    game = registry.make_game(task)
    oracle = play_game(game, task.certificate.witness)
    checks = game.checks(game.facts(oracle.final))
    assert [c.item for c in checks] == [r.id for r in task.rubric]
    assert all(c.met for c in checks) and oracle.success
    held = play_game(game, ["{}"] * task.budget)
    assert held.final.day == 120 and not held.success
    assert game.checks(game.facts(held.final))[0].met is False
    lied = {"turns": [{"action": "{}"}] * task.budget, "success": True}
    assert judge(task, lied)[1]  # a claimed success the replay refutes


def test_heuristic_agent_reproduces_the_certificate_baseline() -> None:
    assert registry.get("trading", 2).load("heuristic") is TradingHeuristicAgent
    for task in built_tasks_of("trading", 1, count=2):
        info = play(task, TradingHeuristicAgent())["final_info"]
        assert round(info["profit_rate"], 6) == task.certificate.facts["ridge_profit"]
        assert info["refused_buys"] == 0


def test_ridge_learner_recovers_the_map_without_noise() -> None:
    rng = np.random.Generator(np.random.PCG64(1))
    w = rng.uniform(-1.8, 1.8, size=(4, 3))
    learner = RidgeLearner(4, 3, lam=1e-9)
    for _ in range(10):
        x = rng.normal(0, 0.1, size=3)
        learner.update(x, w @ x)
    probe = np.array([0.1, -0.05, 0.02])
    assert np.allclose(learner.predict(probe), w @ probe, atol=1e-6)


def test_parse_observation_reads_the_env_text() -> None:
    task = built_tasks_of("trading", 1, count=1)[0]
    obs, _ = registry.make_env(task).reset()
    seen = parse_observation(obs)
    assert seen["day"] == 0 and seen["cash"] == 50000.0
    assert set(seen["prices"]) == set(task.world["stocks"])
    assert list(seen["news"]) == task.world["factors"]
    assert seen["news"]["F0"] == round(task.world["changes"][0][0], 2)
