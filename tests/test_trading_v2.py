"""Trading v2: the planner rubric, the W-known planner, the pinned ladder, v1 left unchanged."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from arena_gen.core import registry
from arena_gen.core.agent import TaskView
from arena_gen.core.episode import run_episode
from arena_gen.core.game_env import GameEnv
from arena_gen.core.seeds import seed_path
from arena_gen.core.task import Task
from arena_gen.envs.trading.agents.planner import TradingPlannerAgent
from arena_gen.envs.trading.game_v1 import TradingGame
from arena_gen.envs.trading.game_v2 import TradingGameV2
from arena_gen.envs.trading.policies import parse_rules_matrix
from arena_gen.envs.trading.sampler_v1 import make_draft
from arena_gen.envs.trading.sampler_v2 import CALIBRATION, NEWS_RULE
from arena_gen.envs.trading.verify_v2 import verify
from arena_gen.suite.build import generate_task
from arena_gen.suite.ladder import climb
from arena_gen.suite.verify import check_task

ROOT = Path(__file__).resolve().parents[1]
#: The noise-free 3 x 2 task of test_trading_strategies: integer W, 2-decimal news, so shown
#: data is exact and the W-known planner forecasts tomorrow's prices exactly.
MATRIX = [[3.0, -1.0], [1.0, 2.0], [-2.0, 1.0]]
CHANGES = [[0.05, 0.04], [-0.03, -0.03], [0.02, 0.03], [-0.04, -0.05], [0.06, 0.05],
           [0.01, 0.02], [-0.02, -0.01], [0.04, -0.04], [-0.05, 0.03], [0.03, -0.02],
           [-0.01, 0.04], [0.02, -0.05], [0.03, 0.02], [-0.02, 0.03], [0.05, -0.01],
           [-0.04, 0.02]]


def hand_task(share: float = 0.9) -> Task:
    """The hand task as a v2 task (planner rubric at ``share``), certified by the v2 verifier."""
    draft = make_draft(matrix=MATRIX, initial_prices=[20.0, 35.5, 50.25], changes=CHANGES,
                       noise=[[0.0] * 3 for _ in CHANGES], noise_scale=0.0, cost_rate=0.0,
                       initial_cash=1000.0, min_oracle_profit=0.0,
                       extra_params={"w_max": 3.0, "planner_share": share,
                                     "min_planner_profit": 0.0},
                       game=TradingGameV2, rules_note=NEWS_RULE)
    return Task(id="trading-custom-0-0000", env="trading", env_version=2, suite="custom",
                seed_path=seed_path(0, "custom", 2, 0, 0), params=draft.params,
                budget=draft.budget, public=draft.public, world=draft.world,
                rules_text=draft.rules_text, rubric=draft.rubric, certificate=verify(draft))


def test_planner_on_the_hand_task_is_the_oracle_up_to_its_slack() -> None:
    """With exact news and no noise, knowing W is perfect foresight: the planner takes the
    oracle's positions (1056.52, pinned in test_trading_strategies) but sizes buys at half a
    cent above the shown price (it cannot know the unrounded one), so it ends 0.11 lower."""
    cert = hand_task().certificate
    facts = cert.facts
    assert facts["oracle_final_value"] == 1056.52 and facts["planner_final_value"] == 1056.41
    assert facts["planner_growth"] == round(math.log(1.05641), 6)
    assert cert.verifier_version == 2


def test_ladder_of_the_hand_task_is_pinned() -> None:
    """Hand check: 90 % of log(1.05641) needs a final value of 1000 e^0.0494 = 1050.6. The
    learners lose days 0-2 (or 0-3) to learning and end at 1047.74 (1047.06 conservative,
    1035.81 correlation): all fail; random never gains 5 %; the planner passes."""
    ladder = climb(hand_task(), CALIBRATION["lite"])
    assert list(ladder) == ["random", "heuristic", "conservative", "correlation", "progressive",
                            "ridge", "rolling", "planner"]
    assert {rung: row["successes"] for rung, row in ladder.items()} == {
        "random": 0, "heuristic": 0, "conservative": 0, "correlation": 0, "progressive": 0,
        "ridge": 0, "rolling": 0, "planner": 1}
    assert all(r["steps"] == 16 for row in ladder.values() for r in row["results"])
    values = {rung: row["results"][0]["value"] for rung, row in ladder.items()}
    assert values["planner"] == pytest.approx(0.05641, abs=5e-6)
    assert values["progressive"] == values["ridge"] == values["rolling"] == \
        pytest.approx(0.04774, abs=5e-6)
    assert values["conservative"] == pytest.approx(0.04706, abs=5e-6)
    assert values["correlation"] == pytest.approx(0.03581, abs=5e-6)
    assert ladder["planner"]["results"][0]["credit"] == 1.0
    assert ladder["heuristic"]["results"][0]["credit"] == pytest.approx(2 / 3, abs=1e-6)
    # At a share the least-squares learners reach (0.84-0.85 of the planner's growth; correlation
    # 0.64) they pass.
    low = climb(hand_task(share=0.8), CALIBRATION["lite"])
    assert low["ridge"]["successes"] == 1 and low["correlation"]["successes"] == 0


def test_planner_reads_the_rules_text_never_the_world() -> None:
    task = hand_task()
    view = TaskView(task_id=task.id, env="trading", budget=task.budget, public=task.public,
                    rules_text=task.rules_text, world=None, env_version=2)
    agent = TradingPlannerAgent()
    agent.reset(view, "with-rules", np.random.default_rng(0))
    game = TradingGameV2(task)
    env = GameEnv(game)
    obs, _ = env.reset()
    while not game.done(env.state):
        obs, *_ = env.step(agent.act(obs))
    assert round(game.value(env.state), 2) == task.certificate.facts["planner_final_value"]
    record = run_episode(task, TradingPlannerAgent(), mode="with-rules")
    assert record["success"] and record["steps"] == 16
    with pytest.raises(ValueError, match="with-rules"):
        agent.reset(TaskView.of(task, "inductive"), "inductive", np.random.default_rng(0))


def test_rules_text_discloses_w_exactly_and_the_news_rounding() -> None:
    task = generate_task("trading", "lite", 7, 0).task
    world = task.world
    matrix = parse_rules_matrix(task.rules_text, world["stocks"], world["factors"])
    assert matrix.tolist() == world["matrix"]
    assert NEWS_RULE in task.rules_text
    with pytest.raises(ValueError, match="no factor row for S0"):
        parse_rules_matrix("nothing here", ["S0"], ["F0"])


def test_v2_presets_build_calibrated_tasks() -> None:
    """Trading v2 (the default until 2026-12-02): a built task carries its ladder and
    re-verifies."""
    assert not registry.get("trading", 2).preview
    gen = generate_task("trading", "lite", 7, 1, version=2)
    task = gen.task
    assert task.env_version == 2 and [r.id for r in task.rubric][-1] == "planner_growth"
    ladder = task.certificate.facts["ladder"]
    assert ladder["planner"]["successes"] == 1 and ladder["random"]["successes"] == 0
    assert set(ladder) >= {"conservative", "correlation", "progressive", "ridge", "rolling"}
    assert "optimal" not in ladder                    # it reads the world: no baseline
    assert check_task(task).ok


def test_v1_is_unchanged() -> None:
    """v1 keeps its game, rubric and bytes: the released suite's first trading task rebuilds."""
    spec = registry.get("trading", 1)
    assert spec.load("game") is TradingGame and spec.planner is None
    task = generate_task("trading", "lite", 7, 0, version=1).task
    assert [r.id for r in task.rubric] == ["profitable", "beats_hold", "half_oracle"]
    # the hash of the task in the v1 Lite suite (released until the calibrated rebuild)
    assert task.sha256 == "d15a4af445a8db4a244a7fee153563d3d1b99be635c32ab72b779adf1e0f4ee2"
