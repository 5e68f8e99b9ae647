"""The env registry: one spec per (environment, version), naming its parts lazily.

Registering an env gives it the CLI, suite building, verification, the runner, the scorer and
the registry-wide tests for free. Parts are ``module:attr`` paths imported only when used (so
``arena-gen show`` does not load z3), or the objects themselves (a test registers a toy env
from its own module). Versions live side by side, as Gymnasium keeps CartPole-v0 and -v1: a
suite built with version 1 of an env keeps playing and verifying after version 2 ships, since
every task is played by the spec of its own ``env_version``.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any

from arena_gen.core.errors import RegistryError

#: A part: a lazy ``module:attr`` path, or the object itself.
Part = Any


def load_entry(path: Part) -> Any:
    """Import ``module:attr`` and return the attribute (an object is returned as it is)."""
    if not isinstance(path, str):
        return path
    module_name, _, attr = path.partition(":")
    if not module_name or not attr:
        raise RegistryError(f"entry point must look like 'module:attr', got {path!r}")
    module = importlib.import_module(module_name)
    try:
        return getattr(module, attr)
    except AttributeError:
        raise RegistryError(f"{module_name} has no attribute {attr!r}") from None


def accept_solvable(draft: Any, certificate: Any) -> str | None:
    """The default acceptance rule: a solvable candidate is accepted."""
    return None if certificate.solvable else "unsolvable"


@dataclass(frozen=True)
class EnvSpec:
    """What arena-gen knows about one version of one environment."""

    name: str
    version: int
    code: int
    gym_name: str
    game: Part
    sampler: Part
    presets: Part
    verifier: Part
    accept: Part | None = None
    oracle: Part | None = None
    heuristic: Part | None = None
    importer: Part | None = None
    extras: dict[str, Part] = field(default_factory=dict)
    #: The text env class wrapping the game (the generic one unless a spec says otherwise).
    env: Part = "arena_gen.core.game_env:GameEnv"
    #: A preview version is registered, playable, verifiable and importable, but is not the
    #: default for building (``get(name)``) until its presets are calibrated.
    preview: bool = False

    @property
    def gym_id(self) -> str:
        return f"arena_gen/{self.gym_name}-v{self.version}"

    @property
    def key(self) -> tuple[str, int]:
        return (self.name, self.version)

    def load(self, part: str) -> Any:
        """Load one named part (``game``, ``sampler``, ``verifier``, ...) of this spec."""
        path = getattr(self, part, None) if part in self.__dataclass_fields__ else None
        if path is None:
            path = self.extras.get(part)
        if path is None:
            raise RegistryError(f"env {self.name!r} v{self.version} has no {part!r} registered")
        return load_entry(path)

    def acceptance(self) -> Any:
        """The acceptance rule ``accept(draft, certificate) -> reason or None``; by default
        every solvable candidate is accepted."""
        return self.load("accept") if self.accept is not None else accept_solvable

    def make_game(self, task: Any) -> Any:
        """Compile the task's game (the rules of this env version)."""
        return self.load("game")(task)

    def make(self, task: Any, render_mode: str | None = None, protocol: Any = None) -> Any:
        """The text env for ``task``: the generic env around the task's game (a harness
        ``protocol`` only when one is given, so custom env classes keep working)."""
        extra = {} if protocol is None else {"protocol": protocol}
        return self.load("env")(self.make_game(task), render_mode=render_mode, **extra)


_REGISTRY: dict[tuple[str, int], EnvSpec] = {}


def register(spec: EnvSpec) -> EnvSpec:
    """Add an env spec; a second spec with the same (name, version), or another env's code,
    is an error."""
    if spec.key in _REGISTRY:
        raise RegistryError(f"env {spec.name!r} v{spec.version} is already registered")
    for other in _REGISTRY.values():
        if other.code == spec.code and other.name != spec.name:
            raise RegistryError(f"env code {spec.code} is taken by {other.name!r}")
        if other.name == spec.name and other.code != spec.code:
            raise RegistryError(f"env {spec.name!r} has code {other.code}; every version of an "
                                f"env keeps its code (the seed contract names it)")
    _REGISTRY[spec.key] = spec
    return spec


def unregister(name: str, version: int | None = None) -> None:
    """Remove one version of an env, or all of them (tests use this to keep the registry clean)."""
    for key in [k for k in _REGISTRY if k[0] == name and version in (None, k[1])]:
        del _REGISTRY[key]


def versions(name: str) -> list[int]:
    """The registered versions of an env, oldest first."""
    _ensure_builtin()
    return sorted(v for n, v in _REGISTRY if n == name)


def get(name: str, version: int | None = None) -> EnvSpec:
    """The spec of a registered env: the given version, else the newest one that is not a
    preview (the version ``build`` uses by default)."""
    _ensure_builtin()
    found = versions(name)
    if not found:
        raise RegistryError(f"unknown env {name!r}; registered: {names()}")
    if version is None:
        current = [v for v in found if not _REGISTRY[(name, v)].preview] or found
        return _REGISTRY[(name, current[-1])]
    try:
        return _REGISTRY[(name, int(version))]
    except KeyError:
        raise RegistryError(f"env {name!r} has no version {version}; this arena-gen has "
                            f"{', '.join(f'v{v}' for v in found)}") from None


def newest_with(name: str, part: str) -> EnvSpec:
    """The newest version of an env (previews included) that has ``part`` registered."""
    for version in reversed(versions(name)):
        spec = _REGISTRY[(name, version)]
        if getattr(spec, part, None) is not None or part in spec.extras:
            return spec
    raise RegistryError(f"no version of env {name!r} has a {part!r} registered")


def for_task(task: Any) -> EnvSpec:
    """The spec that plays ``task``: its own env and env version."""
    return get(task.env, task.env_version)


def make_env(task: Any, protocol: Any = None) -> Any:
    """The text env for a task, built by the spec of the task's env version (and a harness
    :class:`~arena_gen.core.protocol.Protocol`, if any)."""
    return for_task(task).make(task, protocol=protocol)


def make_game(task: Any) -> Any:
    """The compiled game of a task, from the spec of the task's env version."""
    return for_task(task).make_game(task)


def names() -> list[str]:
    """Registered env names, in registration order."""
    _ensure_builtin()
    return list(dict.fromkeys(n for n, _ in _REGISTRY))


def specs() -> list[EnvSpec]:
    """The newest spec of each registered env, in registration order."""
    return [get(name) for name in names()]


def all_specs() -> list[EnvSpec]:
    """Every registered (env, version) spec."""
    _ensure_builtin()
    return list(_REGISTRY.values())


_BUILTIN_LOADED = False


def _ensure_builtin() -> None:
    """Register the built-in envs once, on first use."""
    global _BUILTIN_LOADED
    if not _BUILTIN_LOADED:
        _BUILTIN_LOADED = True
        importlib.import_module("arena_gen.envs.builtin")
