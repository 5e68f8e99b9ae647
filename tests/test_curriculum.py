"""Curricula: each env's ordered difficulty levels are stream levels, and the controller holds
an agent's success rate at its target, deterministically for a seed and an outcome sequence."""

from __future__ import annotations

import dataclasses
import itertools
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from arena_gen.cli import main
from arena_gen.core import registry
from arena_gen.core.calibration import Calibration
from arena_gen.core.canon import canonical_bytes
from arena_gen.core.episode import Episode
from arena_gen.core.errors import ArenaGenError
from arena_gen.core.replay import check_witness
from arena_gen.core.schema import validate_task
from arena_gen.core.seeds import level_code, stream_seed, suite_code, task_seed
from arena_gen.core.suite_io import read_suite
from arena_gen.core.task import Task
from arena_gen.suite.catalog import preset
from arena_gen.suite.ladder import climb
from arena_gen.train import Curriculum, stream
from arena_gen.train.levels import curriculum_levels, level_knobs, level_preset, stream_levels
from arena_gen.train.stream import StreamJob, draw

ENVS = ("lights", "trading", "energy", "repo")
#: A scripted agent's success probability per level: it falls with the level and straddles
#: every target the tests ask for.
RATES = {"L1": 0.95, "L2": 0.8, "L3": 0.6, "L4": 0.35, "L5": 0.15}


def scripted(curriculum: Curriculum, episodes: int, seed: int) -> None:
    """Drive ``curriculum`` with a seeded synthetic agent of success probability RATES."""
    coins = np.random.default_rng(np.random.SeedSequence(entropy=seed, spawn_key=(1,)))
    for _ in range(episodes):
        level = curriculum.next_level()
        curriculum.report(level, bool(coins.random() < RATES[level]))


# -- the levels -----------------------------------------------------------------------------------

@pytest.mark.parametrize("env", ENVS)
def test_every_env_has_ordered_levels_of_its_own_preset_kind(env: str) -> None:
    spec = registry.get(env)
    levels = curriculum_levels(env)
    assert levels == [f"L{k}" for k in range(1, len(levels) + 1)] and len(levels) >= 4
    assert stream_levels(env) == ["lite", "challenge", *levels]
    lite = spec.load("presets")["lite"]
    table = spec.load("levels")
    for level in levels:
        assert type(table[level]) is type(lite)  # a preset of the env's own kind, validated
        assert level_preset(level, env) == dict(table[level])
    # Each level differs from the one below it in some knob (no two levels are the same).
    for lower, upper in itertools.pairwise(levels):
        assert level_preset(lower, env) != level_preset(upper, env)


def test_a_level_names_only_what_it_changes() -> None:
    assert level_knobs("L1", "lights") == {"n_values": [5, 6], "n_weights": [1, 1],
                                           "min_len": 6}
    assert level_knobs("L3", "trading") == {}  # Trading's L3 is Lite itself
    # Trading v4's L4: Challenge's stocks and factors over Lite's days at a factor scale
    # between the presets'; its L5: Challenge with 240 days. v3's levels stay v3's.
    assert level_knobs("L4", "trading") == {"stocks": [10, 16], "factors": [6, 10],
                                            "cover_grid": False, "w_max": 1.2}
    assert level_preset("L5", "trading") == {**preset("challenge", "trading"), "horizon": 240}
    assert level_knobs("L4", "trading", 3) == {**level_knobs("L4", "trading"), "w_max": 0.5}
    assert level_preset("L5", "trading", 3) == preset("challenge", "trading", 3)
    # Repo orders its levels by the share of high-priority packages (side effects): fewer
    # below Lite, more above.
    assert level_knobs("L4", "repo") == {"p_high": 0.65}
    assert level_knobs("L2", "repo") == {"n_min": 7, "n_max": 9, "n_hidden": 1, "min_len": 4,
                                         "p_high": 0.3}
    assert level_preset("L5", "repo") == {**preset("challenge", "repo"), "p_high": 0.7}
    assert level_knobs("L4", "energy") == {"horizon": 180, "t_min": 35, "shift": True,
                                           "swing": 1.6, "shifts": 1, "min_regime": 60}
    assert level_knobs("L5", "energy") == {**level_knobs("challenge", "energy"), "shifts": 3,
                                           "min_regime": 80}


def test_level_codes_keep_the_suite_presets_and_give_levels_their_own_trees() -> None:
    assert level_code("lite") == suite_code("lite") and level_code("challenge") == 2
    assert [level_code(f"L{k}") for k in (1, 2, 10)] == [17, 18, 26]
    assert stream_seed(7, "lite", 1, 3).entropy == task_seed(7, "lite", 1, 3).entropy
    codes = {level_code(level) for level in ("lite", "challenge", "custom", "import",
                                              *curriculum_levels("lights"))}
    assert len(codes) == 4 + len(curriculum_levels("lights"))
    with pytest.raises(ArenaGenError, match="unknown suite"):
        level_code("L0")


@pytest.mark.parametrize("env", ENVS)
def test_the_easiest_level_streams_certified_reproducible_tasks(env: str) -> None:
    task = next(stream(env, "L1", 5, count=1))
    assert task.suite == "stream_l1" and task.id == f"{env}-stream_l1-5-0000"
    assert task.seed_path[:4] == [5, level_code("L1"), registry.get(env).code, 0]
    validate_task(task.to_dict())
    assert check_witness(task).success
    again = next(stream(env, "L1", 5, count=1))
    assert canonical_bytes(again.to_dict()) == canonical_bytes(task.to_dict())


def test_an_ablation_draws_on_the_levels_tree_and_plays_only_the_rungs_asked() -> None:
    """``draw``'s preset override and ``climb``'s rung filter (what ``bench_levels.py --set
    --rungs`` uses): the level's own preset draws the stream's task, a changed knob draws
    from the same tree under the new knob, and the rungs played are the full ladder's."""
    job = StreamJob("lights", registry.get("lights").version, "L1", 5, 0, False, frozenset())
    task = draw(job).task
    same = draw(job, level_preset("L1", "lights")).task
    assert canonical_bytes(same.to_dict()) == canonical_bytes(task.to_dict())
    longer = draw(job, {**level_preset("L1", "lights"), "min_len": 8}).task
    assert longer.seed_path[:4] == task.seed_path[:4] and longer.params["min_len"] == 8
    assert (longer.certificate.min_steps or 0) >= 8
    full = climb(task, Calibration())
    part = climb(task, Calibration(), {"heuristic", "planner"})
    assert list(part) == ["heuristic", "planner"] and len(full) > 2
    assert part == {rung: full[rung] for rung in part}


def test_lights_levels_get_harder_by_their_knobs() -> None:
    """Bulb counts and exact minima rise with the level (the knobs the levels are made of)."""
    seen = {}
    for level in curriculum_levels("lights"):
        tasks = list(stream("lights", level, 3, count=3))
        seen[level] = (min(t.params["n"] for t in tasks),
                       min(t.certificate.min_steps or 0 for t in tasks))
        assert all(t.certificate.min_steps is not None
                   and t.certificate.min_steps >= t.params["min_len"] for t in tasks)
    ns = [n for n, _ in seen.values()]
    assert ns == sorted(ns) and ns[0] < ns[-1]
    assert seen["L5"][1] > seen["L1"][1]


def test_a_level_without_calibration_has_no_ladder_and_unknown_levels_fail() -> None:
    with pytest.raises(ArenaGenError, match="no ladder calibration"):
        stream("lights", "L2", 1, ladder=True)
    with pytest.raises(ArenaGenError, match="unknown level 'L9'"):
        stream("lights", "L9", 1)
    with pytest.raises(ArenaGenError, match="unknown level 'l2'"):
        stream("lights", "l2", 1)


def test_the_cli_streams_a_level(tmp_path: Path) -> None:
    out = tmp_path / "s"
    result = CliRunner().invoke(main, ["stream", "lights", "--level", "L2", "--seed", "3",
                                       "--count", "2", "--out", str(out), "--jobs", "1",
                                       "--display", "plain"])
    assert result.exit_code == 0, result.output
    suite = read_suite(out)  # schema-validated, hashes checked
    assert suite.manifest["suite"] == "stream_l2"
    assert suite.manifest["presets"]["lights"]["n_values"] == [7, 8]
    assert suite.manifest["build"]["lights"]["stream"]["level"] == "L2"
    assert [t.id for t in suite.tasks["lights"]] == ["lights-stream_l2-3-0000",
                                                     "lights-stream_l2-3-0001"]
    bad = CliRunner().invoke(main, ["stream", "lights", "--level", "L0", "--seed", "3",
                                    "--count", "1", "--out", str(tmp_path / "t")])
    assert bad.exit_code != 0 and "unknown level" in bad.output


# -- the controller ------------------------------------------------------------------------------

@pytest.mark.parametrize("target", [0.3, 0.5, 0.7])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_controller_holds_a_scripted_agent_at_the_target(target: float, seed: int) -> None:
    """After 100 warm-up episodes the success rate of the next 900 is within 10 points of the
    target (the staircase's own bound is much tighter: see the docstring of the module)."""
    curriculum = Curriculum("lights", target=target, seed=seed)
    scripted(curriculum, 1000, seed)
    rate = curriculum.success_rate(skip=100)
    assert rate is not None and abs(rate - target) <= 0.10
    # It got there by moving: every level but the ends is visited, none is stuck to.
    visited = {o.next_level for o in curriculum.history[100:]}
    assert {"L2", "L3", "L4"} <= visited
    # At target 0.5 each success steps up and each failure down: the gap is bounded by the
    # levels climbed and the steps lost at the ends.
    if target == 0.5:
        ups = sum(o.success for o in curriculum.history)
        assert abs(2 * ups - len(curriculum.history)) <= 40


def test_the_controller_follows_an_agent_that_learns() -> None:
    """An agent whose rates rise halfway is pushed to harder levels and still held."""
    curriculum = Curriculum("lights", target=0.5, seed=4)
    coins = np.random.default_rng(np.random.SeedSequence(entropy=4, spawn_key=(1,)))
    levels = curriculum.levels
    for episode in range(1200):
        shift = 0 if episode < 600 else 1  # later, level k is as easy as level k - 1 was
        level = curriculum.next_level()
        rate = RATES[levels[max(0, levels.index(level) - shift)]]
        curriculum.report(level, bool(coins.random() < rate))
    early = [levels.index(o.next_level) for o in curriculum.history[100:600]]
    late = [levels.index(o.next_level) for o in curriculum.history[700:]]
    assert sum(late) / len(late) >= sum(early) / len(early) + 0.7
    late_rate = sum(o.success for o in curriculum.history[700:]) / 500
    assert abs(late_rate - 0.5) <= 0.10


def test_the_same_seed_and_outcomes_give_the_same_levels() -> None:
    outcomes = [bool(b) for b in np.random.default_rng(np.random.SeedSequence(9)).random(300)
                < 0.55]

    def levels(seed: int) -> list[str]:
        curriculum = Curriculum("trading", target=0.7, seed=seed)
        return [curriculum.report(curriculum.next_level(), ok) for ok in outcomes]

    assert levels(3) == levels(3)
    assert levels(3) != levels(4)  # at target 0.7 the up step is a coin: the seed matters
    # At target 0.5 no coin is flipped: the seed cannot matter.
    first, second = Curriculum("energy", seed=1), Curriculum("energy", seed=2)
    for ok in outcomes:
        assert first.report(first.next_level(), ok) == second.report(second.next_level(), ok)


def test_a_report_from_another_level_moves_only_when_it_says_something() -> None:
    curriculum = Curriculum("repo", target=0.5, start=2)
    assert curriculum.next_level() == "L3"
    assert curriculum.report("L1", True) == "L3"   # an easier success: nothing new
    assert curriculum.report("L5", False) == "L3"  # a harder failure: nothing new
    assert curriculum.report("L5", True) == "L4"   # a harder success: up
    assert curriculum.report("L1", False) == "L3"  # an easier failure: down
    assert curriculum.rates()["L1"] == 0.5 and curriculum.rates()["L2"] is None


def test_next_task_draws_from_the_chosen_levels_stream() -> None:
    curriculum = Curriculum("lights", ["L1", "L4"], seed=6)
    level, task = curriculum.next_task()
    assert level == "L1" and task.id == "lights-stream_l1-6-0000"
    curriculum.report(level, True)
    level, task = curriculum.next_task()
    assert level == "L4" and task.id == "lights-stream_l4-6-0000"
    curriculum.report(level, False)
    level, task = curriculum.next_task()
    assert level == "L1" and task.id == "lights-stream_l1-6-0001"


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"target": 0.0}, "target"), ({"target": 1}, "target"), ({"target": True}, "target"),
    ({"seed": -1}, "seed"), ({"levels": []}, "levels"), ({"levels": ["L1", "L1"]}, "repeat"),
    ({"levels": ["L1", "L7"]}, "unknown level"), ({"start": 5}, "start"),
    ({"window": 0}, "window"),
])
def test_bad_arguments_are_refused(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ArenaGenError, match=message):
        Curriculum("lights", **kwargs)  # type: ignore[arg-type]


def test_bad_reports_are_refused() -> None:
    curriculum = Curriculum("lights")
    with pytest.raises(ArenaGenError, match="not one of"):
        curriculum.report("lite", True)
    with pytest.raises(ArenaGenError, match="true or false"):
        curriculum.report("L1", 1)  # type: ignore[arg-type]
    assert curriculum.history == []


@settings(max_examples=200, deadline=None)
@given(target=st.floats(min_value=0.01, max_value=0.99),
       seed=st.integers(min_value=0, max_value=2**32),
       start=st.integers(min_value=0, max_value=4),
       outcomes=st.lists(st.tuples(st.integers(min_value=0, max_value=4), st.booleans()),
                         max_size=200))
def test_levels_stay_in_range_for_any_outcomes(target: float, seed: int, start: int,
                                               outcomes: list[tuple[int, bool]]) -> None:
    curriculum = Curriculum("lights", target=target, seed=seed, start=start)
    replay = Curriculum("lights", target=target, seed=seed, start=start)
    position = start
    for index, ok in outcomes:
        level = curriculum.levels[index]
        after = curriculum.report(level, ok)
        assert after in curriculum.levels and after == curriculum.next_level()
        moved = curriculum.levels.index(after) - position
        assert moved in (-1, 0, 1)
        assert moved >= 0 if ok else moved <= 0  # a success never steps down, nor a failure up
        position += moved
        assert replay.report(level, ok) == after
    assert len(curriculum.history) == len(outcomes)


def _play(task: Task, agent: object) -> bool:
    """One episode of ``agent`` on ``task`` as the runner plays it (run seed 0)."""
    episode = Episode(task, agent, mode="inductive", attempt=0, run_seed=0)
    while not episode.over:
        episode.step(agent.act(episode.obs), 0.0)  # type: ignore[attr-defined]
    return bool(episode.env is not None and episode.env.success)


@pytest.mark.slow
def test_the_controller_holds_a_real_agent_on_lights_streams() -> None:
    """The lights inductive heuristic (the version-space learner) on real stream tasks of the
    three easiest levels, held at 50 % after warm-up (L4 and L5 cost it seconds an episode)."""
    spec = registry.get("lights")
    factory = spec.load("heuristic")
    curriculum = Curriculum("lights", ["L1", "L2", "L3"], target=0.5, seed=1)
    for _ in range(60):
        level, task = curriculum.next_task()
        curriculum.report(level, _play(task, factory()))
    rate = curriculum.success_rate(skip=15)
    assert rate is not None and abs(rate - 0.5) <= 0.10
    assert len({o.level for o in curriculum.history}) >= 2


def test_outcomes_are_plain_records() -> None:
    curriculum = Curriculum("lights")
    curriculum.report("L1", True)
    assert dataclasses.asdict(curriculum.history[0]) == {"level": "L1", "success": True,
                                                         "next_level": "L2"}
