"""Trading v6 (preview): v5's game on worlds whose factor map changes at hidden days; Lite is
v5's, Challenge runs 1,000 days with 2-4 regimes (#42)."""

from __future__ import annotations

import copy
import hashlib
from typing import Any

import numpy as np
import pytest

from arena_gen.core import registry
from arena_gen.core.fingerprint import fingerprint, near_fingerprints
from arena_gen.core.game_env import GameEnv
from arena_gen.core.seeds import attempt_seed, seed_path, task_seed
from arena_gen.core.task import Task
from arena_gen.envs.trading import sampler_v5, sampler_v6, verify_v5, verify_v6
from arena_gen.envs.trading.game_v1 import price_path
from arena_gen.envs.trading.game_v4 import MOVE_SIGN
from arena_gen.envs.trading.game_v5 import knowledge_of_v5
from arena_gen.envs.trading.game_v6 import (
    REGIMES,
    TradingGameV6,
    price_path_v6,
    regime_at,
    regime_starts,
)
from arena_gen.envs.trading.policies_v5 import AllocationPolicy, allocation_policy
from arena_gen.envs.trading.policies_v6 import DetectingRidge, RegimePlanner, parse_regimes
from arena_gen.envs.trading.sampler_v1 import make_draft, rules_text
from arena_gen.envs.trading.verify_v3 import replay_check
from arena_gen.train.released import released_tasks, task_fingerprint
from tests.small_suites import released_count

SEED = 7


def draft_of(suite: str, version: int, index: int = 0, attempt: int = 0) -> Any:
    """The candidate ``build`` draws first for a task of ``suite`` at seed 7."""
    sampler = {5: sampler_v5, 6: sampler_v6}[version]
    root = task_seed(SEED, suite, 2, index)
    return sampler.sample(sampler.PRESETS[suite], attempt_seed(root, attempt))


def task_of(draft: Any, cert: Any, suite: str = "challenge") -> Task:
    """A v6 task of a verified draft."""
    return Task(id=f"trading-{suite}-{SEED}-0000", env="trading", env_version=6, suite=suite,
                seed_path=seed_path(SEED, suite, 2, 0, 0), params=draft.params,
                budget=draft.budget, public=draft.public, world=draft.world,
                rules_text=draft.rules_text, rubric=draft.rubric, certificate=cert)


@pytest.fixture(scope="module")
def challenge() -> tuple[Any, Any]:
    """Seed 7's first Challenge candidate and its certificate."""
    draft = draft_of("challenge", 6)
    return draft, verify_v6.verify(draft)


def test_v6_lite_is_v5_lite() -> None:
    """A v6 Lite candidate is v5's of the same seed path (world, public view, parameters,
    rules, rubric) and certifies to the same facts; only the version differs."""
    for index in (0, 7):
        v5, v6 = draft_of("lite", 5, index), draft_of("lite", 6, index)
        assert v5 == v6
        c5, c6 = verify_v5.verify(v5), verify_v6.verify(v6)
        assert c5.facts == c6.facts and c5.witness == c6.witness
        assert (c5.verifier_version, c6.verifier_version) == (5, 6)
    assert registry.get("trading", 6).preview and registry.get("trading").version == 5


def test_challenge_has_the_regimes_its_preset_says(challenge: tuple[Any, Any]) -> None:
    """1,000 days, 2-4 regimes of >= 150 days (seed 7's first: changes on days 293, 451 and
    706), each stated in the rules text and named in the intro only as a fact, never a day;
    the price path follows v1's rule with the first map up to the first change, then differs."""
    draft, cert = challenge
    preset = sampler_v6.PRESETS["challenge"]
    assert draft.budget == 1000 and preset["regimes"] == [2, 4]
    starts = regime_starts(draft.world)
    assert starts == [0, 293, 451, 706] and cert.facts["regime_days"] == starts
    assert min(np.diff([*starts, 1000])) >= 150
    assert parse_regimes(draft.rules_text, draft.public["stocks"], draft.public["factors"])[2][
        1].tolist() == draft.world[REGIMES][1]["matrix"]
    assert "293" not in draft.public["intro"] and "changes a few times" in draft.public["intro"]
    assert "in force that day" in draft.rubric[-1].text
    one_map, _ = price_path(draft.world)
    path, _ = price_path_v6(draft.world)
    assert (path[:294] == one_map[:294]).all() and not (path[294] == one_map[294]).all()
    again = sampler_v6.public_again(draft.public, draft.budget, preset)
    assert again == (draft.public, 1000)


def test_planner_witness_replays_to_success(challenge: tuple[Any, Any]) -> None:
    """The planner told every regime names the best place under each day's map (knowledge
    about 1), and its witness replays through the v6 env to the recorded value and success."""
    draft, cert = challenge
    assert sampler_v6.accept(draft, cert) is None and cert.solvable
    assert cert.facts["planner_knowledge"] > 0.99
    task = task_of(draft, cert)
    env = registry.make_env(task)
    env.reset()
    info: dict[str, Any] = {}
    for action in cert.witness:
        _, _, _, _, info = env.step(action)
    assert info["success"] and info["day"] == 1000
    assert round(info["total_value"], 2) == cert.facts["planner_final_value"]

    class Replayed:
        final_info = info

    replay_check(task, Replayed())  # type: ignore[arg-type]


def small_world(noise: float = 0.1) -> Task:
    """12 stocks, 3 factors, 300 days; on day 150 the map flips sign (a fixed world)."""
    rng = np.random.default_rng(np.random.SeedSequence([42, 6]))
    matrix = np.round(rng.uniform(-1, 1, size=(12, 3)), 3).tolist()
    changes = np.round(rng.normal(0, 0.1, size=(300, 3)), 4).tolist()
    draft = make_draft(matrix=matrix, initial_prices=[50.0 + 5 * i for i in range(12)],
                       changes=changes,
                       noise=np.round(rng.normal(0, noise, size=(300, 12)), 4).tolist(),
                       noise_scale=noise, cost_rate=0.0, initial_cash=10000,
                       min_oracle_profit=0.0,
                       extra_params={"knowledge_regret": 0.2, "min_exposure": 0.25},
                       game=TradingGameV6)
    world = {**draft.world, REGIMES: [{"day": 150, "matrix": [[-x for x in r] for r in matrix]}]}
    return Task(id="trading-lite-0-0000", env="trading", env_version=6, suite="lite",
                seed_path=[0, 0, 2, 0, 0], params=draft.params, budget=300,
                public=draft.public, world=world, rules_text=draft.rules_text,
                rubric=TradingGameV6.rubric(draft.params, world), certificate=None)


def knowledge(task: Task, policy: Any) -> float:
    """The v6 knowledge score of one episode of ``policy``."""
    game = TradingGameV6(task)
    env = GameEnv(game)
    obs, _ = env.reset()
    while not game.done(env.state):
        obs, *_ = env.step(policy.act(obs))
    return knowledge_of_v5(env.state)[0]


def test_a_regime_blind_learner_does_worse_than_one_that_detects() -> None:
    """On a fixed small world whose map flips on day 150, the all-days ridge keeps naming the
    old map's best after the flip; the detecting ridge alarms at its 150th sample and
    re-learns from its estimate of the change (sample 136)."""
    task = small_world()
    blind = knowledge(task, allocation_policy(task.public, "allin"))
    detector = DetectingRidge(12, 3)
    aware = knowledge(task, AllocationPolicy(task.public, detector, "allin", start_day=3))
    assert detector.alarms == [150] and detector.start == 136
    assert round(blind, 3) == 0.094 and round(aware, 3) == 0.784


def test_probes_ask_about_the_map_in_force(challenge: tuple[Any, Any]) -> None:
    """Probes at a state in the third regime are answered from that regime's matrix (the sign
    answers balanced), which disagrees with the first map on some of them."""
    draft, cert = challenge
    game = TradingGameV6(task_of(draft, cert))
    state = game.initial()
    state = type(state)(day=500, cash=state.cash, holdings=state.holdings)
    assert regime_at(draft.world, 500) == 2
    probes = game.probes(state, [], np.random.default_rng(3), 16)
    answers = [game.probe_answer(state, p) for p in probes]
    signs = [a for p, a in zip(probes, answers, strict=True) if p.kind == MOVE_SIGN]
    assert sorted(signs) == ["down"] * 4 + ["up"] * 4
    third = np.asarray(draft.world[REGIMES][1]["matrix"])
    first = np.asarray(draft.world["matrix"])
    index = {s: i for i, s in enumerate(game.stocks)}
    flips = 0
    for probe, answer in zip(probes, answers, strict=True):
        if probe.kind != MOVE_SIGN:
            continue
        i = index[probe.subject["stock"]]
        news = np.asarray(probe.subject["news"])
        assert answer == ("up" if third[i] @ news > 0 else "down")
        flips += (first[i] @ news > 0) != (answer == "up")
    assert flips > 0


def test_a_hostile_regime_list_is_refused_by_path() -> None:
    """A regime day out of order, or a matrix of the wrong shape, is named by its JSON path."""
    task = small_world()
    bad = {**task.world, REGIMES: [{"day": 0, "matrix": task.world["matrix"]}]}
    with pytest.raises(ValueError, match=r"world.regimes\[0\].day"):
        TradingGameV6(Task(**{**task.__dict__, "world": bad}))
    bad = {**task.world, REGIMES: [{"day": 9, "matrix": [[1.0]]}]}
    with pytest.raises(ValueError, match=r"world.regimes\[0\].matrix"):
        TradingGameV6(Task(**{**task.__dict__, "world": bad}))
    text = rules_text(["S0"], ["F0"], [[1.0]], 0.0, 0.0)
    assert [d for d, _ in parse_regimes(text, ["S0"], ["F0"])] == [0]
    planner = RegimePlanner({"stocks": ["S0"], "factors": ["F0"]}, text)
    assert planner.matrix_at(10).tolist() == [[1.0]]


def test_v6_scores_a_v5_world_as_v5_does() -> None:
    """v6 keeps v5's knowledge sums in plain floats (one pass a day): on a v5 world, the same
    actions give v5's credit, weight, room and scale (to 1e-12), for named, unnamed, spread
    and random books."""
    from arena_gen.envs.trading.game_v5 import BookV5, TradingGameV5

    draft = draft_of("lite", 6, 3)
    rng = np.random.default_rng(5)
    players = [allocation_policy(draft.public, "gated"),
               allocation_policy(draft.public, "top3", name=False),
               allocation_policy(draft.public, "warmup", draft.rules_text)]
    for player in [*players, None]:
        v5, v6 = TradingGameV5(draft), TradingGameV6(draft)
        env = GameEnv(v5)
        obs, _ = env.reset()
        book6 = v6.initial()
        while not v5.done(env.state):
            action = (TradingGameV6.random_action(draft.public, rng) if player is None
                      else player.act(obs))
            obs, *_ = env.step(action)
            book6 = v6.act(book6, action)[0]
        book5 = env.state
        assert isinstance(book5, BookV5) and isinstance(book6, BookV5)
        for key in ("credit", "weight", "room", "scale"):
            assert getattr(book6, key) == pytest.approx(getattr(book5, key), rel=1e-12,
                                                        abs=1e-15), key


def test_the_regime_knobs_are_checked_and_the_potential_reads_every_regime(
        challenge: tuple[Any, Any]) -> None:
    """A preset whose regimes cannot fit its horizon is refused by name; a v6 Challenge
    draft's regret potential plays the planner told every regime (the witness it compares
    with is the certificate's); Lite keeps one regime."""
    from arena_gen.core.presets import PresetError
    from arena_gen.envs.trading.potential import planner_witness

    with pytest.raises(PresetError, match="do not fit"):
        sampler_v6.PRESETS["challenge"].replace(regimes=[2, 7])
    draft, cert = challenge
    game = TradingGameV6(draft)
    assert planner_witness(game) == cert.witness
    assert sampler_v6.PRESETS["lite"]["regimes"] == [1, 1]


def test_a_built_challenge_task_verifies_and_measures_detection() -> None:
    """Seed 7's fourth Challenge task as ``build`` makes it: it re-verifies; random, hold,
    momentum and the regime-blind all-days ridge fail it, the detecting ridge and the planner
    solve it."""
    from arena_gen.suite.build import generate_task
    from arena_gen.suite.verify import check_task

    task = generate_task("trading", "challenge", SEED, 3, version=6).task
    assert task.env_version == 6 and task.budget == 1000
    assert check_task(task).ok, check_task(task).problem
    ladder = task.certificate.facts["ladder"]
    solved = {rung for rung, row in ladder.items() if row["successes"] > 0}
    assert solved == {"ridge-detect", "planner"}


# --- fingerprint: the regimes are part of the world -----------------------------------------

def _fp(world: dict[str, Any]) -> str:
    return fingerprint("trading", registry.get("trading", 6).load("fingerprint"), world)


def _reversed_stocks(world: dict[str, Any]) -> dict[str, Any]:
    """The same market with the stocks in reverse order (every regime's rows moved too)."""
    order = list(range(len(world["stocks"])))[::-1]
    return {**world, "matrix": [world["matrix"][i] for i in order],
            "initial_prices": [world["initial_prices"][i] for i in order],
            "noise": [[row[i] for i in order] for row in world["noise"]],
            REGIMES: [{**c, "matrix": [c["matrix"][i] for i in order]}
                      for c in world[REGIMES]]}


def test_a_later_regime_changes_the_fingerprint() -> None:
    """Two worlds equal but for one cell of a later regime's matrix, or its start day, differ;
    the same market with its stocks reordered (regime rows included) does not."""
    world = small_world().world
    cell = copy.deepcopy(world)
    cell[REGIMES][0]["matrix"][4][1] += 0.25
    day = {**world, REGIMES: [{**world[REGIMES][0], "day": 151}]}
    prints = {_fp(world), _fp(cell), _fp(day)}
    assert len(prints) == 3
    assert _fp(_reversed_stocks(world)) == _fp(world)
    assert _fp(_reversed_stocks(cell)) == _fp(cell)


def test_worlds_differing_only_in_a_regime_are_near_duplicates() -> None:
    """Masking the regimes gives both worlds the same near print."""
    shape = registry.get("trading", 6).load("fingerprint")
    world = small_world().world
    other = copy.deepcopy(world)
    other[REGIMES][0]["matrix"][0][0] += 0.5
    mine, theirs = (near_fingerprints("trading", shape, w) for w in (world, other))
    assert {mine[k] for k in set(mine) & set(theirs)} == {"regimes"}


def test_released_trading_fingerprints_are_unchanged() -> None:
    """Golden: a v5 Lite world's print and the digest of every released v1 and v5 trading print
    (70: Lite, the moderate Challenge, odyssey-lite) are the ones before regimes entered the
    fingerprint."""
    shape = registry.get("trading", 5).load("fingerprint")
    tasks = released_tasks("trading")
    first = next(t for t in tasks if t.id == "trading-lite-7-0000")
    assert first.env_version == 5
    assert fingerprint("trading", shape, first.world) == (
        "710da68f7db31bd133d6e34277d65bbbb7380cfc835123f433146b9041fc3285")
    assert len(tasks) == released_count("trading")  # the paper-scale Challenge's v6 too
    before = [t for t in tasks if t.env_version != 6]
    prints = "\n".join(str(task_fingerprint(t)) for t in before)
    assert len(before) == 70
    assert hashlib.sha256(prints.encode()).hexdigest() == (
        "64461a2831ebdb01f6428600c126cc5f69a4dbab19c8f1be513d6fb8fdb02544")
