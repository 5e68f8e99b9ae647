"""Register every arena-gen env version with Gymnasium as ``arena_gen/<Name>-v<N>``.

Use: ``import arena_gen`` then ``gymnasium.make("arena_gen/TurnOnLights-v1", task=task)``,
where ``task`` is a :class:`~arena_gen.core.task.Task` or its JSON dict.
"""

from __future__ import annotations

from typing import Any

import gymnasium

from .core import registry
from .core.task import Task


def make_for_gym(task: Task | dict[str, Any], *, env: str, version: int,
                 render_mode: str | None = None) -> Any:
    """Gymnasium's entry point: the text env of ``task`` under one registered (env, version)."""
    task = task if isinstance(task, Task) else Task.from_dict(task)
    return registry.get(env, version).make(task, render_mode=render_mode)


def register_gym_envs() -> list[str]:
    """Register each (env, version) spec once; return the Gymnasium ids."""
    ids = []
    for spec in registry.all_specs():
        if spec.gym_id not in gymnasium.registry:
            gymnasium.register(id=spec.gym_id, entry_point=make_for_gym,  # type: ignore[arg-type]
                               kwargs={"env": spec.name, "version": spec.version},
                               disable_env_checker=True)
        ids.append(spec.gym_id)
    return ids
