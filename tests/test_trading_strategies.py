"""The paper's scripted trading strategies: pinned play on a noise-free task, each one's rule."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from arena_gen.agents.registry import agent_names, env_agents, make_agent
from arena_gen.cli.run import command as run_command
from arena_gen.core.episode import run_episode
from arena_gen.core.errors import ArenaGenError
from arena_gen.core.seeds import seed_path
from arena_gen.core.task import Task
from arena_gen.envs.trading.agents.strategies import (
    ROLLING_WINDOW,
    STRATEGIES,
    Correlation,
    LeastSquares,
    TradingStrategyAgent,
)
from arena_gen.envs.trading.game_v1 import parse_order
from arena_gen.envs.trading.sampler_v1 import make_draft
from arena_gen.envs.trading.verify_v1 import verify
from arena_gen.suite.importer import import_tasks

#: A 3 x 2 world in which shown data is exact: integer W, 2-decimal news, prices in cents.
MATRIX = [[3.0, -1.0], [1.0, 2.0], [-2.0, 1.0]]
#: The two factors' news move together for seven days, then apart (correlation's blind spot).
CHANGES = [[0.05, 0.04], [-0.03, -0.03], [0.02, 0.03], [-0.04, -0.05], [0.06, 0.05],
           [0.01, 0.02], [-0.02, -0.01], [0.04, -0.04], [-0.05, 0.03], [0.03, -0.02],
           [-0.01, 0.04], [0.02, -0.05], [0.03, 0.02], [-0.02, 0.03], [0.05, -0.01],
           [-0.04, 0.02]]

#: Final values on that task (initial cash 1000), measured and pinned.
FINAL = {"optimal": 1056.52, "conservative": 1047.06, "progressive": 1047.74,
         "correlation": 1035.81, "rolling": 1047.74, "ridge": 1047.74}


def hand_task() -> Task:
    """The hand-built noise-free task, certified like an imported one."""
    draft = make_draft(matrix=MATRIX, initial_prices=[20.0, 35.5, 50.25], changes=CHANGES,
                       noise=[[0.0] * 3 for _ in CHANGES], noise_scale=0.0, cost_rate=0.0,
                       initial_cash=1000.0, min_oracle_profit=0.0)
    return Task(id="trading-custom-0-0000", env="trading", env_version=1, suite="custom",
                seed_path=seed_path(0, "custom", 2, 0, 0), params=draft.params,
                budget=draft.budget, public=draft.public, world=draft.world,
                rules_text=draft.rules_text, rubric=draft.rubric, certificate=verify(draft))


def play(task: Task, strategy: str) -> dict:
    """One runner episode of a strategy agent; it must end at the horizon, not on an error."""
    record = run_episode(task, make_agent(f"trading-{strategy}", "trading"))
    assert record["end_reason"] in ("success", "budget"), record.get("error")
    assert record["steps"] == task.budget
    return record


def positions(record: dict) -> list[tuple[int, ...]]:
    """The holdings after each day, as a tuple of share counts per stock."""
    return [tuple(t["state"]["holdings"].values()) for t in record["turns"]]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_each_strategy_on_a_noise_free_task(strategy: str) -> None:
    task = hand_task()
    record = play(task, strategy)
    assert record["final_info"]["total_value"] == pytest.approx(FINAL[strategy], abs=0.005)
    again = play(task, strategy)  # deterministic: the same orders every time
    assert [t["action"] for t in again["turns"]] == [t["action"] for t in record["turns"]]


def test_optimal_plays_the_certificate_witness() -> None:
    task = hand_task()
    record = play(task, "optimal")
    assert [t["action"] for t in record["turns"]] == task.certificate.witness
    assert round(record["final_info"]["total_value"], 2) == \
        task.certificate.facts["oracle_final_value"]


@pytest.mark.parametrize("strategy, start", [("progressive", 3), ("rolling", 3), ("ridge", 3),
                                             ("conservative", 4)])
def test_exact_learners_hold_then_take_the_optimal_position(strategy: str, start: int) -> None:
    """Noise-free and fully shown, least squares recovers W once the news has rank F: from the
    first trading day on, each learner holds exactly the stock the optimal strategy holds."""
    task = hand_task()
    record = play(task, strategy)
    actions = [t["action"] for t in record["turns"]]
    assert actions[:start] == ["{}"] * start
    assert parse_order(actions[start], task.world["stocks"]).buys  # trades on its first day
    held = [tuple(q > 0 for q in day) for day in positions(record)]
    best = [tuple(q > 0 for q in day) for day in positions(play(task, "optimal"))]
    assert held[start:] == best[start:]


def test_conservative_holds_exactly_factors_plus_two_days(shared_dir: Path) -> None:
    """On released config 1 (5 x 4): 6 holds, then a trade on day 6."""
    task = released(shared_dir, [1])[0]
    n_factors = len(task.world["factors"])
    actions = [t["action"] for t in play(task, "conservative")["turns"]]
    assert n_factors == 4
    assert actions[:n_factors + 2] == ["{}"] * (n_factors + 2)
    assert actions[n_factors + 2] != "{}"


def test_correlation_errs_when_the_sampled_news_correlate() -> None:
    """Fitted on days whose two factors moved together, the per-factor slopes double-count:
    on day 5 correlation stays in S0 while W says S1 (what the least-squares learners buy)."""
    task = hand_task()
    corr, ols = positions(play(task, "correlation")), positions(play(task, "progressive"))
    assert corr[5] == (49, 0, 0) and ols[5] == (0, 28, 0)
    assert FINAL["correlation"] < min(FINAL[s] for s in STRATEGIES if s != "correlation")


def test_rolling_fits_only_the_last_window_of_days() -> None:
    rng = np.random.Generator(np.random.PCG64(3))
    old, new = rng.normal(size=(2, 4)), rng.normal(size=(2, 4))  # W^T (F x S) before, after
    rolling, full = LeastSquares(4, 2, ROLLING_WINDOW), LeastSquares(4, 2)
    for weights in (old, new):
        for _ in range(ROLLING_WINDOW):
            news = rng.normal(0, 0.1, size=2)
            rolling.update(news, news @ weights)
            full.update(news, news @ weights)
    assert len(rolling.news) == ROLLING_WINDOW and len(full.news) == 2 * ROLLING_WINDOW
    np.testing.assert_allclose(rolling.weights(), new, atol=1e-9)
    assert np.abs(full.weights() - new).max() > 0.1
    rolling.update(np.array([0.1, 0.0]), old[0] * 0.1)  # one old-regime day enters the window
    assert np.abs(rolling.weights() - new).max() > 1e-3


def test_correlation_is_least_squares_when_factors_are_uncorrelated() -> None:
    news = np.array([[1.0, 1.0], [-1.0, 1.0], [1.0, -1.0], [-1.0, -1.0]]) * 0.05
    weights = np.array([[3.0, 1.0, -2.0], [-1.0, 2.0, 1.0]])  # F x S
    corr, ols = Correlation(3, 2), LeastSquares(3, 2)
    for x in news:
        corr.update(x, x @ weights)
        ols.update(x, x @ weights)
    np.testing.assert_allclose(corr.weights(), weights, atol=1e-12)
    np.testing.assert_allclose(ols.weights(), weights, atol=1e-12)
    skewed = Correlation(3, 2)  # correlated news: each slope also absorbs the other factor
    for x in news + np.array([0.0, 0.5]) * news[:, :1]:
        skewed.update(x, x @ weights)
    assert np.abs(skewed.weights() - weights).max() > 0.1
    constant = Correlation(3, 2)
    for x in news:
        constant.update(np.array([x[0], 0.02]), x[0] * weights[0])
    np.testing.assert_allclose(constant.weights()[1], 0.0)  # no variance: no slope


def released(shared: Path, indices: list[int]) -> list[Task]:
    """Released OdysseyArena Lite trading configs, imported and certified."""
    folder = shared / "reference-data" / "odyssey-arena" / "trading"
    return import_tasks("trading", [folder / f"test_trade_config_{i}.json" for i in indices])


def test_optimal_equals_the_certificate_oracle_on_released_lite_tasks(shared_dir: Path) -> None:
    tasks = released(shared_dir, list(range(1, 31)))
    rates = []
    for task in tasks:
        record = play(task, "optimal")
        facts = task.certificate.facts
        assert [t["action"] for t in record["turns"]] == task.certificate.witness
        assert round(record["final_info"]["total_value"], 2) == facts["oracle_final_value"]
        assert round(record["final_info"]["profit_rate"], 6) == facts["oracle_profit"]
        rates.append(record["final_info"]["profit_rate"])
    assert np.mean(rates) == pytest.approx(2.1102, abs=1e-4)  # the paper's Table 8: +211.13%


def test_strategy_agents_are_registered_for_trading_only() -> None:
    strategies = [f"trading-{s}" for s in STRATEGIES]
    assert {name: env_agents()[name] for name in strategies} == {n: ["trading"] for n in strategies}
    assert set(strategies) <= set(agent_names())
    choices = next(p for p in run_command.params if p.name == "agent").type.choices
    assert set(strategies) <= set(choices)
    agent = make_agent("trading-optimal", "trading")
    assert isinstance(agent, TradingStrategyAgent) and agent.privileged
    assert agent.name == "trading-optimal"
    assert not make_agent("trading-rolling", "trading").privileged
    with pytest.raises(ArenaGenError, match="only trading tasks"):
        make_agent("trading-ridge", "lights")
    with pytest.raises(ValueError, match="unknown trading strategy"):
        TradingStrategyAgent("momentum")


def test_cli_runs_a_strategy_and_records_its_profit(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from arena_gen.cli import main
    from arena_gen.core.suite_io import suite_hash, write_suite
    from arena_gen.runner.rundir import RunDir

    task = hand_task()  # a hand-made world no preset or import re-derives: written as it is
    hashes = {task.id: task.sha256}
    manifest = {"schema_version": 1, "suite": "custom", "suite_version": 1,
                "arena_gen_version": "test", "env_versions": {"trading": task.env_version},
                "seed": 0, "presets": {"trading": {}}, "counts": {"trading": 1},
                "tasks": hashes, "suite_sha256": suite_hash(hashes), "build": {}}
    suite = write_suite(tmp_path / "suite", manifest, {"trading": [task]})
    args = ["run", "--suite", str(suite), "--agent", "trading-correlation", "--env", "trading",
            "--out", str(tmp_path / "run"), "--display", "none"]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    record, = RunDir(tmp_path / "run").records()
    assert record["agent"] == "trading-correlation"
    assert record["final_info"]["total_value"] == pytest.approx(FINAL["correlation"], abs=0.005)
