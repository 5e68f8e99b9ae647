"""Decomposed proofs of lights v5 Challenge minima (#42): one refutation per closed part; the
checker refuses a corrupted proof, another task's proof, a changed condition and a wrong
partition."""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path
from typing import Any

import pytest

from arena_gen.core.suite_io import read_suite
from arena_gen.core.task import Task
from arena_gen.proofs import store
from arena_gen.proofs.check import check_suite
from arena_gen.proofs.drup import ProofError
from arena_gen.proofs.parts import check_closed, read_parts, sub_world
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
    """Two lights v5 Challenge tasks (seed 7), proved."""
    out = proved_suite(tmp_path_factory.mktemp("v5"), "lights", 5)
    assert all(len(e["parts"]) == 5 for e in store.read_manifest(out).values())
    return out


@pytest.fixture
def suite(proved: Path, tmp_path: Path) -> Path:
    return copied(proved, tmp_path)


def tasks(suite: Path) -> list[Task]:
    return read_suite(suite, envs={"lights"}).tasks["lights"]


def test_decomposed_proofs_check_and_sum_to_the_minimum(proved: Path) -> None:
    report = check_suite(proved)
    assert report.ok and len(report.checked) == 2
    for task in tasks(proved):
        entry = store.read_manifest(proved)[task.id]
        assert sum(p["min_steps"] for p in entry["parts"]) == task.certificate.min_steps >= 230
        assert sorted(b for p in entry["parts"] for b in p["bulbs"]) == \
            list(range(task.world["n"]))


def test_a_corrupted_proof_is_refused(suite: Path) -> None:
    dropped, flipped = corrupted_refusals(suite, tasks(suite)[0])
    assert "does not follow by unit propagation" in dropped
    assert "its sha256 is not the manifest's" in flipped


def test_a_proof_of_another_task_is_refused(suite: Path) -> None:
    mine, other = tasks(suite)
    listed, own = another_tasks_refusals(suite, mine, other)
    assert f"(task {mine.id}): " in listed  # other parts, minima or header: refused
    assert "header says task" in own


def test_a_changed_condition_is_refused(suite: Path) -> None:
    task = tasks(suite)[0]
    entry = store.read_manifest(suite)[task.id]
    # the first bulb of a part in its hidden order made "never": its part cannot finish
    world = copy.deepcopy(task.world)
    first = entry["parts"][0]["bulbs"]
    always = next(b for b in first if world["conditions"][b] == {"const": True})
    world["conditions"][always] = {"const": False}
    changed = dataclasses.replace(task, world=world)
    assert "binds this proof to another task" in refusal(suite, changed)
    assert "header says task-sha256" in refusal(suite, changed, {**entry,
                                                                 "task_sha256": changed.sha256})
    # a condition that shortens the part: the old lemmas no longer refute the new formula
    world = copy.deepcopy(task.world)
    for b in first:
        world["conditions"][b] = {"const": True}
    shorter = dataclasses.replace(task, world=world)
    forged_parts(suite, task, shorter, entry["parts"], "bulbs", task_sha256=shorter.sha256)
    problem = refusal(suite, shorter)  # the old lemmas, or their variables, do not fit it
    assert "part 0: " in problem and ("does not follow by unit propagation" in problem
                                      or "names no variable of the formula" in problem)


def test_a_wrong_partition_is_refused(suite: Path) -> None:
    task = tasks(suite)[0]
    entry = store.read_manifest(suite)[task.id]
    parts = copy.deepcopy(entry["parts"])
    parts[1]["bulbs"].append(parts[0]["bulbs"].pop())  # a bulb moved to another part
    assert "outside its part: the partition is not closed" in \
        refusal(suite, task, {**entry, "parts": parts})
    parts = copy.deepcopy(entry["parts"])
    parts[0]["bulbs"].append(parts[1]["bulbs"][0])  # a bulb in two parts
    assert "listed twice" in refusal(suite, task, {**entry, "parts": parts})
    parts = copy.deepcopy(entry["parts"])[:-1]  # a part left out
    assert "not a partition" in refusal(suite, task, {**entry, "parts": parts})
    parts = copy.deepcopy(entry["parts"])
    parts[0]["min_steps"] += 1  # minima that do not sum to the certificate's
    assert "sum to" in refusal(suite, task, {**entry, "parts": parts})
    parts = copy.deepcopy(entry["parts"])
    parts[0]["min_steps"] += 1
    parts[1]["min_steps"] -= 1  # the same sum, one part claimed longer than it is
    assert "header says cnf-sha256" in refusal(suite, task, {**entry, "parts": parts})
    # ... even with a header and sections that say so
    forged_parts(suite, task, task, parts, "bulbs", parts=parts)
    assert "part 0: " in refusal(suite, task)


def test_the_partition_check_is_exact_on_small_cases() -> None:
    conditions: list[Any] = [{"const": True}, {"var": 0}, {"not": {"var": 3}}, {"const": True}]
    check_closed(conditions, [[0, 1], [2, 3]])
    with pytest.raises(ProofError, match="B2's condition reads B3"):
        check_closed(conditions, [[0, 1, 2], [3]])
    assert read_parts([{"bulbs": [1, 0], "min_steps": 2}, {"bulbs": [2, 3], "min_steps": 1}],
                      4, "x") == [([1, 0], 2), ([2, 3], 1)]
    assert sub_world(conditions, [2, 3]) == {"n": 2, "conditions": [{"not": {"var": 1}},
                                                                    {"const": True}]}
