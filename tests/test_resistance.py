"""Every task proves it resists model-free play (issue 38): the per-task rules, the random
bound against simulation, the certificate's record, and sealed lights Lite builds that succeed
from any fresh secret."""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import secrets
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from arena_gen.agents.random_agent import RandomAgent
from arena_gen.core import registry
from arena_gen.core.calibration import Calibration, calibration_for
from arena_gen.core.compiled import compiled
from arena_gen.core.seeds import attempt_seed, seed_path, task_seed
from arena_gen.core.task import Draft, Task
from arena_gen.envs.lights.game_v1 import Rules
from arena_gen.envs.lights.random_bound import random_bound, solve_probability
from arena_gen.envs.lights.sampler import sample
from arena_gen.envs.lights.sampler_v4 import PRESETS, RANDOM_EPSILON
from arena_gen.suite import resistance
from arena_gen.suite.attempts import Attempt, Origin, decide, try_attempt
from arena_gen.suite.build import build_suite, uncalibrated
from arena_gen.suite.catalog import preset
from arena_gen.suite.ladder import play_attempt
from arena_gen.suite.seal import Secret
from arena_gen.suite.verify import ladder_problem

SUITES_DIR = Path(__file__).resolve().parent.parent / "suites"


def _released(env: str, count: int = 30) -> list[Task]:
    """The first ``count`` tasks of the released seed-7 Lite ``env`` file (read alone)."""
    lines = (SUITES_DIR / "lite" / f"{env}.jsonl").read_text(encoding="utf-8").splitlines()
    return [Task.from_dict(json.loads(line)) for line in lines[:count]]


def test_the_new_fields_default_off_and_keep_released_calibrations_bytes() -> None:
    plain = Calibration()
    assert not plain.resistant
    assert "random_epsilon" not in plain.to_dict() and "reject_model_free" not in plain.to_dict()
    v3 = calibration_for(registry.get("lights", 3), "lite")
    assert v3 is not None and not v3.resistant
    assert set(v3.to_dict()) == {"random_attempts", "trivial_share", "require_planner",
                                 "inductive", "planner_floor", "random_ceiling",
                                 "induction_margin"}
    v4 = calibration_for(registry.get("lights", 4), "lite")
    assert v4 is not None and v4.resistant
    assert v4.to_dict()["random_epsilon"] == RANDOM_EPSILON and v4.to_dict()["reject_model_free"]
    assert dataclasses.replace(v3, random_epsilon=0.01, reject_model_free=True).resistant


def _ladder(free_successes: int) -> dict[str, dict[str, object]]:
    return {"random": {"kind": "random", "attempts": 4, "successes": 0},
            "sweep": {"kind": "model_free", "attempts": 1, "successes": free_successes},
            "planner": {"kind": "planner", "attempts": 1, "successes": 1}}


def test_a_task_a_model_free_rung_solves_or_random_too_likely_is_rejected() -> None:
    on = Calibration(random_epsilon=0.01, reject_model_free=True)
    assert on.task_problem(_ladder(0), 0.01) is None
    assert (on.task_problem(_ladder(1), 0.0) or "").startswith("model_free (solved by the "
                                                                "model-free rung sweep)")
    assert (on.task_problem(_ladder(0), 0.0125) or "").startswith("random (")
    off = Calibration()  # today's versions: neither rule
    assert off.task_problem(_ladder(1), 0.5) is None
    assert Calibration(reject_model_free=True).task_problem(_ladder(0), 0.9) is None


def _small_drafts(count: int) -> list[Draft]:
    """``count`` small lights worlds (5-6 bulbs, 40 turns): the random policy has a chance."""
    config = dataclasses.replace(PRESETS["lite"], n_values=(5, 6), n_weights=(1, 1),
                                 min_len=1, budget=40)
    return [sample(config, attempt_seed(task_seed(2026, "lite", 1, i), 0))
            for i in range(count)]


def _simulate(world: dict[str, Any], budget: int, episodes: int,
              rng: np.random.Generator) -> int:
    """Successes of ``episodes`` uniform random policies, stepped one toggle at a time by the
    game's own transition rule (a table of ``Rules.step``, not the bound's code)."""
    rules = compiled(Rules, world)
    table = np.array([[rules.step(s, b) for s in range(1 << rules.n)] for b in range(rules.n)])
    states = np.zeros(episodes, dtype=np.int64)
    solved = np.zeros(episodes, dtype=bool)
    for _ in range(budget):
        states = table[rng.integers(rules.n, size=episodes), states]
        solved |= states == rules.goal
    return int(solved.sum())


def test_the_exact_random_bound_agrees_with_simulation() -> None:
    rng = np.random.default_rng(np.random.SeedSequence([38, 1]))
    z, n = 2.576, 10_000  # the simulation's 99 % (Wilson) interval
    checked = []
    for draft in _small_drafts(20):
        p = solve_probability(compiled(Rules, draft.world), draft.budget)
        wins = _simulate(draft.world, draft.budget, n, rng)
        q = wins / n
        centre = (q + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(q * (1 - q) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        assert centre - half <= p <= centre + half, (p, wins)
        checked.append(p)
    assert min(checked) < 0.01 and max(checked) > 0.3  # the worlds span a range of chances


def test_the_exact_bound_is_within_the_generic_fallbacks_interval() -> None:
    draft = _small_drafts(1)[0]
    p = solve_probability(compiled(Rules, draft.world), draft.budget)
    rng = np.random.default_rng(np.random.SeedSequence([38, 2]))
    wins = _simulate(draft.world, draft.budget, 200, rng)
    assert p <= resistance.clopper_pearson_upper(wins, 200)
    assert resistance.clopper_pearson_upper(0, 200) == pytest.approx(1 - 0.01 ** (1 / 200))
    assert resistance.clopper_pearson_upper(200, 200) == 1.0


@pytest.fixture(scope="module")
def lights_stream() -> list[Attempt]:
    """The first attempts of three seed-7 lights v4 Lite task streams, as build decides them."""
    spec = registry.get("lights", 4)
    config = preset("lite", "lights", 4)
    return [try_attempt(spec, "lite", 7, index, attempt, config)
            for index in range(3) for attempt in range(8)]


def test_each_accepted_task_records_its_bound_and_every_model_free_outcome(
        lights_stream: list[Attempt]) -> None:
    accepted = [a.task for a in lights_stream if a.task is not None]
    assert accepted
    for task in accepted:
        record = task.certificate.facts["resistance"]
        assert record["random"] == {"bound": float(f"{random_bound(task):.9g}"), "exact": True,
                                    "method": "exact"}
        assert record["random"]["bound"] <= RANDOM_EPSILON
        assert record["model_free"] == {"climber": False, "optimist": False, "sweep": False}
        assert ladder_problem(task, registry.for_task(task)) is None
        forged = copy.deepcopy(task)
        forged.certificate.facts["resistance"]["random"]["bound"] = 0.0
        assert "certificate.resistance" in (ladder_problem(forged, registry.for_task(forged))
                                            or "")


def test_a_rejected_model_free_candidate_is_solved_by_the_rung_it_names(
        lights_stream: list[Attempt]) -> None:
    """Decided again with resistance off, each candidate rejected as ``model_free`` is
    accepted and its ladder shows the named rung solving it."""
    spec = registry.get("lights", 4)
    config = preset("lite", "lights", 4)
    cal = calibration_for(spec, "lite")
    assert cal is not None
    plain = dataclasses.replace(cal, random_epsilon=None, reject_model_free=False)
    rejected = [(pos // 8, pos % 8, tried) for pos, tried in enumerate(lights_stream)
                if tried.task is None and (tried.reason or "").startswith("model_free")]
    assert rejected, "no model-free rejection among the first attempts"
    for index, attempt, tried in rejected:
        rungs = (tried.reason or "").split("rung ")[1].rstrip(")").split(", ")
        origin = Origin(id=f"lights-lite-7-{index:04d}", suite="lite",
                        seed_path=seed_path(7, "lite", spec.code, index, attempt),
                        seq=attempt_seed(task_seed(7, "lite", spec.code, index), attempt))
        again = decide(spec, origin, config, plain)
        assert again.task is not None, again.reason
        ladder = again.task.certificate.facts["ladder"]
        assert "resistance" not in again.task.certificate.facts
        assert rungs == sorted(r for r in spec.model_free if ladder[r]["successes"] > 0)


def test_a_v3_task_keeps_its_bytes_without_resistance_facts() -> None:
    spec = registry.get("lights", 3)
    tried = [try_attempt(spec, "lite", 7, 0, a, preset("lite", "lights", 3)) for a in range(6)]
    task = next(t.task for t in tried if t.task is not None)
    assert "resistance" not in task.certificate.facts
    assert set(task.certificate.facts["ladder"]) == {"random", "sweep", "heuristic", "planner"}


def test_memory_rungs_walk_straight_to_all_on_where_every_toggle_works(
        lights_stream: list[Attempt]) -> None:
    """Where every condition holds, optimism's assumption is the truth: the optimist (and the
    sweep, off bulbs first) lights N bulbs in N turns; the climber too (uphill first)."""
    task = copy.deepcopy(next(a.task for a in lights_stream
                              if a.task is not None))
    n = int(task.world["n"])
    task.world = {"n": n, "conditions": [{"const": True}] * n}
    task.budget = n
    for name, factory in registry.get("lights", 4).load_model_free().items():
        for attempt in range(3):
            result = play_attempt(task, factory(), "inductive", attempt)
            assert result["success"] and result["steps"] == n, name


def test_the_optimist_is_stronger_than_the_sweep_on_released_lite() -> None:
    """Over seed 7's Lite lights as released on v3 (2026-12-02 to 2026-12-07; attempt 0:
    v4's own tasks reject whatever a model-free rung solves), the optimist solves more tasks
    than the v3 rung (the sweep) and than the hill-climber: the strongest rung."""
    tasks = build_suite("lite", 7, ["lights"], versions={"lights": 3}).tasks["lights"]
    agents = registry.get("lights", 4).load_model_free()
    wins = {name: sum(play_attempt(t, agents[name](), "inductive", k)["success"]
                      for t in tasks for k in range(1)) for name in agents}
    assert wins["optimist"] > max(wins["sweep"], wins["climber"]), wins


@pytest.mark.slow
def test_a_sealed_lights_lite_build_succeeds_from_any_fresh_secret() -> None:
    """Five fresh random 32-byte secrets: each sealed Lite build meets its calibration and
    every task resists model-free play (on today's main some secrets were refused)."""
    for _ in range(5):
        secret = Secret(secrets.token_bytes(32))
        built = build_suite("lite", 7, ["lights"], secret=secret, versions={"lights": 4})
        assert uncalibrated(built.manifest) == [], built.manifest["calibration"]["lights"]
        assert built.manifest["env_versions"] == {"lights": 4}
        rungs = built.manifest["calibration"]["lights"]["rungs"]
        assert all(rungs[r]["successes"] == 0 for r in ("sweep", "optimist", "climber"))
        for task in built.tasks["lights"]:
            record = task.certificate.facts["resistance"]
            assert record["random"]["bound"] <= RANDOM_EPSILON
            assert not any(record["model_free"].values())


def test_an_env_without_an_exact_bound_gets_the_clopper_pearson_fallback() -> None:
    """Energy v4 registers no exact bound: its certificate states the generic upper bound over
    100 seeded random episodes (run seed 0, attempt seeds 0..99), and its calibration is on."""
    spec = registry.get("energy", 4)
    assert spec.random_bound is None and calibration_for(spec, "lite").resistant  # type: ignore[union-attr]
    task = _released("energy", 1)[0]
    task.env_version = 4
    record = resistance.random_bound(task)
    assert record == {"bound": float(f"{1 - 0.01 ** (1 / 100):.9g}"), "exact": False,
                      "method": "clopper-pearson", "episodes": 100, "successes": 0,
                      "confidence": 0.99}
    assert record["bound"] <= calibration_for(spec, "lite").random_epsilon  # type: ignore[union-attr,operator]


@pytest.mark.parametrize("env", ["lights", "trading", "energy", "repo"])
def test_the_lean_random_episode_is_the_runners(env: str) -> None:
    """The fallback bound's lean random episodes end where the runner's do: same success and
    the same number of turns, attempt by attempt (tasks from small budgets up, where random
    play also succeeds); the bound's count (one game, hopeless episodes stopped) is theirs."""
    tasks = _released(env, 3)
    small = [dataclasses.replace(t, budget=b) for t in tasks[:1] for b in (1, 3, 8)]
    for task in [*tasks, *small]:
        wins = 0
        for attempt in range(4):
            record = play_attempt(task, RandomAgent(), "inductive", attempt)
            assert resistance.random_episode(task, attempt) == (
                record["success"], record["steps"]), (task.id, task.budget, attempt)
            wins += record["success"]
        assert resistance.random_successes(task, 4) == wins, (task.id, task.budget)
