"""Register every arena-gen env with Gymnasium as ``arena_gen/<Name>-v<N>``.

Use: ``import arena_gen`` then ``gymnasium.make("arena_gen/TurnOnLights-v1", task=task)``,
where ``task`` is a :class:`~arena_gen.core.task.Task` or its JSON dict.
"""

from __future__ import annotations

import gymnasium

from .core import registry


def register_gym_envs() -> list[str]:
    """Register each env spec once; return the Gymnasium ids."""
    ids = []
    for spec in registry.specs():
        if spec.gym_id not in gymnasium.registry:
            gymnasium.register(id=spec.gym_id, entry_point=spec.env, disable_env_checker=True)
        ids.append(spec.gym_id)
    return ids
