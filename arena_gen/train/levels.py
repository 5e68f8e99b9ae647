"""Stream levels: the suite presets (``lite``, ``challenge``) and each env's curriculum levels.

A curriculum level (``L1``, ``L2``, ...) is a sampler preset its env's package declares in the
spec's ``levels`` part, easiest first, derived from that version's suite presets; this module
only looks them up, so the knobs of a level have one owner (the env). A suite level draws, by
default, at the env version its suite builds at (``challenge``: the versions the suite catalog
pins, the paper-scale ones), so a stream's ``challenge`` is the built Challenge's worlds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena_gen.core import registry
from arena_gen.core.errors import ArenaGenError
from arena_gen.suite.catalog import SUITES, preset, resolve


def _table(spec: registry.EnvSpec) -> Mapping[str, Any]:
    return spec.load("levels") if spec.levels is not None else {}


def level_version(level: str, env: str, version: int | None = None) -> int:
    """The env version a stream of ``level`` draws at: ``version`` when given, else for a suite
    level the version ``build --suite LEVEL`` uses (:func:`arena_gen.suite.catalog.resolve`),
    else the env's default."""
    if version is None and level in SUITES:
        version = resolve(level)[1].get(env)
    return registry.get(env, version).version


def curriculum_levels(env: str, version: int | None = None) -> list[str]:
    """The env's curriculum levels, easiest first (empty when its version declares none)."""
    return list(_table(registry.get(env, version)))


def stream_levels(env: str, version: int | None = None) -> list[str]:
    """Every level a stream of the env can draw from: the suite presets, then its curriculum."""
    return [*SUITES, *curriculum_levels(env, version)]


def level_preset(level: str, env: str, version: int | None = None) -> dict[str, Any]:
    """The sampler preset of ``level`` for ``env`` (at ``version``, default the newest)."""
    if level in SUITES:
        return preset(level, env, version)
    spec = registry.get(env, version)
    table = _table(spec)
    if level not in table:
        raise ArenaGenError(f"unknown level {level!r} for {env} v{spec.version}; choose one "
                            f"of {', '.join(stream_levels(env, spec.version))}")
    return dict(table[level])


def level_knobs(level: str, env: str, version: int | None = None) -> dict[str, Any]:
    """The knobs of ``level`` that differ from the env's ``lite`` preset (what a level table
    shows), ``count`` left out: a stream has no count."""
    base = preset("lite", env, version)
    own = level_preset(level, env, version)
    return {k: v for k, v in own.items() if k != "count" and base.get(k) != v}
