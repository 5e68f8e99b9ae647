"""The env registry: keyed by (name, version), rejects duplicates and names what is missing."""

from __future__ import annotations

import dataclasses

import pytest

from arena_gen.core import registry
from arena_gen.core.errors import RegistryError
from arena_gen.core.registry import EnvSpec, Lazy, Parts


def spec(name: str, code: int, version: int = 1) -> EnvSpec:
    part = Parts("toy_pkg")
    return EnvSpec(name=name, version=version, code=code, gym_name="X", package="toy_pkg",
                   game=part("a:b"), sampler=part("a:b"), presets=part("a:b"),
                   accept=part("a:b"), verifier=part("a:b"))


def test_duplicate_name_version_and_code_are_rejected() -> None:
    assert "lights" in registry.names()
    with pytest.raises(RegistryError, match="lights' v1 is already registered"):
        registry.register(spec("lights", 1))
    with pytest.raises(RegistryError, match="code 1"):
        registry.register(spec("other", 1))
    with pytest.raises(RegistryError, match="keeps its code"):
        registry.register(spec("lights", 99, version=7))
    registry.register(spec("toy", 98))
    try:
        assert registry.get("toy").gym_id == "arena_gen/X-v1"
    finally:
        registry.unregister("toy")


def test_only_the_declaring_package_adds_versions_of_an_env() -> None:
    """A plugin cannot slip a newer 'lights' in front of the released one (it would become the
    default version a plain ``build --suite lite`` uses)."""
    lights = registry.get("lights")
    newest = max(v for (n, v) in registry._REGISTRY if n == "lights")
    intruder = dataclasses.replace(lights, version=newest + 1, package="some_plugin")
    with pytest.raises(RegistryError, match="declared by arena_gen.envs.lights"):
        registry.register(intruder)
    assert registry.get("lights") is lights


def test_versions_live_side_by_side() -> None:
    registry.register(spec("toy", 98, version=1))
    registry.register(spec("toy", 98, version=2))
    try:
        assert registry.versions("toy") == [1, 2]
        assert registry.get("toy").version == 2  # the newest by default
        assert registry.get("toy", 1).version == 1
        assert registry.names().count("toy") == 1
        with pytest.raises(RegistryError, match="has no version 3; this arena-gen has v1, v2"):
            registry.get("toy", 3)
    finally:
        registry.unregister("toy")
    assert "toy" not in registry.names()


def test_unknown_env_and_parts() -> None:
    with pytest.raises(RegistryError, match="unknown env 'nope'"):
        registry.get("nope")
    with pytest.raises(RegistryError, match="module:attr"):
        Lazy("arena_gen.core", "no-colon")
    with pytest.raises(RegistryError, match="inside that package"):
        Lazy("arena_gen.envs.lights", ".game_v1:LightsGame")  # a part never leaves its package
    with pytest.raises(RegistryError, match="no attribute"):
        Lazy("arena_gen.core", "registry:missing").load()
    assert Lazy("arena_gen.core", "registry:EnvSpec").load() is EnvSpec
    with pytest.raises(RegistryError, match="not a part"):
        registry.get("lights").load("nothing")
    with pytest.raises(RegistryError, match="has no 'planner'"):
        registry.get("lights", 1).load("planner")
    assert registry.resolve(len) is len  # a part may be the object itself


def test_a_preview_version_is_not_the_build_default_but_is_importable() -> None:
    assert registry.get("repo").version == 5  # repo v5 is the build default
    assert registry.get("repo", 2).preview and not registry.get("repo", 5).preview
    assert registry.newest_with("repo", "importer").version == 2  # v3 imports nothing
    registry.register(dataclasses.replace(registry.get("repo", 5), version=99, preview=True))
    try:  # a newer preview does not become the default, nor speaks for released prompts
        assert registry.get("repo").version == 5 and registry.get("repo", 99).preview
        assert registry.newest_with("repo", "grammar").version == 99
        assert registry.released_with("repo", "grammar").version == 5
    finally:
        registry.unregister("repo", 99)
    # a task is prompted in its own version's grammar; one that declares none, in the released
    assert registry.part_for("energy", 7, "grammar").version == 7  # a preview's own
    assert registry.part_for("trading", 1, "grammar").version == 1  # not v5's "expect"
    assert registry.part_for("trading", None, "grammar").version == 5
    registry.register(dataclasses.replace(registry.get("repo", 5), version=98, grammar=None))
    try:
        assert registry.part_for("repo", 98, "grammar").version == 5
    finally:
        registry.unregister("repo", 98)
    with pytest.raises(RegistryError, match="no version of env 'lights' has a 'nothing'"):
        registry.newest_with("lights", "nothing")
    assert registry.newest_with("lights", "planner").version == 6  # v6, a preview, has one
    assert registry.released_with("lights", "planner").version == 4
