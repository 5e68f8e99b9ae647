"""The constructive adversary of issue 39: every agent it plays ends on an accepted world of the
task's class where it used at least the certified lower bound (or failed)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from arena_gen.agents.registry import make_agent
from arena_gen.core.induction import Adversary, solve
from arena_gen.core.suite_io import read_suite
from arena_gen.envs.lights.adversary import play, relabel, relabellings
from arena_gen.envs.lights.bfs import bfs
from arena_gen.envs.lights.game_v1 import Rules, parse_action
from arena_gen.envs.lights.induction import lights_class
from arena_gen.suite.induction_bounds import Pool, accepts, adversary_for, pool_for

LITE = Path(__file__).resolve().parent.parent / "suites" / "lite"
#: Lite's six-bulb task (exact minimum 12, the cheapest to certify) and a ten-bulb one.
TASKS = ("lights-lite-7-0016", "lights-lite-7-0000")
LADDER = ("random", "sweep", "optimist", "climber", "heuristic", "planner", "prior_aware",
          "prior_sequential")


@pytest.fixture(scope="module", params=TASKS)
def certified(request):  # type: ignore[no-untyped-def]
    task = read_suite(LITE, envs=["lights"], task_ids=[request.param]).all_tasks()[0]
    pool = pool_for(task, [], relabel=7, hardest=0, seed=0)
    return task, pool, adversary_for(pool, task.budget)


def _replay(world: dict, actions: list[str]) -> tuple[int, bool]:
    """Steps and success of ``actions`` on ``world`` itself, stopping at all-on."""
    rules, state = Rules(world), 0
    for i, text in enumerate(actions):
        state = rules.step(state, parse_action(text, rules.n))
        if state == rules.goal:
            return i + 1, True
    return len(actions), False


def _check(task, pool: Pool, adversary: Adversary, agent, rng, mode: str) -> None:  # type: ignore[no-untyped-def]
    played = play(task, agent, adversary, rng, mode=mode)
    assert played.consistent, "the adversary kept no world"
    named = pool.worlds[played.consistent[0]]
    # the episode is exactly the named world's: replaying it there gives the same outcome
    assert _replay(named, played.actions) == (played.steps, played.success)
    assert not played.success or played.steps >= adversary.lower
    assert accepts(task, named)


def test_pool_is_accepted_and_lower_beats_the_told_minimum(certified) -> None:  # type: ignore[no-untyped-def]
    task, pool, adversary = certified
    assert len(pool.worlds) + pool.refused == 8
    assert adversary.lower > task.certificate.min_steps
    assert all(bfs(w).min_steps == task.certificate.min_steps for w in pool.worlds)


@pytest.mark.parametrize("name", LADDER)
def test_adversary_against_the_ladder(certified, name: str) -> None:  # type: ignore[no-untyped-def]
    task, pool, adversary = certified
    mode = "with-rules" if name == "planner" else "inductive"
    _check(task, pool, adversary, make_agent(name, "lights", version=4),
           np.random.default_rng(0), mode)


def test_adversary_against_random_20_seeds(certified) -> None:  # type: ignore[no-untyped-def]
    task, pool, adversary = certified
    for seed in range(20):
        rng = np.random.default_rng(np.random.SeedSequence([39, seed]))
        _check(task, pool, adversary, make_agent("random", "lights", version=4), rng,
               "inductive")


def test_adversary_lower_is_the_exact_worst_case_on_a_small_class() -> None:
    """On lights N 3 (exact class), the adversary's lower is W* from the full belief graph, and
    no action sequence beats it: every sequence reaching all-on against it is at least that
    long (exhaustive over sequences of up to W* - 1 actions)."""
    cls = lights_class(3, budget=40, max_literals=1, p_not=0.55, p_and=0.6, min_len=2).world_class()
    adversary = Adversary(cls, 40)
    assert adversary.lower == solve(cls, 40).worst == 9

    def reaches(prefix: tuple[int, ...]) -> bool:
        adversary.reset()
        return any(adversary.answer(a) == 7 for a in prefix)

    frontier: list[tuple[int, ...]] = [()]
    for _ in range(adversary.lower - 1):
        frontier = [p + (a,) for p in frontier for a in range(3)]
        assert not any(reaches(p) for p in frontier)


def test_relabel_keeps_the_rules_up_to_names() -> None:
    world = {"n": 3, "order": [2, 0, 1], "conditions": [
        {"var": 2}, {"and": [{"not": {"var": 2}}, {"var": 0}]}, {"const": True}]}
    assert relabel(world, [0, 1, 2]) == world
    moved = relabel(world, [1, 2, 0])
    assert moved["order"] == [0, 1, 2] and moved["conditions"][0] == {"const": True}
    for other in relabellings(world, 5, np.random.SeedSequence(1)):
        assert bfs(other).min_steps == bfs(world).min_steps


def test_adversary_lower_matches_the_full_belief_graph_on_small_pools() -> None:
    """Pools of sampled four-bulb worlds and their relabellings: the adversary's iterative
    deepening gives the worst case of the whole belief graph's value iteration, and random
    learners against it never finish sooner."""
    from arena_gen.envs.lights.induction import world_class
    from arena_gen.envs.lights.sampler import make_conditions

    root = np.random.SeedSequence([39, 4])
    for seq in root.spawn(6):
        a, b, c = (np.random.default_rng(s) for s in seq.spawn(3))
        order = [int(x) for x in a.permutation(4)]
        conds = make_conditions(4, order, b, max_literals=2, p_not=0.55, p_and=0.6)
        base = {"n": 4, "order": order, "conditions": conds}
        worlds = [base, *relabellings(base, 5, np.random.SeedSequence(int(c.integers(1 << 30))))]
        worlds = [w for w in worlds if bfs(w).min_steps is not None]
        cls = world_class(worlds, [1.0] * len(worlds))
        adversary = Adversary(cls, 40)
        assert adversary.lower == solve(cls, 40).worst
        for _ in range(10):
            adversary.reset()
            for t in range(1, 200):
                if adversary.answer(int(c.integers(4))) == 15:
                    assert t >= adversary.lower
                    break
