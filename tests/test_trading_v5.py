"""Trading v5: every day counts in the knowledge score, so no allocation rule applied to a fixed
forecast raises success: spreading evenly on uncertain days costs instead of dropping them
(#38)."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena_gen.core import registry
from arena_gen.core.agent import TaskView
from arena_gen.core.game_env import GameEnv
from arena_gen.core.seeds import attempt_seed, seed_path, task_seed
from arena_gen.core.task import Task
from arena_gen.envs.trading import policies_v3 as pol
from arena_gen.envs.trading import sampler_v4, sampler_v5, verify_v5
from arena_gen.envs.trading.agents.allocation import ALLOCATION_AGENTS
from arena_gen.envs.trading.game_v3 import KNOWLEDGE_ITEM
from arena_gen.envs.trading.game_v4 import TradingGameV4, knowledge_of_v4, tolerance_of
from arena_gen.envs.trading.game_v5 import BookV5, TradingGameV5, day_credit, parse_order_v5
from arena_gen.envs.trading.policies_v5 import ALLOCATIONS, allocation_policy
from arena_gen.suite.build import generate_task
from arena_gen.suite.verify import check_task

#: The Lite seed the allocation tests build in-process (not a tuning seed of the rule: 11-13).
ATTACK_SEED = 33


def tasks_of(suite: str, seed: int, count: int) -> list[Task]:
    """The first ``count`` v5 tasks of ``suite`` and ``seed`` as ``build`` draws them, without
    the ladder (first accepted attempt)."""
    config = sampler_v5.PRESETS[suite]
    out = []
    for index in range(count):
        root = task_seed(seed, suite, 2, index)
        for attempt in range(int(config["max_attempts"])):
            draft = sampler_v5.sample(config, attempt_seed(root, attempt))
            cert = verify_v5.verify(draft)
            if sampler_v5.accept(draft, cert) is None:
                out.append(Task(id=f"trading-{suite}-{seed}-{index:04d}", env="trading",
                                env_version=5, suite=suite,
                                seed_path=seed_path(seed, suite, 2, index, attempt),
                                params=draft.params, budget=draft.budget,
                                public=draft.public, world=draft.world,
                                rules_text=draft.rules_text, rubric=draft.rubric,
                                certificate=cert))
                break
    return out


def play(task: Task, policy: Any) -> tuple[bool, bool, dict[str, Any]]:
    """One episode on the v5 game: (v5 success, v4 success of the same days, final info).

    The v5 book carries v4's sums too (at v4's switch margin here), so the v4 verdict is v4's
    own checks on v4's score of the same episode."""
    game = TradingGameV5(task)
    game.tolerance = tolerance_of(sampler_v4.PRESETS["lite"], game.cost_rate)
    env = GameEnv(game)
    obs, _ = env.reset()
    info: dict[str, Any] = {}
    while not game.done(env.state):
        obs, _, _, _, info = env.step(policy.act(obs))
    state = env.state
    assert isinstance(state, BookV5)
    v4_params = {k: sampler_v4.PRESETS[task.suite][k] for k in ("knowledge_regret",
                                                                  "switch_margin")}
    v4_game = TradingGameV4(replace(task, params={**task.params, **v4_params}))
    facts = v4_game.facts(state)
    v4_ok = all(c.met for c in v4_game.checks(facts))
    return bool(info["success"]), v4_ok, {**info, "knowledge_v4": knowledge_of_v4(state)[0]}


@pytest.fixture(scope="module")
def lite() -> list[Task]:
    """Seed 33's thirty Lite tasks at v5."""
    return tasks_of("lite", ATTACK_SEED, 30)


def test_v5_draws_v4_worlds() -> None:
    """A v5 task is the v4 task of the same seed path with v5's rubric: the same world, v4's
    parameters without the switch margin (v5 has nothing left to forgive)."""
    config4, config5 = sampler_v4.PRESETS["lite"], sampler_v5.PRESETS["lite"]
    root = attempt_seed(task_seed(ATTACK_SEED, "lite", 2, 0), 0)
    v4, v5 = sampler_v4.sample(config4, root), sampler_v5.sample(config5, root)
    assert v4.world == v5.world and v4.public == v5.public
    v4_params = {k: v for k, v in v4.params.items() if k != "switch_margin"}
    assert v5.params == {**v4_params, "knowledge_regret": sampler_v5.KNOWLEDGE_REGRET["lite"]}


def test_the_gated_attack_gains_on_v4_and_not_on_v5(lite: list[Task]) -> None:
    """The issue's attack: the ladder's ridge forecaster, all-in only when confident and spread
    evenly otherwise, naming nothing (as a v4 agent plays). Under v4's score of the same
    episodes it passes more than 10 points above the all-in rung; under v5's, not above it."""
    rung = [play(t, pol.learner_policy(t.public, "ridge", None, "allin")) for t in lite]
    gated = [play(t, allocation_policy(t.public, "gated", name=False)) for t in lite]
    v5_rung, v4_rung = (sum(bool(r[k]) for r in rung) for k in (0, 1))
    v5_gated, v4_gated = (sum(bool(r[k]) for r in gated) for k in (0, 1))
    assert v4_gated - v4_rung > 3, (v4_gated, v4_rung)  # more than 10 points of 30 tasks
    assert v5_gated <= v5_rung, (v5_gated, v5_rung)


def test_a_named_forecast_scores_the_same_whatever_the_allocation(lite: list[Task]) -> None:
    """Naming its forecast's best place, the ridge forecaster has exactly the same knowledge
    score under every allocation (the forecast learns from prices alone, and the score reads
    only the named place), on every task."""
    for task in lite[:8]:
        scores = {a: play(task, allocation_policy(task.public, a))[2]["knowledge"]
                  for a in ALLOCATIONS}
        assert len(set(scores.values())) == 1, (task.id, scores)


@pytest.mark.parametrize("allocation", ALLOCATIONS)
def test_v5_passes_every_knowing_allocation(lite: list[Task], allocation: str) -> None:
    """Told W and naming its best place, a trader passes at least 90 % of the tasks whatever
    its allocation: all-in, confidence-gated (always confident: no error estimate), warm-up
    spread, proportional, top-2, top-3."""
    results = [play(t, allocation_policy(t.public, allocation, str(t.rules_text)))
               for t in lite[:10]]
    assert sum(ok for ok, _, _ in results) >= 9, [info["knowledge"] for _, _, info in results]


def test_v5_fails_policies_that_do_not_learn(lite: list[Task]) -> None:
    """Equal-weight hold and momentum fail, each with a knowledge score below 0.5."""
    for task in lite[:5]:
        for policy in (pol.HoldPolicy(task.public), pol.MomentumPolicy(task.public, 1)):
            ok, _, info = play(task, policy)
            assert not ok and info["knowledge"] < 0.5, (type(policy).__name__, info)


def test_expect_is_parsed_and_a_bad_one_costs_a_turn(lite: list[Task]) -> None:
    """``"expect"`` names cash or a stock and trades nothing; a value naming no place rejects
    the whole action (the day passes as a hold, graded on the book); v4 still refuses the
    key."""
    task = lite[0]
    stock = task.public["stocks"][1]
    order = parse_order_v5(json.dumps({"buy": {stock: 3}, "expect": stock}), task.public["stocks"])
    assert order.buys == [(1, 3)] and order.expect == 2
    assert parse_order_v5('{"expect": "cash"}', task.public["stocks"]).expect == 0
    assert parse_order_v5("{}", task.public["stocks"]).expect is None
    for bad in ('{"expect": "S99"}', '{"expect": 3}', '{"expect": ["cash"]}',
                '{"expect": "cash", "buy": {"S99": 1}}'):
        with pytest.raises(ValueError):
            parse_order_v5(bad, task.public["stocks"])
    with pytest.raises(ValueError, match="use only 'buy', 'sell' and 'expect'"):
        parse_order_v5('{"expect": "cash", "short": {}}', task.public["stocks"])
    with pytest.raises(ValueError):
        parse_order_v5('{"expect": "cash", "buy": ' + "[" * 5000 + "]" * 5000 + "}",
                       task.public["stocks"])
    env = GameEnv(TradingGameV5(task))
    env.reset()
    _, _, _, _, info = env.step(json.dumps({"buy": {stock: 5}, "expect": "nowhere"}))
    assert info["valid"] is False and env.state.holdings[1] == 0 and env.state.day == 1
    v4 = GameEnv(TradingGameV4(task))
    v4.reset()
    assert v4.step('{"expect": "cash"}')[4]["valid"] is False


def test_allocation_agents_play_their_policies(lite: list[Task]) -> None:
    """Every allocation agent plays exactly its policy (the ablation's rows are the agents)."""
    task = lite[0]
    for name, make in ALLOCATION_AGENTS.items():
        agent = make()
        mode = "with-rules" if name.startswith("knows-w") else "inductive"
        agent.reset(TaskView.of(task, mode), mode, np.random.default_rng(0))
        policy = allocation_policy(task.public, agent.allocation,
                                   str(task.rules_text) if agent.knows_w else None)
        env = GameEnv(TradingGameV5(task))
        obs, _ = env.reset()
        for _ in range(30):
            action = agent.act(obs)
            assert action == policy.act(obs), name
            obs, _, _, _, info = env.step(action)
            assert info["valid"], (name, action)


def test_v5_witness_replays_and_is_the_default() -> None:
    """A built v5 Lite task: the witness (the W-known planner, naming nothing: graded on its
    all-in book) replays to the recorded value and meets every check; ``build`` defaults to
    v5 (ladder format 3, per-task resistance) since 2026-12-07."""
    task = generate_task("trading", "lite", 7, 0, version=5).task
    assert task.env_version == 5 and task.certificate.verifier_version == 5
    assert check_task(task).ok, check_task(task).problem
    assert task.certificate.facts["planner_knowledge"] > 0.99
    ladder = task.certificate.facts["ladder"]
    assert ladder["planner"]["successes"] == 1 and ladder["random"]["successes"] == 0
    assert {ladder[r]["kind"] for r in ("ridge-top2", "ridge-gated")} == {"inductive"}
    assert not registry.get("trading", 5).preview and registry.get("trading").version == 5
    assert registry.get("trading", 5).ladder_version == 3
    assert task.certificate.facts["resistance"]["random"]["bound"] <= sampler_v5.RANDOM_EPSILON


def test_rubric_states_the_rule_without_w(lite: list[Task]) -> None:
    """The rubric names the key, the bar and the exposure, and is a function of the parameters
    alone (so it cannot reveal W)."""
    task = lite[0]
    text = [r for r in task.rubric if r.id == KNOWLEDGE_ITEM][0].text
    bar = 1 - sampler_v5.KNOWLEDGE_REGRET["lite"]
    assert '"expect"' in text and f"at least {bar:g}" in text and "every day" in text
    assert TradingGameV5.rubric(task.params, {"cost_rate": 0.0}) == task.rubric


def test_day_credit_of_simple_books() -> None:
    """Naming the best earns the day's scale, the average place 0; with nothing named the
    largest position is graded, an exactly even book earns 0."""
    returns = np.array([0.0, 0.010, 0.006, -0.004])
    mean = returns.mean()
    scale = 0.010 - mean
    book = np.array([0.0, 0.0, 100.0, 0.0])
    assert day_credit(book, returns, 1) == pytest.approx((scale, scale))
    assert day_credit(book, returns, 0) == pytest.approx((-mean, scale))
    assert day_credit(book, returns, None) == pytest.approx((0.006 - mean, scale))
    assert day_credit(np.full(4, 25.0), returns, None) == pytest.approx((0.0, scale))
    assert day_credit(np.zeros(4), returns, None) == pytest.approx((0.0, scale))


@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.floats(0.0, 1000.0), min_size=3, max_size=8), data=st.data())
def test_day_credit_properties(values: list[float], data: st.DataObject) -> None:
    """Whatever the book and the name: the credit never exceeds the scale; naming the best
    place earns the scale exactly; the named credit ignores the book."""
    n = len(values)
    returns = np.array([0.0, *data.draw(st.lists(st.floats(-0.05, 0.05), min_size=n - 1,
                                                 max_size=n - 1))])
    named = data.draw(st.none() | st.integers(0, n - 1))
    credit, scale = day_credit(np.array(values), returns, named)
    assert credit <= scale + 1e-15 and scale >= 0
    best = int(np.argmax(returns))
    assert day_credit(np.array(values), returns, best) == (scale, scale)
    if named is not None:
        assert day_credit(np.zeros(n), returns, named) == (credit, scale)


@pytest.mark.parametrize("regret", [0.2, 0.5, 0.8, 1.0])
def test_a_hopeless_book_never_meets_the_knowledge_bar(lite: list[Task], regret: float) -> None:
    """``hopeless`` is sound: once it says so, the episode's final knowledge score is below
    the bar, for books that name the best place with any frequency (every bar, and both
    verdicts seen, so the test can fail)."""
    seen = {"hopeless": 0, "met": 0}
    for n, task in enumerate(lite[:6]):
        game = TradingGameV5(replace(task, params={**task.params, "knowledge_regret": regret}))
        places = ["cash", *game.stocks]
        for skill in (0.0, 0.5, 0.8, 0.9, 1.0):
            rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([n, int(skill * 10)])))
            state, flagged = game.initial(), False
            while not game.done(state):
                flagged = flagged or game.hopeless(state)
                best = int(np.argmax(game._returns[state.day]))
                named = best if rng.random() < skill else int(rng.integers(len(places)))
                buy = {game.stocks[int(rng.integers(len(game.stocks)))]: int(rng.integers(1, 50))}
                state = game.act(state, json.dumps({"buy": buy, "expect": places[named]}))[0]
            met = game.facts(state).knowledge >= 1 - regret  # type: ignore[attr-defined]
            assert not (flagged and met), (task.id, regret, skill)
            seen["hopeless"] += flagged
            seen["met"] += met
    assert seen["hopeless"] > 0 and seen["met"] > 0, seen
