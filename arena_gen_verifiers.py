"""The ``verifiers`` plugin id of arena-gen (``arena_gen_verifiers``): ``verifiers`` imports a
taskset by a top-level module name, so this module re-exports
:mod:`arena_gen.train.verifiers_env` (installed with the ``[verifiers]`` extra)."""

from arena_gen.train.verifiers_env import (
    ArenaGenChat,
    ArenaGenEnv,
    ArenaGenTaskset,
    load_environment,
)

__all__ = ["ArenaGenChat", "ArenaGenEnv", "ArenaGenTaskset", "load_environment"]
