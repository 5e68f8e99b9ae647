"""Register every arena-gen env version with Gymnasium as ``arena_gen/<Name>-v<N>``.

Use: ``import arena_gen`` then ``gymnasium.make("arena_gen/TurnOnLights-v1", task=task)``,
where ``task`` is a :class:`~arena_gen.core.task.Task` or its JSON dict. ``import arena_gen``
does not import Gymnasium (it costs about 0.1 s and most commands never need it): if Gymnasium
is already loaded the ids are registered at once, otherwise right after Gymnasium's own import.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence
    from importlib.machinery import ModuleSpec
    from types import ModuleType

    from arena_gen.core.task import Task


def make_for_gym(task: Task | dict[str, Any] | None = None, *, env: str, version: int,
                 render_mode: str | None = None) -> Any:
    """Gymnasium's entry point: the text env of ``task`` under one registered (env, version)."""
    from arena_gen.core import registry
    from arena_gen.core.errors import ArenaGenError
    from arena_gen.core.task import Task

    if task is None:  # gymnasium.make(id) alone: every arena-gen env plays one task
        name = registry.get(env, version).gym_id
        raise ArenaGenError(
            f"{name} needs a task: gymnasium.make({name!r}, task=TASK), where TASK is a Task or "
            f"its JSON dict (e.g. arena_gen.core.suite_io.read_task('lite', "
            f"'{env}-lite-7-0000')); for a stream of fresh tasks use "
            f"arena_gen.train.vector.make_vec")

    task = task if isinstance(task, Task) else Task.from_dict(task)
    return registry.get(env, version).make(task, render_mode=render_mode)


def register_gym_envs() -> list[str]:
    """Register each (env, version) spec once; return the Gymnasium ids."""
    import gymnasium

    from arena_gen.core import registry

    ids = []
    for spec in registry.all_specs():
        if spec.gym_id not in gymnasium.registry:
            gymnasium.register(id=spec.gym_id, entry_point=make_for_gym,  # type: ignore[arg-type]
                               kwargs={"env": spec.name, "version": spec.version},
                               disable_env_checker=True)
        ids.append(spec.gym_id)
    return ids


class _RegisterAfterImport:
    """A ``sys.meta_path`` finder that finds nothing itself: it lets the normal finders load
    ``gymnasium``, then registers (importlib.abc is not imported: it costs 15 ms)."""

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if fullname != "gymnasium":
            return None
        import importlib.util

        _uninstall()
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        loader: Any = spec.loader
        exec_module = loader.exec_module

        def exec_then_register(module: ModuleType) -> None:
            exec_module(module)
            register_gym_envs()

        loader.exec_module = exec_then_register
        return spec


_HOOK = _RegisterAfterImport()


def _uninstall() -> None:
    if _HOOK in sys.meta_path:
        sys.meta_path.remove(_HOOK)


def register_lazily() -> None:
    """Register now if Gymnasium is loaded, else as soon as something imports it."""
    if "gymnasium" in sys.modules:
        register_gym_envs()
    elif _HOOK not in sys.meta_path:
        sys.meta_path.insert(0, _HOOK)
