"""Registry-wide invariants, for every registered (env, version), not only the newest:
check_env, the witness replays to success, the game's rubric and checks agree, the game
docstring has its sections, and the same seed builds the same bytes."""

from __future__ import annotations

from conftest import built_tasks_of

from arena_gen.core import registry
from arena_gen.core.canon import canonical_json
from arena_gen.core.game import play
from arena_gen.core.replay import replay
from arena_gen.core.seeds import attempt_seed, task_seed
from arena_gen.suite.build import generate_task
from arena_gen.suite.catalog import preset
from arena_gen.suite.env_check import check_env, check_rubric

SECTIONS = ("Description:", "Action Space:", "Observation:", "Starting State:", "Rewards:",
            "Episode End:", "Information:", "Rubric:", "Arguments:", "Version History:")


def test_check_env(env_key: tuple[str, int]) -> None:
    spec = registry.get(*env_key)
    for task in built_tasks_of(*env_key, count=2):
        assert task.env_version == spec.version
        check_env(spec, task)


def test_witness_replays_to_success(env_key: tuple[str, int]) -> None:
    for task in built_tasks_of(*env_key, count=2):
        result = replay(task)
        assert result.success, task.id
        if task.certificate.min_steps is not None:
            assert result.steps == task.certificate.min_steps


def test_rubric_is_the_games_and_its_checks_emit_it(env_key: tuple[str, int]) -> None:
    """The ids a judge emits (the game's checks) are the task's rubric ids, in order, at the
    start and after the witness, and the rubric is the game's own: else success scores 0."""
    spec = registry.get(*env_key)
    game_cls = spec.load("game")
    for task in built_tasks_of(*env_key, count=2):
        ids = [r.id for r in task.rubric]
        assert ids and len(set(ids)) == len(ids), task.id
        assert task.rubric == game_cls.rubric(task.params, task.world), task.id
        game = spec.make_game(task)
        run = play(game, task.certificate.witness, budget=task.budget)
        for state in (run.states[0], run.final):
            assert [c.item for c in game.checks(game.facts(state))] == ids, task.id
        assert run.success
        assert all(c.met is True for c in game.checks(game.facts(run.final)))
        check_rubric(spec, task)


def test_gym_id_and_game_docstring(env_key: tuple[str, int]) -> None:
    spec = registry.get(*env_key)
    assert spec.gym_id == f"arena_gen/{spec.gym_name}-v{spec.version}"
    doc = spec.load("game").__doc__ or ""
    for section in SECTIONS:
        assert section in doc, (env_key, section)
    assert f"v{spec.version}:" in doc, (env_key, "no Version History line for this version")


def test_same_seed_same_bytes(env_key: tuple[str, int]) -> None:
    """The sampler and the whole build are deterministic: a second build of a task gives the
    same bytes, and the same attempt seed the same draft."""
    name, version = env_key
    first = built_tasks_of(name, version, count=2)[0]
    again = generate_task(name, "lite", 7, 0, version=version).task
    assert canonical_json(again.to_dict()) == canonical_json(first.to_dict())
    spec = registry.get(name, version)
    config = preset("lite", name, version)
    root = task_seed(7, "lite", spec.code, 1)
    a, b = ({**vars(d), "rubric": [r.to_dict() for r in d.rubric]}
            for d in (spec.load("sampler")(config, attempt_seed(root, 0)) for _ in range(2)))
    assert canonical_json(a) == canonical_json(b)
