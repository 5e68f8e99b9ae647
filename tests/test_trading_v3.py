"""Trading v3: success measures knowledge of W whatever the allocation (issue #25), the learners
with several allocation rules, the model-free rungs, certificates and determinism."""

from __future__ import annotations

import json
from typing import Any

import pytest

from arena_gen.core import registry
from arena_gen.core.calibration import suite_problems
from arena_gen.core.game_env import GameEnv
from arena_gen.core.seeds import attempt_seed, seed_path, task_seed
from arena_gen.core.task import Task
from arena_gen.envs.trading import policies_v3 as pol
from arena_gen.envs.trading import sampler_v2, sampler_v3, verify_v2, verify_v3
from arena_gen.envs.trading.game_v2 import TradingGameV2
from arena_gen.envs.trading.game_v3 import KNOWLEDGE_ITEM, TradingGameV3
from arena_gen.suite.build import generate_task
from arena_gen.suite.verify import check_task


def pinned(version: int, index: int) -> Task:
    """Lite task ``index`` of seed 7 at ``version`` (2 or 3) as ``build`` draws it, without the
    ladder (first accepted attempt)."""
    sampler, verifier = {2: (sampler_v2, verify_v2), 3: (sampler_v3, verify_v3)}[version]
    root = task_seed(7, "lite", 2, index)
    for attempt in range(20):
        draft = sampler.sample(sampler.PRESETS["lite"], attempt_seed(root, attempt))
        cert = verifier.verify(draft)
        if sampler.accept(draft, cert) is None:
            return Task(id=f"trading-lite-7-{index:04d}", env="trading", env_version=version,
                        suite="lite", seed_path=seed_path(7, "lite", 2, index, attempt),
                        params=draft.params, budget=draft.budget, public=draft.public,
                        world=draft.world, rules_text=draft.rules_text, rubric=draft.rubric,
                        certificate=cert)
    raise AssertionError("no accepted candidate")


def play(task: Task, policy: Any) -> tuple[bool, dict[str, Any]]:
    """Success and final info of one episode of ``policy`` on ``task`` (its version's game)."""
    game = (TradingGameV3 if task.env_version == 3 else TradingGameV2)(task)
    env = GameEnv(game)
    obs, _ = env.reset()
    info: dict[str, Any] = {}
    while not game.done(env.state):
        obs, _, _, _, info = env.step(policy.act(obs))
    return bool(info["success"]), info


TASKS = range(6)


@pytest.fixture(scope="module")
def v2_tasks() -> list[Task]:
    return [pinned(2, i) for i in TASKS]


@pytest.fixture(scope="module")
def v3_tasks() -> list[Task]:
    return [pinned(3, i) for i in TASKS]


def test_v2_fails_a_trader_who_knows_w_but_splits(v2_tasks: list[Task]) -> None:
    """The #25 finding on v2: told W exactly, a trader splitting across its best three stocks
    fails most pinned tasks (its log growth is about 0.6-0.7 of the all-in planner's, the bar
    0.9), while the all-in planner passes them all."""
    split = [play(t, pol.knowing_policy(t.public, str(t.rules_text), "top3"))[0]
             for t in v2_tasks]
    allin = [play(t, pol.knowing_policy(t.public, str(t.rules_text), "allin"))[0]
             for t in v2_tasks]
    assert sum(split) <= 1 and all(allin)


@pytest.mark.parametrize("rule", ["allin", "top2", "top3", "top4", "margin0.002"])
def test_v3_passes_a_trader_who_knows_w_whatever_the_split(v3_tasks: list[Task],
                                                           rule: str) -> None:
    """On v3 every W-known allocation passes every pinned task (knowledge above 0.9)."""
    for task in v3_tasks:
        ok, info = play(task, pol.knowing_policy(task.public, str(task.rules_text), rule))
        assert ok, (task.id, rule, info["knowledge"], info["exposure"])
        assert info["knowledge"] > 0.9


@pytest.mark.parametrize("make", [pol.HoldPolicy, pol.MomentumPolicy])
def test_v3_fails_policies_that_do_not_learn(v3_tasks: list[Task], make: Any) -> None:
    """Model-free policies (hold, momentum) know nothing of W: knowledge near 0, no pass."""
    for task in v3_tasks:
        ok, info = play(task, make(task.public))
        assert not ok and abs(info["knowledge"]) < 0.2, (task.id, info["knowledge"])


def test_v3_pinned_values(v3_tasks: list[Task]) -> None:
    """Exact values on task 0: its drawn noise (Lite 0.2-2.0), the planner's knowledge, the
    learner's score (0.72 at this noise: below the bar, as the median Lite learner)."""
    task = v3_tasks[0]
    facts = task.certificate.facts
    assert task.params["noise_scale"] == 0.478
    assert facts["planner_knowledge"] == 0.998932 and facts["planner_exposure"] == 0.999766
    assert facts["planner_final_value"] == 87176.9
    ok, info = play(task, pol.learner_policy(task.public, "ridge", None, "allin"))
    assert not ok and info["knowledge"] == KNOWLEDGE_0 and info["exposure"] == EXPOSURE_0


KNOWLEDGE_0 = 0.718937
EXPOSURE_0 = 0.999793


def test_knowledge_hidden_before_the_horizon(v3_tasks: list[Task]) -> None:
    """No running score reaches the info before the horizon (it would be a signal about W);
    a malformed action is a hold that still counts its day."""
    task = v3_tasks[0]
    game = TradingGameV3(task)
    env = GameEnv(game)
    env.reset()
    _, _, _, _, info = env.step("not json")
    assert info["valid"] is False and info["knowledge"] is None
    assert env.state.day == 1 and env.state.scale > 0 and env.state.room > 0


def test_rubric_states_the_thresholds(v3_tasks: list[Task]) -> None:
    """The rubric text names the rule's two thresholds (the task's parameters)."""
    item = [r for r in v3_tasks[0].rubric if r.id == KNOWLEDGE_ITEM][0]
    assert "at least 0.8" in item.text and "at least 0.25" in item.text


def test_v3_certificates_verify_and_rebuild_byte_identically() -> None:
    """Two built v3 Lite tasks: ladder format 2 with kinds, every check passes, and a second
    generation gives the same bytes."""
    spec = registry.get("trading", 3)
    assert not spec.preview and spec.ladder_version == 2
    assert registry.get("trading").version == 5  # v3 released 2026-12-02, v5 2026-12-07
    for index in (0, 1):
        task = generate_task("trading", "lite", 7, index, version=3).task
        ladder = task.certificate.facts["ladder"]
        assert {r: x["kind"] for r, x in ladder.items()} == {
            "random": "random", "hold": "model_free", "momentum": "model_free",
            "heuristic": "inductive", "ridge-margin": "inductive", "ridge-top2": "inductive",
            "ridge-top3": "inductive", "window60-allin": "inductive", "planner": "planner"}
        assert ladder["planner"]["successes"] == 1 and ladder["hold"]["successes"] == 0
        assert check_task(task).ok, check_task(task).problem
        again = generate_task("trading", "lite", 7, index, version=3).task
        assert json.dumps(again.to_dict(), sort_keys=True) == json.dumps(task.to_dict(),
                                                                         sort_keys=True)


def test_bad_allocation_rule_is_refused() -> None:
    """An unknown allocation rule is a ValueError naming it."""
    with pytest.raises(ValueError, match="top0"):
        pol.parse_rule("top0")


def challenge_tasks(seed: int, count: int) -> list[Task]:
    """The first ``count`` Challenge tasks of ``seed`` at v3 as ``build`` draws them (first
    accepted attempt, no ladder)."""
    config = sampler_v3.PRESETS["challenge"]
    out = []
    for index in range(count):
        root = task_seed(seed, "challenge", 2, index)
        for attempt in range(int(config["max_attempts"])):
            draft = sampler_v3.sample(config, attempt_seed(root, attempt))
            cert = verify_v3.verify(draft)
            if sampler_v3.accept(draft, cert) is None:
                out.append(Task(id=f"trading-challenge-{seed}-{index:04d}", env="trading",
                                env_version=3, suite="challenge",
                                seed_path=seed_path(seed, "challenge", 2, index, attempt),
                                params=draft.params, budget=draft.budget, public=draft.public,
                                world=draft.world, rules_text=draft.rules_text,
                                rubric=draft.rubric, certificate=cert))
                break
    return out


@pytest.fixture(scope="module")
def challenge_11() -> list[Task]:
    return challenge_tasks(11, 5)


def test_challenge_keeps_noisy_worlds(challenge_11: list[Task]) -> None:
    """Challenge runs 300 days: on 1000 a price random walk of noise above about 0.5 hits the
    0.1 floor, so the filter kept only quiet worlds (seed 11's first five had noise 0.18-0.35)
    and the learners had the easiest tasks; at 300 days task 1 keeps its noise 1.177 (400 days
    left the best learner's pooled interval overlapping Lite's)."""
    assert sampler_v3.PRESETS["challenge"]["horizon"] == 300
    assert sampler_v3.PRESETS["challenge"]["min_planner_profit"] == 0.4
    assert [t.params["noise_scale"] for t in challenge_11] == [0.216, 1.177, 0.347, 0.318, 0.177]


def test_challenge_is_harder_for_the_learner_not_for_who_knows_w(
        challenge_11: list[Task]) -> None:
    """The #25 finding on the 1000-day Challenge: the all-in ridge passed 4 of seed 11's first
    five tasks (80 %, above its Lite rate). On 300 days it passes none of them (knowledge
    0.16-0.83, the bar 0.87), while traders told W still pass every task all-in or split
    (knowledge 0.90-1.00: with fees a knowing trader skips switches worth less than them)."""
    ridge = [play(t, pol.learner_policy(t.public, "ridge", None, "allin")) for t in challenge_11]
    assert [ok for ok, _ in ridge] == RIDGE_CHALLENGE_11
    for rule in ("allin", "top3"):
        for task in challenge_11:
            ok, info = play(task, pol.knowing_policy(task.public, str(task.rules_text), rule))
            assert ok and info["knowledge"] > 0.84, (task.id, rule, info["knowledge"])


RIDGE_CHALLENGE_11 = [False] * 5


def test_a_knowing_trader_that_switches_past_the_fee_passes_challenge(
        challenge_11: list[Task]) -> None:
    """With a fee, money kept in its stocks is credited up to the round-trip fee: a trader told
    W that switches only for a forecast gain above 0.2 % of the book (``margin0.002``) kept
    yesterday's stock and passed 2 of seed 11's first five Challenge tasks (knowledge 0.66-0.85
    under the old 0.8 bar); now it passes all five (knowledge 0.92-0.96 against the Challenge
    bar of 0.87), while the all-in ridge still passes none."""
    assert sampler_v3.PRESETS["challenge"]["knowledge_regret"] == 0.13
    scores = [play(t, pol.knowing_policy(t.public, str(t.rules_text), "margin0.002"))
              for t in challenge_11]
    assert all(ok for ok, _ in scores), [round(i["knowledge"], 3) for _, i in scores]
    assert min(i["knowledge"] for _, i in scores) > 0.91
    assert "round-trip fee" in challenge_11[0].rubric[-1].text


def test_no_fee_no_credit(v3_tasks: list[Task]) -> None:
    """Lite has no fee, so its rubric text names no credit and its scores are the raw edge."""
    assert all(t.world["cost_rate"] == 0 for t in v3_tasks)
    assert all("round-trip" not in t.rubric[-1].text for t in v3_tasks)


def test_challenge_ceiling_refuses_a_suite_not_harder_than_lite() -> None:
    """The Challenge preset's ceiling (0.4) refuses a Challenge whose best learner passes 5 of
    10, above Lite's pooled interval (31-42 %; the 400-day ceiling 0.5 let it through), but
    lets 4/10 through: a 10-task Wilson interval at 2/10 already reaches 51 %, so "below Lite"
    is certified pooled over seeds, not per seed (at 300 days seeds 7 and 11-20 reach at most
    3/10)."""
    cal = sampler_v3.CALIBRATION["challenge"]
    assert cal.inductive_ceiling == 0.4

    def rates(k: int) -> dict[str, dict[str, Any]]:
        return {"heuristic": {"kind": "inductive", "rate": k / 10},
                "hold": {"kind": "model_free", "rate": 0.0},
                "planner": {"kind": "planner", "rate": 1.0},
                "random": {"kind": "random", "rate": 0.0}}

    [problem] = suite_problems(cal, rates(5))
    assert "not harder" in problem
    assert suite_problems(cal, rates(4)) == []


def test_a_planner_that_buy_and_hold_beats_is_resampled() -> None:
    """Lite seed 16 task 17: its first candidate (noise 0.2-2.0) let buy-and-hold beat the
    W-known planner, so the certificate's witness missed ``beats_hold`` and the build failed
    its replay; now that candidate is unsolvable, the next is accepted and verifies."""
    root = task_seed(16, "lite", 2, 17)
    first = sampler_v3.sample(sampler_v3.PRESETS["lite"], attempt_seed(root, 0))
    cert = verify_v3.verify(first)
    assert cert.facts["planner_profit"] <= cert.facts["hold_profit"] and not cert.solvable
    assert "unsolvable" in str(sampler_v3.accept(first, cert))
    task = generate_task("trading", "lite", 16, 17, version=3).task
    assert task.seed_path[4] == 1 and task.params["noise_scale"] == 0.64
    assert check_task(task).ok, check_task(task).problem
