"""Named suite presets: which envs a suite holds, how many tasks, and with which knobs.

Each env keeps its own preset knobs beside its sampler (``generator/<env>.py:PRESETS``); this
module only names the suites and their version.
"""

from __future__ import annotations

from typing import Any

from arena_gen.core import registry
from arena_gen.core.errors import ArenaGenError

#: Bump when a preset changes what a suite contains.
SUITE_VERSION = 1

SUITES = ("lite", "challenge")
#: The ``suite`` of every stream task and folder starts so (``stream_lite``,
#: ``stream_l3_ladder``); ``arena_gen.train.stream`` names its suites with it.
STREAM_PREFIX = "stream_"


def preset(suite: str, env: str, version: int | None = None) -> dict[str, Any]:
    """Return the preset config of ``env`` (at ``version``, default the newest) in ``suite``."""
    if suite not in SUITES:
        raise ArenaGenError(f"unknown suite {suite!r}; choose one of {', '.join(SUITES)}")
    presets = registry.get(env, version).load("presets")
    if suite not in presets:
        raise ArenaGenError(f"env {env!r} has no {suite!r} preset")
    return dict(presets[suite])


def preset_count(suite: str, env: str, version: int | None = None) -> int:
    """How many tasks of ``env`` the suite of a seed holds (its preset's ``count``): ``verify``
    and ``--rebuild`` take counts from here, never from a manifest."""
    return int(preset(suite, env, version)["count"])
