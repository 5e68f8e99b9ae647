"""Registry-wide invariants: every registered env passes check_env and its oracle scores 100."""

from __future__ import annotations

from conftest import built_tasks

from arena_gen.core import registry
from arena_gen.core.replay import replay
from arena_gen.suite.env_check import check_env


def test_check_env(env_name: str) -> None:
    spec = registry.get(env_name)
    for task in built_tasks(env_name, count=2):
        check_env(spec, task)


def test_witness_replays_to_success(env_name: str) -> None:
    for task in built_tasks(env_name, count=2):
        result = replay(task)
        assert result.success, task.id
        if task.certificate.min_steps is not None:
            assert result.steps == task.certificate.min_steps


def test_gym_id_and_version(env_name: str) -> None:
    spec = registry.get(env_name)
    assert spec.gym_id == f"arena_gen/{spec.gym_name}-v{spec.version}"
    doc = spec.load("game").__doc__ or ""
    for section in ("Description:", "Action Space:", "Observation:", "Starting State:",
                    "Rewards:", "Episode End:", "Information:", "Arguments:", "Version History:"):
        assert section in doc, (env_name, section)
