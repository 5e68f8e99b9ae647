"""Trading judge and heuristic agent: rubric findings, and the ridge learner on what it sees."""

from __future__ import annotations

import numpy as np
from arena_gen.scoring.judges.trading import judge
from conftest import built_tasks

from arena_gen.agents.base import TaskView
from arena_gen.agents.oracle import OracleAgent
from arena_gen.agents.trading_heuristic import (
    RidgeLearner,
    TradingHeuristicAgent,
    parse_observation,
)
from arena_gen.core import registry
from arena_gen.envs.trading import TradingEnv


def play(task, agent, mode: str = "inductive", *, privileged: bool = False):  # noqa: ANN001,ANN201
    env = TradingEnv(task)
    obs, info = env.reset()
    agent.reset(TaskView.of(task, mode, privileged=privileged), mode,
                np.random.Generator(np.random.PCG64(0)))
    done = False
    while not done:
        obs, _, terminated, truncated, info = env.step(agent.act(obs))
        done = terminated or truncated
    return {"final_info": info}


class Holder:
    """Always holds cash."""

    def reset(self, *args: object) -> None:
        pass

    def act(self, observation: str) -> str:
        return "{}"


def statuses(findings: list[dict]) -> dict[str, str]:
    return {f["item"]: f["status"] for f in findings}


def test_oracle_meets_every_item() -> None:
    for task in built_tasks("trading", count=2):
        findings = judge(task, play(task, OracleAgent(), privileged=True))
        assert statuses(findings) == {"profitable": "met", "beats_hold": "met",
                                      "half_oracle": "met"}
        assert "100.0% of the oracle" in findings[2]["evidence"]


def test_holding_cash_meets_nothing_above_zero() -> None:
    task = built_tasks("trading", count=1)[0]
    findings = statuses(judge(task, play(task, Holder())))
    assert findings["profitable"] == "violated" and findings["half_oracle"] == "violated"
    hold = task.certificate.facts["hold_profit"]
    assert findings["beats_hold"] == ("met" if hold < 0 else "violated")


def test_missing_or_unfinished_episodes_are_not_assessable() -> None:
    task = built_tasks("trading", count=1)[0]
    assert {f["status"] for f in judge(task, {})} == {"not_assessable"}
    early = {"final_info": {"day": 7, "total_value": 1e9}}
    findings = judge(task, early)
    assert {f["status"] for f in findings} == {"not_assessable"}
    assert "day 7 of 120" in findings[0]["evidence"]


def test_heuristic_agent_reproduces_the_certificate_baseline() -> None:
    assert registry.get("trading").load("heuristic") is TradingHeuristicAgent
    for task in built_tasks("trading", count=2):
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
    task = built_tasks("trading", count=1)[0]
    obs, _ = TradingEnv(task).reset()
    seen = parse_observation(obs)
    assert seen["day"] == 0 and seen["cash"] == 50000.0
    assert set(seen["prices"]) == set(task.world["stocks"])
    assert list(seen["news"]) == task.world["factors"]
    assert seen["news"]["F0"] == round(task.world["changes"][0][0], 2)
