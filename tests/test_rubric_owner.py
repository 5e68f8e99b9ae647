"""One owner of success (#23): a task's rubric is its game's, so a rubric id renamed anywhere
but the game (a sampler, an importer) or a game whose checks emit another id is refused by
build and import, fails verify naming ``rubric``, and fails the registry-wide agreement check.
Before, such a task built, verified and replayed to success, and then scored success_rate 0."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import toy_env
from conftest import built_tasks_of
from test_import_derived import _first_entry

from arena_gen.core import registry
from arena_gen.core.errors import ArenaGenError
from arena_gen.core.game import Check
from arena_gen.core.task import Draft, RubricItem, Task
from arena_gen.envs.lights import importer as lights_importer
from arena_gen.envs.trading import sampler_v1
from arena_gen.suite.build import generate_task
from arena_gen.suite.importer import import_tasks
from arena_gen.suite.verify import check_task


def _renamed(rubric: list[RubricItem], old: str, new: str) -> list[RubricItem]:
    assert old in [r.id for r in rubric]
    return [RubricItem(new, r.text) if r.id == old else r for r in rubric]


def _rename_in_sampler(monkeypatch: pytest.MonkeyPatch) -> None:
    """Trading v1's sampler writes ``beats_hld`` for ``beats_hold`` (the broken row of #23)."""
    sample = sampler_v1.sample

    def renaming(config: Mapping[str, Any], seq: np.random.SeedSequence) -> Draft:
        draft = sample(config, seq)
        draft.rubric = _renamed(draft.rubric, "beats_hold", "beats_hld")
        return draft

    monkeypatch.setattr(sampler_v1, "sample", renaming)


def test_build_refuses_a_sampler_that_renames_a_rubric_id(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _rename_in_sampler(monkeypatch)
    with pytest.raises(ArenaGenError, match="rubric item 1 is 'beats_hld' but "
                                            "TradingGame.rubric has 'beats_hold'"):
        generate_task("trading", "lite", 7, 0, version=1)


def test_verify_fails_a_task_whose_rubric_is_not_its_games(
        monkeypatch: pytest.MonkeyPatch) -> None:
    sound = built_tasks_of("trading", 1, count=1)[0]
    assert check_task(sound).ok
    # The task as a build with the renamed sampler froze it: its own sampler gives the same
    # rubric back, so re-deriving from the seed path alone cannot see it.
    task = Task.from_dict(sound.to_dict())
    task.rubric = _renamed(task.rubric, "beats_hold", "beats_hld")
    _rename_in_sampler(monkeypatch)
    check = check_task(task)
    assert not check.ok
    assert check.problem == "rubric item 1 is 'beats_hld' but TradingGame.rubric has 'beats_hold'"


class RenamedCheckGame(toy_env.CounterGame):
    """The toy whose checks emit ``at_goal`` while its rubric (and task) say ``at_target``."""

    def checks(self, facts: toy_env.CounterFacts) -> list[Check]:
        return [Check("at_goal", facts.value == facts.target, f"value {facts.value}")]


class RenamedRubricGame(toy_env.CounterGame):
    """The toy whose rubric says ``at_goal`` while its checks (and sampler) say ``at_target``."""

    @classmethod
    def rubric(cls, params: Mapping[str, Any], world: Mapping[str, Any]) -> list[RubricItem]:
        return [RubricItem("at_goal", "The value equals the target.")]


@pytest.fixture()
def sound_counter_task() -> Iterator[Task]:
    """A counter task built with the sound game; the test then registers a faulty one."""
    registry.register(toy_env.spec(1))
    try:
        task = generate_task("counter", "lite", 0, 0).task
        registry.unregister("counter")
        yield task
    finally:
        registry.unregister("counter")


@pytest.mark.parametrize(("game", "problem"), [
    (RenamedCheckGame, "rubric item 0 is 'at_target' but RenamedCheckGame.checks at the start "
                       "emits 'at_goal'"),
    (RenamedRubricGame, "the sampler's rubric item 0 is 'at_target' but "
                        "RenamedRubricGame.rubric has 'at_goal'"),
])
def test_build_refuses_a_game_whose_rubric_and_checks_disagree(
        sound_counter_task: Task, game: type[toy_env.CounterGame], problem: str) -> None:
    registry.register(toy_env.spec(1, game=game))
    with pytest.raises(ArenaGenError) as caught:
        generate_task("counter", "lite", 0, 0)
    assert str(caught.value).endswith(problem)
    # verify names the rubric too (the task was built when the game was sound)
    check = check_task(sound_counter_task)
    assert not check.ok and check.problem is not None and "rubric item 0" in check.problem
    assert "'at_goal'" in check.problem


@pytest.mark.parametrize("game", [RenamedCheckGame, RenamedRubricGame])
def test_agreement_check_names_the_renamed_id(sound_counter_task: Task,
                                              game: type[toy_env.CounterGame]) -> None:
    from arena_gen.suite.env_check import EnvCheckError, check_rubric

    check_rubric(toy_env.spec(1), sound_counter_task)  # the sound game agrees
    with pytest.raises(EnvCheckError, match="'at_goal'"):
        check_rubric(toy_env.spec(1, game=game), sound_counter_task)


def test_import_refuses_an_importer_that_renames_a_rubric_id(
        shared_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _first_entry(shared_dir, "lights", tmp_path)
    assert [r.id for r in import_tasks("lights", [path])[0].rubric] == ["all_on"]
    derive = lights_importer.derive

    def renaming(world: Mapping[str, Any], source: Mapping[str, Any]) -> Draft:
        draft = derive(world, source)
        draft.rubric = _renamed(draft.rubric, "all_on", "all_lit")
        return draft

    monkeypatch.setattr(lights_importer, "derive", renaming)
    with pytest.raises(ArenaGenError, match="rubric item 0 is 'all_lit' but LightsGame.rubric "
                                            "has 'all_on'"):
        import_tasks("lights", [path])


def test_rubric_problem_names_texts_and_missing_items() -> None:
    from arena_gen.core.game import items_problem, rubric_problem
    from arena_gen.envs.trading.game_v1 import TradingGame
    from arena_gen.envs.trading.game_v2 import TradingGameV2

    v2 = TradingGameV2.rubric({"planner_share": 0.9}, {})
    assert "0.9 x the certificate's planner_growth" in v2[2].text
    assert rubric_problem(TradingGameV2, {"planner_share": 0.9}, {}, v2) is None
    problem = rubric_problem(TradingGameV2, {"planner_share": 0.8}, {}, v2)
    assert problem is not None and problem.startswith("rubric item 2 ('planner_growth') text ")
    assert "0.8 x" in problem
    v1 = TradingGame.rubric({}, {})
    assert rubric_problem(TradingGame, {}, {}, v1[:2]) == (
        "rubric has 2 items, TradingGame.rubric 3 (only TradingGame.rubric has 'half_oracle')")
    assert items_problem(["profitable", "beats_hold", "half_oracle", "extra"], v1, "X") == (
        "rubric has 3 items, X 4 (only X has 'extra')")
    assert items_problem(["profitable", "beats_hold", "half_oracle"], v1, "X") is None
