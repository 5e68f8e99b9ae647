"""Decomposed proofs of repo v6 Challenge minima (#42): one refutation per closed group of
packages; the checker refuses a corrupted proof, another task's proof, a changed rule and a
wrong partition."""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path

import pytest

from arena_gen.core.suite_io import read_suite
from arena_gen.core.task import Task
from arena_gen.proofs import store
from arena_gen.proofs.check import check_suite
from tests.proof_attacks import (
    another_tasks_refusals,
    copied,
    corrupted_refusals,
    forged_parts,
    proved_suite,
    refusal,
)


@pytest.fixture(scope="module")
def proved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two repo v6 Challenge tasks (seed 7), proved."""
    out = proved_suite(tmp_path_factory.mktemp("v6"), "repo", 6)
    assert all(len(e["parts"]) >= 19 for e in store.read_manifest(out).values())
    return out


@pytest.fixture
def suite(proved: Path, tmp_path: Path) -> Path:
    return copied(proved, tmp_path)


def tasks(suite: Path) -> list[Task]:
    return read_suite(suite, envs={"repo"}).tasks["repo"]


def test_decomposed_proofs_check_and_give_the_minimum(proved: Path) -> None:
    report = check_suite(proved)
    assert report.ok and len(report.checked) == 2
    for task in tasks(proved):
        entry = store.read_manifest(proved)[task.id]
        minima = [p["min_steps"] for p in entry["parts"]]
        assert sum(minima) - 2 * (len(minima) - 1) == task.certificate.min_steps >= 400
        assert sorted(q for p in entry["parts"] for q in p["packages"]) == \
            list(range(len(task.world["package_order"])))


def test_a_corrupted_proof_is_refused(suite: Path) -> None:
    dropped, flipped = corrupted_refusals(suite, tasks(suite)[0])
    assert "does not follow by unit propagation" in dropped
    assert "its sha256 is not the manifest's" in flipped


def test_a_proof_of_another_task_is_refused(suite: Path) -> None:
    mine, other = tasks(suite)
    listed, own = another_tasks_refusals(suite, mine, other)
    assert f"(task {mine.id}): " in listed  # other groups, minima or header: refused
    assert "header says task" in own


def test_a_changed_rule_is_refused(suite: Path) -> None:
    task = tasks(suite)[0]
    entry = store.read_manifest(suite)[task.id]
    group = entry["parts"][0]["packages"]
    names = [task.world["package_order"][q] for q in group]
    # one conflict dropped from every version of the group: its ring gets shorter
    world = copy.deepcopy(task.world)
    last = max(names, key=lambda q: len(world["version_conflicts"][q][
        world["packages"][q]["versions"][0]]))
    for vs in world["packages"][last]["versions"]:
        world["version_conflicts"][last][vs] = world["version_conflicts"][last][vs][1:]
    changed = dataclasses.replace(task, world=world)
    assert "binds this proof to another task" in refusal(suite, changed)
    assert "header says task-sha256" in refusal(suite, changed, {**entry,
                                                                 "task_sha256": changed.sha256})
    # ... even with a header and sections for the new rules
    forged_parts(suite, task, changed, entry["parts"], "packages", task_sha256=changed.sha256)
    problem = refusal(suite, changed)
    assert "part 0: " in problem and ("does not follow by unit propagation" in problem
                                      or "names no variable of the formula" in problem)


def test_a_wrong_partition_is_refused(suite: Path) -> None:
    task = tasks(suite)[0]
    entry = store.read_manifest(suite)[task.id]
    parts = copy.deepcopy(entry["parts"])
    parts[1]["packages"].append(parts[0]["packages"].pop())  # a package moved
    assert "the partition is not closed" in refusal(suite, task, {**entry, "parts": parts})
    parts = copy.deepcopy(entry["parts"])
    parts[0]["packages"].append(parts[1]["packages"][0])  # a package in two parts
    assert "listed twice" in refusal(suite, task, {**entry, "parts": parts})
    parts = copy.deepcopy(entry["parts"])[:-1]  # a group left out
    assert "not a partition" in refusal(suite, task, {**entry, "parts": parts})
    parts = copy.deepcopy(entry["parts"])
    parts[0]["min_steps"] += 1  # minima that do not give the certificate's
    assert "sum to" in refusal(suite, task, {**entry, "parts": parts})
    merged = copy.deepcopy(entry["parts"])  # two groups claimed as one, same total
    joined = {"packages": merged[0]["packages"] + merged[1]["packages"],
              "min_steps": merged[0]["min_steps"] + merged[1]["min_steps"] - 2}
    assert "header says cnf-sha256" in refusal(suite, task, {**entry,
                                                             "parts": [joined, *merged[2:]]})
