"""The particle planner over the prior-aware posterior: exact distances, draws that fit every
outcome, and a solved six-bulb Lite world."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from arena_gen.core.agent import TaskView
from arena_gen.core.suite_io import read_suite
from arena_gen.envs.lights.agents.particles import _FAR, LightsParticleAgent, distances
from arena_gen.envs.lights.game_v1 import Rules, state_line
from arena_gen.envs.lights.induction import _distances

LITE = Path(__file__).resolve().parent.parent / "suites" / "lite"


def _brute(enabled: np.ndarray) -> np.ndarray:
    """Distances to all-on by Bellman rounds over every state (no search order)."""
    n, size = enabled.shape
    dist = np.full(size, _FAR, dtype=np.int64)
    dist[size - 1] = 0
    for _ in range(size):
        for s in range(size):
            for b in range(n):
                if enabled[b, s]:
                    dist[s] = min(dist[s], dist[s ^ (1 << b)] + 1)
    return dist


def test_distances_match_brute_force_and_the_world_solver() -> None:
    rng = np.random.default_rng(np.random.SeedSequence([39, 5]))
    for _ in range(20):
        n = int(rng.integers(2, 5))
        raw = rng.random((n, 1 << n)) < 0.6
        enabled = raw.copy()
        for b in range(n):  # a bulb's condition never reads the bulb itself
            low = np.arange(1 << n) & ~(1 << b)
            enabled[b] = raw[b, low]
        assert np.array_equal(distances(enabled), _brute(enabled))
    task = read_suite(LITE, envs=["lights"], task_ids=["lights-lite-7-0016"]).all_tasks()[0]
    rules = Rules(task.world)
    enabled = np.array([[rules.enabled(s, b) for s in range(64)] for b in range(6)])
    expect = _distances(task.world)
    expect[expect >= 1 << 30] = _FAR
    assert np.array_equal(distances(enabled), expect)


def test_particles_fit_every_outcome_and_it_solves_a_lite_world() -> None:
    task = read_suite(LITE, envs=["lights"], task_ids=["lights-lite-7-0016"]).all_tasks()[0]
    rules, agent = Rules(task.world), LightsParticleAgent()
    agent.reset(TaskView.of(task, "inductive"), "inductive", np.random.default_rng(0))
    state, seen = 0, []
    for _ in range(200):
        bulb = int(agent.act("State: " + state_line(state, rules.n)))
        after = rules.step(state, bulb)
        seen.append((state, bulb, after != state))
        state = after
        if state == rules.goal:
            break
        for enabled, _dist in agent.pool:
            assert all(enabled[b, s] == t for s, b, t in seen[:-1])
    assert state == rules.goal
