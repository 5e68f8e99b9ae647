"""Typed run records: the schemas in schemas/ are generated from the models and up to date,
and the records the runner and scorer write validate against them."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import built_tasks
from pydantic import ValidationError

from arena_gen.agents.oracle import OracleAgent
from arena_gen.core.episode import run_episode
from arena_gen.core.errors import SchemaError
from arena_gen.core.records import MODELS, RunMeta, Trajectory, schema_text
from arena_gen.core.schema import validate_doc
from arena_gen.scoring.score import judge_record

SCHEMAS = Path(__file__).resolve().parent.parent / "schemas"


@pytest.mark.parametrize("name", sorted(MODELS))
def test_committed_schema_is_generated_from_the_model(name: str) -> None:
    committed = (SCHEMAS / f"{name}.schema.json").read_text(encoding="utf-8")
    assert committed == schema_text(name), "run: python -m arena_gen.core.records schemas"


def test_written_records_validate_and_round_trip() -> None:
    task = built_tasks("lights", count=1)[0]
    record = run_episode(task, OracleAgent())
    validate_doc(record, "trajectory")
    assert Trajectory.model_validate(record).to_json_dict() == record
    assert record["turns"][0]["state"]["n"] == task.world["n"]
    line = judge_record(task, record)
    validate_doc(line, "findings")
    assert line["findings"][0]["status"] == "met"


def test_bad_records_are_rejected_by_model_and_schema() -> None:
    task = built_tasks("lights", count=1)[0]
    record = run_episode(task, OracleAgent())
    bad = {**record, "end_reason": "crashed"}
    with pytest.raises(ValidationError):
        Trajectory.model_validate(bad)
    with pytest.raises(SchemaError, match="end_reason"):
        validate_doc(bad, "trajectory")
    with pytest.raises(ValidationError):
        RunMeta.model_validate({"suite": "lite"})


def test_absurd_budget_and_attempt_are_rejected_by_the_schemas() -> None:
    task = built_tasks("lights", count=1)[0]
    record = run_episode(task, OracleAgent())
    with pytest.raises(SchemaError, match="budget"):
        validate_doc({**record, "budget": 10**9}, "trajectory")
    line = judge_record(task, record)
    with pytest.raises(SchemaError, match="attempt"):
        validate_doc({**line, "attempt": 10**9}, "findings")


def test_summary_is_a_typed_record() -> None:
    from arena_gen.core.records import Summary

    good = {"k": 1, "overall": {"tasks": 1, "attempts": 1, "scored": 1, "infra_errors": 0,
                                "missing": 0, "success_rate": 100.0, "loop_ratio": None},
            "envs": {"lights": {"tasks": 1, "attempts": 1, "scored": 1, "infra_errors": 0,
                                "missing": 0, "levels": {}}}}
    assert Summary.model_validate(good).to_json_dict() == good
    validate_doc(good, "summary")
    with pytest.raises(SchemaError, match="success_rate"):
        validate_doc({**good, "overall": {**good["overall"], "success_rate": "high"}},
                     "summary")
