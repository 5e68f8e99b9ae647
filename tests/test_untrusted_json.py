"""Untrusted JSON never becomes a traceback: every reader fails with the project's error
naming file and line (#16 M5), and a corrupt trajectory line is skipped, not fatal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena_gen.core.errors import SchemaError
from arena_gen.core.schema import loads, read_jsonl
from arena_gen.runner.rundir import RunDir

BAD = {
    "not utf-8": b'{"id": "\xff"}',
    "NaN": b'{"x": NaN}',
    "Infinity": b'{"x": -Infinity}',
    "5000 digits": b'{"x": ' + b"9" * 5000 + b"}",
    "deep": b"[" * 5000 + b"]" * 5000,
    "deep but parseable": b"[" * 300 + b"]" * 300,
    "torn": b'{"id": "lights-lite-7-0000", "env": ',
    "lone surrogate": b'{"id": "lights-\\ud800"}',
    "lone surrogate key": b'{"\\udfff": 1}',
    "60,000 items": b"[" + b"0," * 60_000 + b"0]",
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_documents_raise_schema_error_with_file_and_line(name: str, tmp_path: Path) -> None:
    path = tmp_path / "lights.jsonl"
    path.write_bytes(b"\n" + BAD[name] + b"\n")
    with pytest.raises(SchemaError) as info:
        list(read_jsonl(path, "task"))
    assert f"{path}:2" in str(info.value)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.binary(max_size=200))
def test_loads_never_raises_anything_but_schema_error(data: bytes) -> None:
    try:
        loads(data, file="f", line=1)
    except SchemaError:
        pass


def test_a_corrupt_line_in_the_middle_of_a_run_is_skipped_with_a_warning(tmp_path: Path) -> None:
    good = {"task_id": "t", "attempt": 0, "env": "lights"}
    (tmp_path / "trajectories.jsonl").write_bytes(
        json.dumps(good).encode() + b"\n" + b'{"task_id": "t", "attem\xff\n'
        + json.dumps({**good, "attempt": 1}).encode() + b"\n")
    with pytest.warns(UserWarning, match="trajectories.jsonl:2"):
        records = RunDir(tmp_path).records()
    assert [r["attempt"] for r in records] == [0, 1]


def test_a_claimed_huge_budget_does_not_blow_up_the_curves() -> None:
    import tracemalloc

    from arena_gen.scoring.score import curves

    records = [{"env": "lights", "end_reason": "success", "success": True, "steps": 3,
                "budget": 10**9, "turns": [{}, {}, {}]},
               {"env": "lights", "end_reason": "budget", "success": False, "steps": 5,
                "budget": 10**9, "turns": [{}] * 5}]
    tracemalloc.start()
    out = curves(records)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert out["lights"]["evolution"] == [0.0, 0.0, 0.5, 0.5, 0.5]
    assert peak < 1_000_000


def test_a_huge_failing_list_under_any_of_keeps_a_bounded_context() -> None:
    """jsonschema's anyOf collects every error of a failing branch: a 100,000-item list took
    10 s to reject (found by benchmarks/bench_fuzz.py). Each branch now keeps its first few."""
    from arena_gen.core.schema import BRANCH_ERRORS, validator

    bad = {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "object"}]}
    errors = list(validator("findings").evolve(schema=bad).iter_errors([0] * 100_000))
    assert len(errors) == 1 and len(errors[0].context) <= 2 * BRANCH_ERRORS  # per branch
    assert len(errors[0].message) < 300
    ok = {"oneOf": [{"type": "integer"}, {"type": "string"}]}
    assert validator("findings").evolve(schema=ok).is_valid(3)
    both = {"oneOf": [{"type": "integer"}, {"type": "number"}]}
    assert not validator("findings").evolve(schema=both).is_valid(3)


def test_a_document_with_100k_wrong_items_is_judged_on_its_first_errors(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """100,000 failing items gave 100,000 errors to rank (5 s); the best match is now chosen
    from the first MAX_ERRORS, and still names a bad item."""
    from arena_gen.core import schema

    real = schema.validator("envs/lights.world")
    consumed = []

    class Counting:
        def iter_errors(self, instance: object) -> object:
            for error in real.iter_errors(instance):
                consumed.append(error)
                yield error

    monkeypatch.setattr(schema, "validator", lambda name: Counting())
    with pytest.raises(SchemaError, match=r"at \$\.conditions\[\d+\]"):
        schema.validate({"n": 2, "conditions": [0] * 100_000}, "envs/lights.world")
    assert len(consumed) <= 100


def test_surrogate_pairs_are_still_text() -> None:
    assert loads(b'{"a": "\\ud83d\\ude00"}') == {"a": "\U0001f600"}


@pytest.mark.parametrize("text", [b'{"a": "\\ud800"}', b'{"\\udfff": 1}',
                                  b"[" + b"0," * 60_000 + b"0]"])
def test_loads_refuses_lone_surrogates_and_huge_containers(text: bytes) -> None:
    with pytest.raises(SchemaError, match="f:3, at \\$: refused"):
        loads(text, file="f", line=3)
