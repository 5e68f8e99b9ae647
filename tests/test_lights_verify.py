"""Lights dynamics, sampler determinism, and the BFS and SAT verifiers (pinned and differential)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import built_tasks
from hypothesis import given, settings
from hypothesis import strategies as st

from arena_gen.core import registry
from arena_gen.core.game import WorldView, play
from arena_gen.core.game_env import GameEnv
from arena_gen.core.presets import PresetError
from arena_gen.core.task import Draft, Task
from arena_gen.envs.lights.bfs import bfs
from arena_gen.envs.lights.formula import parse
from arena_gen.envs.lights.game_v1 import LightsGame, Rules
from arena_gen.envs.lights.sampler import PRESETS, LightsPreset, sample
from arena_gen.envs.lights.sat import solve
from arena_gen.envs.lights.verify import verify
from arena_gen.suite.catalog import preset


def world_of(lines: list[str]) -> dict:
    n = len(lines)
    return {"n": n, "conditions": [parse(text, n) for text in lines]}


def draft_of(world: dict) -> Draft:
    return Draft(params={"n": world["n"]}, budget=200, public={"n": world["n"]}, world=world,
                 rules_text="", rubric=[])


def chinese_rings(n: int) -> dict:
    """Ring i moves iff ring i-1 is on and all rings before it are off (B0 always moves)."""
    lines = ["True"]
    for i in range(1, n):
        lits = [f"B{i - 1}"] + [f"not B{j}" for j in range(i - 1)]
        text = lits[0]
        for lit in lits[1:]:
            text = f"({text} and {lit})"
        lines.append(text)
    return world_of(lines)


# Hand-computed minima: (world, minimum, why)
PINNED = [
    (["True"], 1),
    (["True", "not B0"], 2),            # B1 while B0 is off, then B0
    (["True", "B0"], 2),                # B0 then B1
    (["True", "not B0", "(B0 and B1)"], 3),  # B1, B0, B2
    # B1 needs B0 off, B2 needs B0 on and B1 off: B0, B2, B0, B1, B0 (3 is impossible: B0's
    # single toggle would have to come after B1 and before B2, but B2 must precede B1).
    (["True", "not B0", "(B0 and not B1)"], 5),
]


@pytest.mark.parametrize("lines, minimum", PINNED)
def test_pinned_hand_minima(lines: list[str], minimum: int) -> None:
    world = world_of(lines)
    assert bfs(world).min_steps == minimum
    assert solve(world, bfs_prefix=0).min_steps == minimum


@pytest.mark.parametrize("n, minimum", [(1, 1), (2, 2), (3, 5), (4, 10), (5, 21), (6, 42),
                                        (7, 85)])
def test_chinese_rings_minimum_is_the_gray_code_rank(n: int, minimum: int) -> None:
    # The state graph is a path ordered by the Gray code; all-on has rank ~2^(n+1)/3.
    world = chinese_rings(n)
    assert bfs(world).min_steps == minimum == round((2 ** (n + 1) - 1.5) / 3)
    result = solve(world, bfs_prefix=0)
    assert result.exact and result.min_steps == minimum


def test_unsolvable_world_is_reported() -> None:
    world = world_of(["True", "(B0 and not B0)"])
    assert bfs(world).min_steps is None
    assert not verify(draft_of(world)).solvable
    assert solve(world).solvable is False


def test_bfs_counts_reachable_states_for_small_n() -> None:
    world = world_of(["True", "not B0", "(B0 and not B1)"])
    assert bfs(world).reachable_states == 8
    big = built_tasks("lights", count=1)[0]
    assert big.certificate.facts["reachable_states"] == 2 ** big.world["n"]


def _config(n: int, max_literals: int, p_not: float, p_and: float) -> LightsPreset:
    return PRESETS["lite"].replace(n_values=(n,), n_weights=(1,), max_literals=max_literals,
                                   p_not=p_not, p_and=p_and)


worlds = st.builds(
    lambda n, ml, p_not, p_and, entropy: sample(_config(n, ml, p_not, p_and),
                                                np.random.SeedSequence(entropy)).world,
    st.integers(1, 12), st.integers(1, 8), st.sampled_from([0.0, 0.3, 0.55, 0.8, 1.0]),
    st.sampled_from([0.0, 0.4, 0.6, 1.0]), st.integers(0, 2 ** 64 - 1))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(worlds)
def test_bfs_and_sat_agree(world: dict) -> None:
    exact = bfs(world)
    result = solve(world, bfs_prefix=0, max_conflicts=None)
    assert result.exact and result.min_steps == exact.min_steps
    assert (result.min_steps - world["n"]) % 2 == 0
    for plan in (exact.witness, result.witness):
        assert _play(world, plan) == Rules(world).goal and len(plan) == exact.min_steps


@settings(max_examples=150, deadline=None, derandomize=True)
@given(worlds)
def test_unproven_plans_replay_through_the_game(world: dict) -> None:
    """With no proof effort every bulb past the first is added by insertion or by the
    constructive detour (``_insert``, ``_construct``, ``_fix``, ``_prune``): the plan is
    unproven, but it must play to all-on through the game, within honest bounds."""
    result = solve(world, bfs_prefix=0, max_conflicts=0, plan_conflicts=0)
    exact = bfs(world).min_steps
    assert result.upper == len(result.witness) and result.upper is not None
    assert _play(world, result.witness) == Rules(world).goal
    assert result.lower <= exact <= result.upper
    assert (result.upper - world["n"]) % 2 == 0


def test_bfs_and_sat_agree_on_every_lite_task() -> None:
    tasks = built_tasks("lights", count=30)
    assert len(tasks) == 30
    for task in tasks:
        sat = verify(task, method="sat", bfs_prefix=0, max_conflicts=None)
        assert sat.method == "sat-bmc"
        assert sat.min_steps == task.certificate.min_steps >= 10, task.id
        assert sat.facts["min_steps_bounds"] == [sat.min_steps, sat.min_steps]


def test_witnesses_replay_in_exactly_min_steps() -> None:
    for task in built_tasks("lights", count=30):
        env = registry.make_env(task)
        env.reset()
        for i, action in enumerate(task.certificate.witness):
            _, reward, terminated, truncated, info = env.step(action)
            assert info["valid"]
            assert terminated == (i == len(task.certificate.witness) - 1)
        assert env.success and len(task.certificate.witness) == task.certificate.min_steps


def test_sampler_is_deterministic_and_indices_differ() -> None:
    from arena_gen.core.seeds import attempt_seed, task_seed
    config = PRESETS["lite"]
    a = sample(config, attempt_seed(task_seed(7, "lite", 1, 3), 0))
    b = sample(config, attempt_seed(task_seed(7, "lite", 1, 3), 0))
    c = sample(config, attempt_seed(task_seed(7, "lite", 1, 4), 0))
    d = sample(config, attempt_seed(task_seed(7, "lite", 1, 3), 1))
    assert a == b
    assert a.world != c.world and a.world != d.world
    order = a.world["order"]
    seen: set[int] = set()
    for bulb in order:  # a DAG in the hidden order, rooted at a constant-true bulb
        from arena_gen.envs.lights.formula import variables
        assert variables(a.world["conditions"][bulb]) <= seen
        seen.add(bulb)
    assert a.world["conditions"][order[0]] == {"const": True}


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.lists(st.integers(0, 9), max_size=40))
def test_dynamics_flip_only_the_chosen_enabled_bulb(entropy: int, plan: list[int]) -> None:
    world = sample(_config(10, 8, 0.55, 0.6), np.random.SeedSequence(entropy)).world
    rules = Rules(world)
    state = 0
    for bulb in plan:
        nxt = rules.step(state, bulb)
        assert nxt ^ state in (0, 1 << bulb)
        assert (nxt != state) == rules.enabled(state, bulb)
        # the move graph is undirected: a bulb never reads itself
        assert rules.step(nxt, bulb) == state or nxt == state
        state = nxt


@pytest.mark.parametrize("action", ["", "  ", "x", "-1", "1.5", "B99", "10", "٣"])
def test_invalid_actions_cost_a_turn_and_change_nothing(action: str) -> None:
    task = built_tasks("lights", count=1)[0]
    env = registry.make_env(task)
    env.reset()
    obs, reward, terminated, truncated, info = env.step(action)
    assert not info["valid"] and reward == 0.0 and not terminated
    assert env.state == 0 and f"Turns left: {task.budget - 1}" in obs and "Invalid action" in obs


def test_feedback_lines_match_the_spec() -> None:
    world = world_of(["True", "B0"])
    task = Task.from_dict({"id": "t", "env": "lights", "env_version": 1, "suite": "x",
                           "seed_path": [0], "params": {}, "budget": 5, "public": {"n": 2},
                           "world": world, "rules_text": "", "rubric": [],
                           "certificate": {"solvable": True, "method": "bfs", "min_steps": 2,
                                           "witness": ["0", "1"], "verifier_version": 1,
                                           "seconds": None}})
    env = GameEnv(LightsGame(task))
    env.reset()
    obs, *_ = env.step("1")
    assert obs.startswith("B1 remains inactive... remaining bulbs should be in specific mode.")
    obs, *_ = env.step("B0")
    assert obs.startswith("Toggled B0 to on.\nState: on off\nTurns left: 3")


@pytest.mark.slow
def test_sat_proves_a_twenty_bulb_minimum() -> None:
    config = PRESETS["challenge"].replace(n_values=(20,), n_weights=(1,))
    world = sample(config, np.random.SeedSequence([99, 20, 0])).world
    result = solve(world, bfs_prefix=0, max_conflicts=None)
    assert result.exact and result.min_steps == bfs(world).min_steps == 46


def test_sat_bounds_are_honest_when_effort_runs_out() -> None:
    config = PRESETS["challenge"].replace(n_values=(30,), n_weights=(1,))
    world = sample(config, np.random.SeedSequence([99, 30, 1])).world
    result = solve(world, max_conflicts=2000, plan_conflicts=2000)
    assert result.upper is not None and result.lower <= result.upper
    assert result.lower >= 30 and (result.upper - 30) % 2 == 0
    assert Rules(world).goal == _play(world, result.witness)
    cert = verify(draft_of(world), max_conflicts=2000, plan_conflicts=2000)
    assert cert.method == "sat-bmc" and cert.facts["min_steps_bounds"] == [result.lower,
                                                                         result.upper]
    assert cert.min_steps == (result.upper if result.exact else None)


def _play(world: dict, plan: list[int]) -> int:
    """Play a plan through the game's own rule; every toggle must take effect, none be left."""
    result = play(LightsGame(WorldView(world)), [str(b) for b in plan])
    assert result.steps == len(plan)
    assert all(e.valid and e.feedback.startswith("Toggled") for e in result.events)
    return result.final


def _cond(n: int) -> st.SearchStrategy:
    lit = st.builds(lambda v, neg: {"not": {"var": v}} if neg else {"var": v},
                    st.integers(0, n - 1), st.booleans())
    return st.recursive(lit, lambda inner: st.one_of(
        st.builds(lambda a, b: {"and": [a, b]}, inner, inner),
        st.builds(lambda a, b: {"or": [a, b]}, inner, inner),
        st.builds(lambda x: {"not": x}, inner)), max_leaves=4)


@st.composite
def any_worlds(draw: st.DrawFn) -> dict:
    """Arbitrary (possibly cyclic, self-reading) worlds: the SAT encoding must stay sound."""
    n = draw(st.integers(1, 6))
    return {"n": n, "conditions": [draw(_cond(n)) for _ in range(n)]}


@settings(max_examples=150, deadline=None, derandomize=True)
@given(any_worlds())
def test_bfs_and_sat_agree_on_arbitrary_solvable_worlds(world: dict) -> None:
    exact = bfs(world)
    if exact.min_steps is None:
        return
    result = solve(world, bfs_prefix=0, max_conflicts=None)
    assert result.exact and result.min_steps == exact.min_steps
    assert _play(world, result.witness) == Rules(world).goal


def test_cyclic_world_uses_plain_bmc() -> None:
    world = world_of(["not B2", "B0", "B1"])
    result = solve(world)
    assert result.min_steps == bfs(world).min_steps == 3 and result.witness == [0, 1, 2]


def test_lite_n_follows_the_preset_weights_despite_rejection() -> None:
    from arena_gen.suite.build import generate_task

    gens = [generate_task("lights", "lite", 7, i) for i in range(30)]
    ns = [g.task.params["n"] for g in gens]
    assert min(ns) <= 7  # small worlds survive the min_len floor: N is not resampled
    assert all(g.task.certificate.min_steps >= 10 for g in gens)
    from arena_gen.core.seeds import attempt_seed, task_seed
    from arena_gen.envs.lights.sampler import PRESETS, sample

    rejected = [(i, g) for i, g in enumerate(gens) if g.attempts > 1]
    assert rejected
    for i, g in rejected:  # the first, rejected candidate already had the accepted task's N
        first = sample(PRESETS["lite"], attempt_seed(task_seed(7, "lite", 1, i), 0))
        assert first.params["n"] == g.task.params["n"]


def test_presets_record_exactly_the_released_manifest_dicts() -> None:
    # The manifest records preset(suite, env) minus "count": these dicts are its bytes.
    assert PRESETS["lite"].to_dict() == {
        "count": 30, "n_values": [6, 7, 8, 9, 10], "n_weights": [1, 2, 5, 14, 8],
        "max_literals": 8, "p_not": 0.55, "p_and": 0.6, "min_len": 10, "budget": 200,
        "max_attempts": 500}
    assert PRESETS["challenge"].to_dict() == {
        "count": 10, "n_values": list(range(16, 25)), "n_weights": [1] * 9, "max_literals": 8,
        "p_not": 0.55, "p_and": 0.6, "min_len_over_n": 4, "budget": 1000, "max_attempts": 500}
    for suite in ("lite", "challenge"):
        assert preset(suite, "lights", 1) == PRESETS[suite].to_dict()  # v1: the released
        assert LightsPreset.of(PRESETS[suite].to_dict()) == PRESETS[suite]
        # the sampler reads a preset and its dict form alike
        seq = np.random.SeedSequence([5, 1])
        assert sample(PRESETS[suite], seq) == sample(PRESETS[suite].to_dict(), seq)


@pytest.mark.parametrize("change, message", [
    ({"p_nto": 0.5}, "unknown LightsPreset knob 'p_nto'; did you mean 'p_not'\\?"),
    ({"p_not": 1.5}, "knob 'p_not' = 1.5 is outside \\[0.0, 1.0\\]"),
    ({"n_values": [6, 70]}, "knob 'n_values' has 70 outside \\[1, 64\\]"),
    ({"n_values": []}, "knob 'n_values' must be a non-empty list"),
    ({"n_values": [6, 7], "n_weights": [1]}, "one weight per value"),
    ({"n_weights": [0, 0, 0, 0, 0]}, "positive weight"),
    ({"max_literals": 0}, "max_literals"),
    ({"budget": "200"}, "knob 'budget' must be a whole number, got '200'"),
    ({"count": True}, "count"),
    ({"min_len": 300}, "floor 300 exceeds the budget 200"),
    ({"min_len_over_n": 4}, "exactly one of the knobs 'min_len' and 'min_len_over_n'"),
])
def test_preset_errors_name_the_key(change: dict, message: str) -> None:
    with pytest.raises(PresetError, match=message):
        LightsPreset.of({**PRESETS["lite"].to_dict(), **change})
    with pytest.raises(PresetError, match="unknown LightsPreset knob 'n_valeus'"):
        sample({**PRESETS["lite"].to_dict(), "n_valeus": [6]}, np.random.SeedSequence(0))
