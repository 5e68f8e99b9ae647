"""The env registry: one spec per environment, naming its parts as lazy ``module:attr`` paths.

Registering an env gives it the CLI, suite building, ``check_env`` and the registry-wide tests
for free. Entry points are imported only when used, so ``arena-gen show`` does not load z3.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any

from .errors import RegistryError


def load_entry(path: str) -> Any:
    """Import ``module:attr`` and return the attribute."""
    module_name, _, attr = path.partition(":")
    if not module_name or not attr:
        raise RegistryError(f"entry point must look like 'module:attr', got {path!r}")
    module = importlib.import_module(module_name)
    try:
        return getattr(module, attr)
    except AttributeError:
        raise RegistryError(f"{module_name} has no attribute {attr!r}") from None


@dataclass(frozen=True)
class EnvSpec:
    """What arena-gen knows about one environment."""

    name: str
    version: int
    code: int
    gym_name: str
    env: str
    sampler: str
    presets: str
    accept: str
    verifier: str
    judge: str | None = None
    oracle: str | None = None
    heuristic: str | None = None
    importer: str | None = None
    extras: dict[str, str] = field(default_factory=dict)

    @property
    def gym_id(self) -> str:
        return f"arena_gen/{self.gym_name}-v{self.version}"

    def load(self, part: str) -> Any:
        """Load one named part (``env``, ``sampler``, ``verifier``, ...) of this spec."""
        path = getattr(self, part, None) if part in self.__dataclass_fields__ else None
        if path is None:
            path = self.extras.get(part)
        if path is None:
            raise RegistryError(f"env {self.name!r} has no {part!r} registered")
        return load_entry(path)


_REGISTRY: dict[str, EnvSpec] = {}


def register(spec: EnvSpec) -> EnvSpec:
    """Add an env spec; a second spec with the same name or code is an error."""
    if spec.name in _REGISTRY:
        raise RegistryError(f"env {spec.name!r} is already registered")
    for other in _REGISTRY.values():
        if other.code == spec.code:
            raise RegistryError(f"env code {spec.code} is taken by {other.name!r}")
    _REGISTRY[spec.name] = spec
    return spec


def unregister(name: str) -> None:
    """Remove an env spec (tests use this to keep the registry clean)."""
    _REGISTRY.pop(name, None)


def get(name: str) -> EnvSpec:
    """Return the spec of a registered env."""
    _ensure_builtin()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise RegistryError(f"unknown env {name!r}; registered: {names()}") from None


def names() -> list[str]:
    """Registered env names, in registration order."""
    _ensure_builtin()
    return list(_REGISTRY)


def specs() -> list[EnvSpec]:
    """Registered env specs, in registration order."""
    _ensure_builtin()
    return list(_REGISTRY.values())


_BUILTIN_LOADED = False


def _ensure_builtin() -> None:
    """Register the built-in envs once, on first use."""
    global _BUILTIN_LOADED
    if not _BUILTIN_LOADED:
        _BUILTIN_LOADED = True
        importlib.import_module("arena_gen.envs.builtin")
