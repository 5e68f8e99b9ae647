"""The step path's speed-ups return what the generic code returned: ``Facts.to_dict`` equals
``dataclasses.asdict`` (value and type, every nested value) for every env's facts, the text
env's ``info`` equals the one built from ``game.success`` and ``asdict``, the text spaces equal
a fresh ``Text`` space, and a cached compiled repo world equals a fresh compile and is
read-only."""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle
import string
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from gymnasium import spaces
from hypothesis import given
from hypothesis import strategies as st

from arena_gen.core import compiled, registry
from arena_gen.core.game import Facts, WorldView
from arena_gen.core.game_env import MAX_TEXT, text_space
from arena_gen.core.suite_io import read_suite
from arena_gen.envs.energy import game_v1 as energy_game
from arena_gen.envs.lights.game_v1 import LightsGame
from arena_gen.envs.lights.game_v1 import Rules as LightsRules
from arena_gen.envs.repo.game_v2 import ReadOnlyDict, RepoGameV2, Rules

SUITES = Path(__file__).resolve().parent.parent / "suites"
#: The released suites hold every Facts class (odyssey-lite: v1/v2 games, lite: v3/v4 games).
PLAYED = [(suite, env) for suite in ("odyssey-lite", "lite")
          for env in ("lights", "trading", "energy", "repo")]


def same(a: Any, b: Any) -> bool:
    """Equal with the same type at every level (``==`` alone takes 1 for 1.0 and True)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b) or (a != a and b != b)  # NaN equals itself here


def old_info(env: Any, valid: bool) -> dict[str, Any]:
    """The text env's ``info`` as it was built before the fast path."""
    facts = env.game.facts(env.state)
    info = {"valid": valid, "turn": env.turn, "turns_left": env.budget - env.turn,
            "success": env.game.success(env.state)}
    info.update(dataclasses.asdict(facts))
    return info


@pytest.mark.parametrize(("suite", "env_name"), PLAYED)
def test_played_facts_and_info_match_asdict(suite: str, env_name: str) -> None:
    """Every step of witness and random plays: ``to_dict`` is ``asdict`` (types included), a
    copy (changing it leaves the facts as they were), and ``info`` is the old ``info``."""
    tasks = read_suite(SUITES / suite, envs=[env_name]).tasks[env_name][:4]
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([27, len(suite)])))
    steps = 0
    for task in tasks:
        for plan in ("witness", "random"):
            env = registry.make_env(task)
            _, info = env.reset()
            assert same(info, old_info(env, True))
            texts = list(task.certificate.witness) if plan == "witness" else []
            for turn in range(min(env.budget, 40)):
                text = texts[turn] if turn < len(texts) else env.sample_action(rng)
                _, _, terminated, truncated, info = env.step(text)
                facts = env.game.facts(env.state)
                fast, slow = facts.to_dict(), dataclasses.asdict(facts)
                assert same(fast, slow), (task.id, turn)
                assert same(info, {**old_info(env, info["valid"]),
                                   "feedback": info["feedback"]}), (task.id, turn)
                for value in fast.values():
                    if isinstance(value, (dict, list)):
                        value.clear()
                assert same(facts.to_dict(), slow)
                steps += 1
                if terminated or truncated:
                    break
    assert steps >= 40


@dataclass(frozen=True)
class Inner:
    """A nested dataclass value (asdict turns it into a dict)."""

    label: str
    values: list[float]


@dataclass(frozen=True)
class MixedFacts(Facts):
    """Facts holding every kind of value the fast path treats differently."""

    number: int
    ratio: float
    flag: bool
    name: str | None
    table: dict[str, Any]
    items: list[Any]
    pair: tuple[Any, ...]
    inner: Inner


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
    | st.dictionaries(st.text(max_size=4) | st.integers(), inner, max_size=4),
    max_leaves=12)


@given(number=st.integers(), ratio=st.floats(), flag=st.booleans(),
       name=st.none() | st.text(max_size=5),
       table=st.dictionaries(st.text(max_size=4), JSONISH, max_size=4),
       items=st.lists(JSONISH, max_size=4), pair=st.tuples(JSONISH, JSONISH),
       label=st.text(max_size=4), values=st.lists(st.floats(), max_size=3))
def test_to_dict_equals_asdict_on_any_values(number: int, ratio: float, flag: bool,
                                             name: str | None, table: dict[str, Any],
                                             items: list[Any], pair: tuple[Any, ...],
                                             label: str, values: list[float]) -> None:
    facts = MixedFacts(number, ratio, flag, name, table, items, pair, Inner(label, values))
    fast = facts.to_dict()
    assert same(fast, dataclasses.asdict(facts))
    assert fast["table"] is not table and fast["items"] is not items


def test_text_spaces_equal_a_fresh_space_and_seed_apart() -> None:
    """Copies of one prototype: equal to a space built afresh, each with its own generator."""
    fresh = spaces.Text(max_length=MAX_TEXT, charset=string.printable + "…→←·–—×")
    a, b = text_space(), text_space()
    assert a == fresh and b == fresh and a is not b
    a.seed(3)
    b.seed(3)
    first = a.sample()
    assert b.sample() == first
    fresh.seed(3)
    assert fresh.sample() == first
    a.seed(4)
    assert b.sample() != a.sample()  # seeding one leaves the other's generator alone


def _worlds(env: str) -> list[dict[str, Any]]:
    return [t.world for t in read_suite(SUITES / "odyssey-lite", envs=[env]).tasks[env][:3]]


def _fields(rules: Any) -> dict[str, Any]:
    return {k: v for k, v in vars(rules).items() if k not in ("_frozen", "_can")}


def test_compiled_repo_world_is_shared_equal_and_read_only() -> None:
    worlds = _worlds("repo")
    compiled.forget()
    first = RepoGameV2(WorldView(worlds[0])).rules
    again = RepoGameV2(WorldView(pickle.loads(pickle.dumps(worlds[0])))).rules
    assert again is first  # an equal world (another object): the same compiled rules
    assert RepoGameV2(WorldView(worlds[1])).rules is not first
    fresh = Rules(worlds[0])
    assert _fields(first).keys() == _fields(fresh).keys()
    assert all(same(v, _fields(fresh)[k]) for k, v in _fields(first).items())
    with pytest.raises(AttributeError):
        first.names = ()
    with pytest.raises(TypeError):
        first.calls[first.script_paths[0]] = ()  # type: ignore[index]
    assert isinstance(first.index, ReadOnlyDict)
    copied = pickle.loads(pickle.dumps(first))
    assert same(copied.index, first.index) and copied.api == first.api


def test_compiled_lights_world_is_shared_equal_and_read_only() -> None:
    world = copy.deepcopy(_worlds("lights")[0])
    compiled.forget()
    first = LightsGame(WorldView(world)).rules
    assert LightsGame(WorldView(pickle.loads(pickle.dumps(world)))).rules is first
    fresh = LightsRules(world)
    assert same(_fields(first), _fields(fresh))
    assert [first.step(s, b) for s in range(64) for b in range(first.n)] == \
        [fresh.step(s, b) for s in range(64) for b in range(fresh.n)]
    with pytest.raises(AttributeError):
        first.goal = 0
    world["conditions"][0] = {"const": False}  # the caller's world: the kept copy is apart
    assert same(first.conditions, fresh.conditions)


def test_compiled_worlds_differ_by_order_and_stay_bounded() -> None:
    """Key order is part of the key (it fixes the package order when no ``package_order`` is
    given); at most ``CACHE_WORLDS`` compiled worlds are kept."""
    world = dict(_worlds("repo")[0])
    world.pop("package_order", None)
    flipped = {**world, "packages": dict(reversed(list(world["packages"].items())))}
    a, b = compiled.compiled(Rules, world), compiled.compiled(Rules, flipped)
    assert a is not b and a.names == tuple(reversed(b.names))
    compiled.forget()
    for n in range(compiled.CACHE_WORLDS + 5):
        compiled.compiled(Rules, {**world, "note": n})
    assert len(compiled._KEPT) == compiled.CACHE_WORLDS
    assert compiled.compiled(Rules, {**world, "note": 4}) is not compiled.compiled(
        Rules, {**world, "note": 4.0})  # 4 and 4.0 are equal but not the same world


@given(st.one_of(st.text(max_size=12), st.sampled_from([
    "\ufeff{}", '{"thermal": NaN}', '{"wind": -Infinity}', "{", "[1, 2]", '{"a": 1} x',
    '{"thermal": 1e999}', '  {"solar": 80}  ', '{"wind": 1.5, "solar": 2}', "7", '"x"',
    "{} {}", '{"a": 1}\n', "\t[]", "[1,", "nul"])))
def test_energy_decoder_equals_json_loads(text: str) -> None:
    """The energy parse's kept decoder: the same value, or the same error and message, as
    ``json.loads(text, parse_constant=...)`` (the byte-order mark included)."""
    def outcome(decode: Any) -> tuple[str, Any]:
        try:
            return "ok", decode(text)
        except ValueError as exc:
            return type(exc).__name__, str(exc)

    ours = outcome(energy_game._decode)
    theirs = outcome(lambda t: json.loads(t, parse_constant=energy_game._reject_constant))
    assert same(ours, theirs)


def test_energy_state_copy_is_dataclasses_replace() -> None:
    """The energy step's state copy: equal to ``dataclasses.replace(state, prev=dict(...))``,
    same type, its own ``prev``, the day record shared as ``replace`` shares it."""
    task = read_suite(SUITES / "odyssey-lite", envs=["energy"]).tasks["energy"][0]
    env = registry.make_env(task)
    env.reset()
    for text in list(task.certificate.witness)[:20]:
        env.step(text)
        state = env.state
        ours = state.copy()
        theirs = dataclasses.replace(state, prev=dict(state.prev))
        assert ours == theirs and type(ours) is type(theirs)
        assert ours.prev is not state.prev and ours.last is state.last
        assert same(vars(ours), vars(theirs))
