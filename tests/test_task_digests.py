"""A task's sha256 and probe key worked out together when it is read (issue 38's probe cost):
the shared serialisation gives the bytes ``canonical_json`` gives, and the key is the one
``probe_key`` computes from the task itself, on every released task and on edited ones."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena_gen.core.canon import canonical_json, canonical_members, joined_members
from arena_gen.core.probe_ask import probe_key
from arena_gen.core.task import CLIMB_FACTS, Task

ROOT = Path(__file__).resolve().parents[1]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner,
                                                                max_size=4),
    max_leaves=20,
)


@given(st.dictionaries(st.text(max_size=6), json_values, max_size=6))
def test_joined_members_are_the_canonical_json(obj: dict[str, Any]) -> None:
    assert joined_members(canonical_members(obj)) == canonical_json(obj)


def test_members_refuse_what_canonical_json_refuses() -> None:
    for bad in ({"a": [float("nan")]}, {"a": {1: 2}}):
        with pytest.raises(ValueError) as members:
            canonical_members(bad)
        with pytest.raises(ValueError) as whole:
            canonical_json(bad)
        assert str(members.value) == str(whole.value)


def uncached_key(task: Task) -> str:
    """``probe_key`` of a copy that carries no read-time key (the path computed from the task)."""
    copy = dataclasses.replace(task)
    assert copy.read_probe_key is None
    return probe_key(copy)


def released_lines() -> list[dict[str, Any]]:
    out = []
    for path in sorted((ROOT / "suites").glob("*/*.jsonl")):
        out += [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return out


def test_every_released_task_reads_with_its_own_key() -> None:
    lines = released_lines()
    assert len(lines) >= 250  # lite, challenge and odyssey-lite, every env
    for data in lines:
        task = Task.from_dict(data)
        assert task.digests()[0] == task.sha256 == data["sha256"]
        assert task.read_probe_key == uncached_key(task), task.id
        assert probe_key(task) == task.read_probe_key


@pytest.mark.parametrize("edit", ["none", "seconds", "climb", "both", "other_fact"])
def test_the_key_of_edited_certificates(edit: str) -> None:
    data = json.loads((ROOT / "suites" / "lite" / "repo.jsonl").read_text().splitlines()[3])
    cert = data["certificate"]
    if edit in ("none", "seconds"):
        for name in CLIMB_FACTS:
            cert.pop(name, None)
    if edit in ("seconds", "both"):
        cert["seconds"] = 1.25
    if edit == "other_fact":
        cert["states"] = 17
    task = Task.from_dict(data, check_hash=False)
    digest, key = task.digests()
    assert digest == task.sha256
    assert key == uncached_key(task)
    assert (key == digest) == (edit == "none")
    read = Task.from_dict({**task.to_dict()})
    assert read.read_probe_key == key
    read.certificate.facts["ladder"] = {"attached": "after the read"}  # what a climb does
    assert probe_key(read) == uncached_key(read) == key


def test_a_task_built_in_memory_has_no_read_key() -> None:
    task = Task.from_dict(released_lines()[0], check_hash=False)
    assert task.read_probe_key is None
    assert probe_key(task) == task.digests()[1]
