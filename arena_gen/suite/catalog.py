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
#: The env versions a suite builds on when none is asked for, where they are not each env's
#: default version (the newest that is not a preview): the Challenge is at the paper's scale
#: (issue 42), whose generation only these versions have. They stay previews in the registry's
#: sense, so Lite (and ``run``'s prompts) keep the default ones; a version pinned here is
#: released with the suite that pins it (``suites/challenge``).
PINNED: dict[str, dict[str, int]] = {
    "challenge": {"lights": 6, "trading": 6, "energy": 8, "repo": 6},
}
#: Preset names that build another suite at fixed versions. ``challenge-moderate`` is the
#: Challenge first released on 2026-12-07 (moderate horizons, harder induction than Lite;
#: ``suites/challenge-moderate``): it builds the suite ``challenge`` at the versions recorded in
#: that release's manifest, so its bytes are that folder's (``verify --rebuild`` reads the
#: versions from the manifest and needs no alias).
ALIASES: dict[str, tuple[str, dict[str, int]]] = {
    "challenge-moderate": ("challenge", {"energy": 5, "lights": 4, "repo": 5, "trading": 5}),
}
#: The ``suite`` of every stream task and folder starts so (``stream_lite``,
#: ``stream_l3_ladder``); ``arena_gen.train.stream`` names its suites with it.
STREAM_PREFIX = "stream_"


def preset_names() -> list[str]:
    """Every name ``build --suite`` takes: the suites, then their aliases."""
    return [*SUITES, *ALIASES]


def resolve(name: str, versions: dict[str, int] | None = None) -> tuple[str, dict[str, int]]:
    """The suite a preset name builds and its env versions: an alias's pins, then the suite's
    own pins, overridden by ``versions`` (each env absent from all three takes its newest
    released version)."""
    if name not in SUITES and name not in ALIASES:
        raise ArenaGenError(f"unknown suite {name!r}; choose one of {', '.join(preset_names())}")
    suite, pinned = ALIASES.get(name, (name, {}))
    return suite, {**PINNED.get(suite, {}), **pinned, **(versions or {})}


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
