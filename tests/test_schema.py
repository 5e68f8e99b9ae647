"""Schema validation: errors name the file, line, task id and JSON path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import built_tasks

from arena_gen.core.errors import SchemaError
from arena_gen.core.schema import read_jsonl, validate_doc, validate_task


def task_dict() -> dict:
    return built_tasks("lights", count=1)[0].to_dict()


def test_valid_task_passes() -> None:
    validate_task(task_dict())


@pytest.mark.parametrize("mutate, path", [
    (lambda d: d["certificate"].__setitem__("min_steps", "ten"), "$.certificate.min_steps"),
    (lambda d: d.__setitem__("budget", 0), "$.budget"),
    (lambda d: d["rubric"][0].__setitem__("id", "Bad Id"), "$.rubric[0].id"),
    (lambda d: d["world"]["conditions"].__setitem__(1, {"xor": [1, 2]}), "$.world.conditions[1]"),
    (lambda d: d.pop("sha256"), "$"),
])
def test_errors_name_json_path(mutate, path: str) -> None:
    data = task_dict()
    mutate(data)
    with pytest.raises(SchemaError) as err:
        validate_task(data, file="x.jsonl", line=4)
    assert err.value.json_path == path
    message = str(err.value)
    assert "x.jsonl:4" in message and data["id"] in message and path in message


def test_jsonl_reader_names_line(tmp_path: Path) -> None:
    good = json.dumps(task_dict())
    bad = task_dict()
    bad["env_version"] = -1
    file = tmp_path / "lights.jsonl"
    file.write_text(good + "\n\n" + json.dumps(bad) + "\n")
    with pytest.raises(SchemaError) as err:
        list(read_jsonl(file, "task"))
    assert err.value.line == 3 and err.value.json_path == "$.env_version"
    assert str(file) in str(err.value)
    file.write_text(good + "\n{not json\n")
    with pytest.raises(SchemaError, match="lights.jsonl:2"):
        list(read_jsonl(file, "task"))


def test_findings_and_trajectory_schemas() -> None:
    validate_doc({"task_id": "t", "attempt": 0, "flags": {},
                  "findings": [{"item": "all_on", "status": "met", "evidence": "10/10"}]},
                 "findings")
    with pytest.raises(SchemaError) as err:
        validate_doc({"task_id": "t", "attempt": 0, "flags": {},
                      "findings": [{"item": "all_on", "status": "maybe", "evidence": ""}]},
                     "findings")
    assert err.value.json_path == "$.findings[0].status"
    with pytest.raises(SchemaError):
        validate_doc({"task_id": "t"}, "trajectory")


def test_inline_defs_keeps_recursive_refs() -> None:
    from arena_gen.core.schema import inline_defs

    defs = {"name": {"type": "string"},
            "tree": {"type": "object", "properties": {"kid": {"$ref": "#/$defs/tree"},
                                                      "label": {"$ref": "#/$defs/name"}}}}
    schema = {"$defs": defs, "items": {"$ref": "#/$defs/tree"}}
    flat = inline_defs(schema, defs)
    tree = flat["items"]
    assert tree["properties"]["label"] == {"type": "string"}
    assert tree["properties"]["kid"] == {"$ref": "#/$defs/tree"}
    assert flat["$defs"]["tree"]["properties"]["label"] == {"type": "string"}


def test_trading_v6_regimes_and_map_changes_validate() -> None:
    """A v6 Challenge world (regimes) and its public view (map_changes) pass; bad ones name
    the path (they were refused before, so a v6 Challenge suite could not be read back)."""
    from conftest import built_tasks_of

    data = built_tasks_of("trading", 5, count=1)[0].to_dict()
    matrix = data["world"]["matrix"]
    data["world"]["regimes"] = [{"day": 150, "matrix": matrix}, {"day": 400, "matrix": matrix}]
    data["public"]["map_changes"] = True
    validate_task(data)
    for mutate, path in [
        (lambda d: d["world"]["regimes"][1].__setitem__("day", 0), "$.world.regimes[1].day"),
        (lambda d: d["world"]["regimes"][0].__setitem__("extra", 1), "$.world.regimes[0]"),
        (lambda d: d["public"].__setitem__("map_changes", False), "$.public.map_changes"),
    ]:
        bad = json.loads(json.dumps(data))
        mutate(bad)
        with pytest.raises(SchemaError) as err:
            validate_task(bad, file="t.jsonl", line=1)
        assert err.value.json_path == path
