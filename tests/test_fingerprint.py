"""World fingerprints: a random relabelling of a released world keeps its fingerprint, a
one-cell change of it changes the fingerprint, and the overlap report finds both."""

from __future__ import annotations

import copy
import re
from functools import cache
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena_gen.core import registry
from arena_gen.core.errors import ArenaGenError
from arena_gen.core.fingerprint import WorldShape, canonical_form, fingerprint
from arena_gen.core.task import Task
from arena_gen.train.overlap import matches, prints
from arena_gen.train.released import RELEASED, released_fingerprints, released_tasks

ENVS = ("lights", "trading", "energy", "repo")


@cache
def worlds(env: str) -> list[dict[str, Any]]:
    """Every released world of ``env`` (lite, challenge, challenge-moderate, odyssey-lite)."""
    return [t.world for t in released_tasks(env)]


def fp(env: str, world: dict[str, Any]) -> str:
    return fingerprint(env, registry.get(env).load("fingerprint"), world)


# --- relabellings written here, independently of the env modules ------------------------------

def rename_lights(world: dict[str, Any], perm: list[int]) -> dict[str, Any]:
    """Bulb i becomes bulb perm[i] everywhere."""
    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            if "var" in node:
                return {"var": perm[node["var"]]}
            return {k: walk(v) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    conditions: list[Any] = [None] * world["n"]
    for i, cond in enumerate(world["conditions"]):
        conditions[perm[i]] = walk(cond)
    return {**world, "conditions": conditions, "order": [perm[b] for b in world["order"]]}


def rename_trading(world: dict[str, Any], stocks: list[int],
                   factors: list[int]) -> dict[str, Any]:
    """Stock i moves to position stocks[i], factor j to factors[j]."""
    ns, nf = len(stocks), len(factors)
    out = copy.deepcopy(world)

    def moved(matrix: list[list[float]]) -> list[list[float]]:
        new = [[0.0] * nf for _ in range(ns)]
        for i in range(ns):
            for j in range(nf):
                new[stocks[i]][factors[j]] = matrix[i][j]
        return new

    out["matrix"] = moved(world["matrix"])
    for regime in out.get("regimes") or []:  # v6: every later regime's map moves alike
        regime["matrix"] = moved(regime["matrix"])
    out["initial_prices"] = [0.0] * ns
    for i in range(ns):
        out["initial_prices"][stocks[i]] = world["initial_prices"][i]
    for key, perm in (("changes", factors), ("noise", stocks)):
        for t, row in enumerate(world[key]):
            for k, value in enumerate(row):
                out[key][t][perm[k]] = value
    if world.get("news"):
        def day(text: str) -> str:
            parts = [re.sub(r"\bF(\d+)\b", lambda m: f"F{factors[int(m.group(1))]}", p)
                     for p in text.split(" | ")]
            return " | ".join(sorted(parts, key=lambda p: int(p.split()[0][1:])))
        out["news"] = [day(d) for d in world["news"]]
    return out


def rename_repo(world: dict[str, Any], new_names: list[str]) -> dict[str, Any]:
    """Package k (in name order) is called new_names[k] everywhere, keys and strings alike."""
    old = sorted(world["packages"])
    mapping = dict(zip(old, new_names, strict=True))
    pattern = re.compile(r"(?<!\w)(" + "|".join(sorted(old, key=len, reverse=True)) + r")(?!\w)")

    def walk(value: Any) -> Any:
        if isinstance(value, str):
            return pattern.sub(lambda m: mapping[m.group(1)], value)
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, dict):
            return {walk(k): walk(v) for k, v in value.items()}
        return value

    renamed: dict[str, Any] = walk(world)
    return renamed


def shuffled_keys(value: Any, rnd: Any) -> Any:
    """The same data with every mapping's keys in another order."""
    if isinstance(value, dict):
        keys = list(value)
        rnd.shuffle(keys)
        return {k: shuffled_keys(value[k], rnd) for k in keys}
    if isinstance(value, list):
        return [shuffled_keys(v, rnd) for v in value]
    return value


# --- invariance --------------------------------------------------------------------------------

@settings(max_examples=25)
@given(data=st.data())
def test_renaming_bulbs_keeps_the_fingerprint(data: st.DataObject) -> None:
    world = data.draw(st.sampled_from(worlds("lights")))
    perm = data.draw(st.permutations(range(world["n"])))
    assert fp("lights", rename_lights(world, list(perm))) == fp("lights", world)


@settings(max_examples=25)
@given(data=st.data())
def test_reordering_stocks_and_factors_keeps_the_fingerprint(data: st.DataObject) -> None:
    world = data.draw(st.sampled_from(worlds("trading")))
    stocks = data.draw(st.permutations(range(len(world["stocks"]))))
    factors = data.draw(st.permutations(range(len(world["factors"]))))
    assert fp("trading", rename_trading(world, list(stocks), list(factors))) == fp("trading",
                                                                                    world)


@settings(max_examples=10)
@given(data=st.data())
def test_renaming_packages_keeps_the_fingerprint(data: st.DataObject) -> None:
    world = data.draw(st.sampled_from(worlds("repo")))
    n = len(world["packages"])
    names = data.draw(st.lists(st.from_regex(r"[a-z]{3,8}", fullmatch=True), min_size=n,
                               max_size=n, unique=True))
    assert fp("repo", rename_repo(world, [f"lib_{x}" for x in names])) == fp("repo", world)


@pytest.mark.parametrize("env", ENVS)
@settings(max_examples=5)
@given(data=st.data())
def test_key_order_never_matters(env: str, data: st.DataObject) -> None:
    world = data.draw(st.sampled_from(worlds(env)))
    assert fp(env, shuffled_keys(world, data.draw(st.randoms()))) == fp(env, world)


def test_a_repo_renaming_that_really_moves_names() -> None:
    """The renaming test's names are not the sampler's: pkg0 <-> pkg1 swapped is also equal."""
    world = worlds("repo")[0]
    names = sorted(world["packages"])
    swapped = [names[1], names[0], *names[2:]]
    assert rename_repo(world, swapped) != world
    assert fp("repo", rename_repo(world, swapped)) == fp("repo", world)


# --- one-cell changes --------------------------------------------------------------------------

def _var_paths(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(node, dict):
        if "var" in node:
            return [path]
        return [p for k, v in node.items() for p in _var_paths(v, (*path, k))]
    if isinstance(node, list):
        return [p for i, v in enumerate(node) for p in _var_paths(v, (*path, i))]
    return []


def _at(root: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        root = root[key]
    return root


@settings(max_examples=25)
@given(data=st.data())
def test_negating_one_literal_changes_a_lights_fingerprint(data: st.DataObject) -> None:
    world = data.draw(st.sampled_from(worlds("lights")))
    paths = _var_paths(world["conditions"])
    path = data.draw(st.sampled_from(paths))
    changed = copy.deepcopy(world)
    parent, key = _at(changed["conditions"], path[:-1]), path[-1]
    parent[key] = {"not": parent[key]}
    assert fp("lights", changed) != fp("lights", world)


@settings(max_examples=25)
@given(data=st.data(), env=st.sampled_from(("trading", "energy")))
def test_one_number_changed_changes_the_fingerprint(data: st.DataObject, env: str) -> None:
    world = data.draw(st.sampled_from(worlds(env)))
    tables = {"trading": ["matrix", "changes", "noise", "initial_prices"],
              "energy": ["demand", "budget", "eff_wind", "eff_solar", "eff_thermal"]}[env]
    table = data.draw(st.sampled_from(tables))
    changed = copy.deepcopy(world)
    t = data.draw(st.integers(0, len(world[table]) - 1))
    if isinstance(changed[table][t], list):
        k = data.draw(st.integers(0, len(changed[table][t]) - 1))
        changed[table][t][k] += 0.5
    else:
        changed[table][t] += 0.5
    assert fp(env, changed) != fp(env, world)


def _string_paths(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(node, str):
        return [path]
    if isinstance(node, dict):
        return [p for k, v in node.items() for p in _string_paths(v, (*path, k))]
    if isinstance(node, list):
        return [p for i, v in enumerate(node) for p in _string_paths(v, (*path, i))]
    return []


@settings(max_examples=10)
@given(data=st.data())
def test_one_string_changed_changes_a_repo_fingerprint(data: st.DataObject) -> None:
    world = data.draw(st.sampled_from(worlds("repo")))
    path = data.draw(st.sampled_from(_string_paths(world)))
    changed = copy.deepcopy(world)
    _at(changed, path[:-1])[path[-1]] += "~"
    assert fp("repo", changed) != fp("repo", world)


def test_released_worlds_have_distinct_fingerprints() -> None:
    for env in ENVS:
        assert len(released_fingerprints(env)) == len(worlds(env)) == 80, env


def test_every_env_version_declares_its_shape() -> None:
    for spec in registry.all_specs():
        shape = spec.load("fingerprint")
        assert isinstance(shape, WorldShape) and shape.symmetry, spec.key
    assert RELEASED == ("lite", "challenge", "challenge-moderate", "odyssey-lite")


def test_symmetric_worlds_stay_cheap_and_too_symmetric_ones_fail_cleanly(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Bulbs with identical free conditions are interchangeable: tried once, not n! times; a
    world past the leaf bound raises instead of running on."""
    n = 12
    free = {"n": n, "order": list(range(n)), "conditions": [{"const": True}] * n}
    shape = registry.get("lights").load("fingerprint")
    assert canonical_form(shape, free) == canonical_form(
        shape, rename_lights(free, list(reversed(range(n)))))
    ring = {"n": 3, "order": [0, 1, 2], "conditions": [{"var": 1}, {"var": 2}, {"var": 0}]}
    assert fp("lights", ring) == fp("lights", rename_lights(ring, [1, 2, 0]))
    assert fp("lights", ring) != fp("lights", {**ring, "conditions": [
        {"var": 1}, {"var": 0}, {"var": 0}]})
    monkeypatch.setattr("arena_gen.core.fingerprint.MAX_LEAVES", 1)
    with pytest.raises(ArenaGenError, match="too symmetric"):
        canonical_form(shape, ring)


# --- overlap -----------------------------------------------------------------------------------

def _copy_task(task: Task, world: dict[str, Any], suffix: str) -> Task:
    data = task.to_dict()
    data.update(world=world, id=task.id.replace("-lite-", f"-{suffix}-"))
    return Task.from_dict(data, check_hash=False)


def test_overlap_finds_an_exact_and_a_near_duplicate() -> None:
    task = released_tasks("lights")[0]
    renamed = _copy_task(task, rename_lights(task.world, list(reversed(range(task.world["n"])))),
                         "copy")
    paths = _var_paths(task.world["conditions"])
    near_world = copy.deepcopy(task.world)
    parent = _at(near_world["conditions"], paths[0][:-1])
    parent[paths[0][-1]] = {"not": parent[paths[0][-1]]}
    near = _copy_task(task, near_world, "near")
    other = released_tasks("lights")[5]
    a = [p for p in map(prints, [task]) if p]
    b = [p for p in map(prints, [renamed, near, other]) if p]
    found = matches(a, b)
    assert [(m.b, m.kind, m.part) for m in found] == [
        (renamed.id, "exact", None), (near.id, "near", "condition")]


@pytest.mark.parametrize(("env", "part", "edit"), [
    ("trading", "noise", lambda w: w["noise"][3].__setitem__(1, w["noise"][3][1] + 0.5)),
    ("energy", "demand", lambda w: w["demand"].__setitem__(7, w["demand"][7] + 1.0)),
    ("repo", "hidden_rules", lambda w: w["hidden_rules"][0].__setitem__(
        "error", w["hidden_rules"][0]["error"] + "!")),
])
def test_a_world_changed_in_one_part_is_a_near_duplicate(env: str, part: str, edit: Any) -> None:
    task = released_tasks(env)[1]
    world = copy.deepcopy(task.world)
    edit(world)
    changed = _copy_task(task, world, "near")
    found = matches([p for p in map(prints, [task]) if p], [p for p in map(prints, [changed]) if p])
    assert [(m.kind, m.part) for m in found] == [("near", part)]
