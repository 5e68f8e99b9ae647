"""The env registry rejects duplicates and names what is missing."""

from __future__ import annotations

import pytest

from arena_gen.core import registry
from arena_gen.core.errors import RegistryError
from arena_gen.core.registry import EnvSpec, load_entry


def spec(name: str, code: int) -> EnvSpec:
    return EnvSpec(name=name, version=1, code=code, gym_name="X", env="a:b", sampler="a:b",
                   presets="a:b", accept="a:b", verifier="a:b")


def test_duplicate_name_and_code_are_rejected() -> None:
    assert "lights" in registry.names()
    with pytest.raises(RegistryError, match="already registered"):
        registry.register(spec("lights", 99))
    with pytest.raises(RegistryError, match="code 1"):
        registry.register(spec("other", 1))
    registry.register(spec("toy", 98))
    try:
        assert registry.get("toy").gym_id == "arena_gen/X-v1"
    finally:
        registry.unregister("toy")


def test_unknown_env_and_parts() -> None:
    with pytest.raises(RegistryError, match="unknown env 'nope'"):
        registry.get("nope")
    with pytest.raises(RegistryError, match="module:attr"):
        load_entry("no-colon")
    with pytest.raises(RegistryError, match="no attribute"):
        load_entry("arena_gen.core.registry:missing")
    with pytest.raises(RegistryError, match="has no 'nothing'"):
        registry.get("lights").load("nothing")
