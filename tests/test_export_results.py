"""``arena-gen export-results`` (#40): a scored run as an Every Eval Ever record, valid against
that package's own ``eval.schema.json``, with the run's exact figures, byte-stable."""

from __future__ import annotations

import copy
import json
import os
import zipfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import arena_gen
from arena_gen.cli import main
from arena_gen.scoring.eee import eee_record

SCHEMA = "every_eval_ever/schemas/eval.schema.json"
TASKS = ["lights-lite-7-0000", "lights-lite-7-0001"]


def eee_schema() -> dict[str, Any]:
    """The package's schema: from the installed package (Python >= 3.12), else from its wheel
    named by ``$ARENA_GEN_EEE_WHEEL`` (how CI gets it on 3.11: ``pip download``)."""
    try:
        from importlib import resources

        text = resources.files("every_eval_ever.schemas").joinpath("eval.schema.json")
        return dict(json.loads(text.read_text(encoding="utf-8")))
    except ModuleNotFoundError:
        pass
    wheel = os.environ.get("ARENA_GEN_EEE_WHEEL")
    if wheel:
        with zipfile.ZipFile(wheel) as zf:
            return dict(json.loads(zf.read(SCHEMA)))
    if os.environ.get("ARENA_GEN_REQUIRE_EEE"):
        pytest.fail("every-eval-ever is neither installed nor given as $ARENA_GEN_EEE_WHEEL")
    pytest.skip("every-eval-ever needs Python >= 3.12 to install; set ARENA_GEN_EEE_WHEEL to "
                "its wheel (pip download --no-deps --python-version 3.12 every-eval-ever)")


def errors(record: dict[str, Any]) -> list[str]:
    import jsonschema

    schema = eee_schema()
    jsonschema.Draft7Validator.check_schema(schema)
    return [f"{e.json_path}: {e.message}"
            for e in jsonschema.Draft7Validator(schema).iter_errors(record)]


@pytest.fixture(scope="module")
def scored_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("eee") / "run"
    arena_gen.run("lite", "oracle", out, tasks=TASKS, attempts=2)
    return out


def test_export_writes_a_schema_valid_record_with_the_runs_figures(scored_run: Path,
                                                                    tmp_path: Path) -> None:
    out = tmp_path / "eee.json"
    res = CliRunner().invoke(main, ["export-results", str(scored_run), "--out", str(out)])
    assert res.exit_code == 0, res.output
    record = json.loads(out.read_text(encoding="utf-8"))
    assert errors(record) == []
    scores = {r["evaluation_result_id"]: r["score_details"]["score"]
              for r in record["evaluation_results"]}
    assert scores == {"overall.avg_at_k": 100.0, "overall.pass_at_k": 100.0,
                      "overall.avg_credit_at_k": 100.0, "overall.induction_efficiency": 1.0,
                      "lights.avg_at_k": 100.0, "lights.pass_at_k": 100.0,
                      "lights.avg_credit_at_k": 100.0, "lights.induction_efficiency": 1.0}
    assert record["model_info"]["id"] == "arena-gen/oracle"
    assert record["evaluation_results"][0]["metric_config"]["metric_name"] == "Avg@2"
    again = tmp_path / "again.json"
    CliRunner().invoke(main, ["export-results", str(scored_run), "--out", str(again)])
    assert again.read_bytes() == out.read_bytes()  # the run's own times: same run, same bytes


def test_induction_efficiency_is_exported_per_env_with_its_reference_kind(
        scored_run: Path) -> None:
    # the record dict itself (no schema needed): the oracle plays the with-rules minimum, so
    # its efficiency against that lower bound is exactly 1, on a 0-1 scale, kind named
    summary = arena_gen.score(scored_run)
    meta = json.loads((scored_run / "run.json").read_text(encoding="utf-8"))
    results = {r["evaluation_result_id"]: r for r in eee_record(summary, meta)
               ["evaluation_results"]}
    lights = results["lights.induction_efficiency"]
    config = lights["metric_config"]
    assert config["metric_id"] == "arena_gen.induction_efficiency"
    assert (config["metric_unit"], config["min_score"], config["max_score"]) == (
        "proportion", 0, 1)
    assert config["metric_parameters"] == {"k": 2,
                                           "reference": "lower bound: with-rules minimum"}
    assert config["additional_details"] == {"reference_kind": "lower bound: with-rules minimum",
                                            "tasks_without_reference": "0"}
    assert lights["score_details"] == {"score": 1.0, "uncertainty": {
        "standard_error": {"value": 0.0, "method": "analytic"}, "num_samples": 2}}


def test_a_mixed_reference_is_named_and_an_env_without_a_figure_has_no_result(
        scored_run: Path) -> None:
    # a forged summary: one env half efficient against a mixed reference with one task left
    # out; another env (fixed horizon) with no figure has no induction result at all
    meta = json.loads((scored_run / "run.json").read_text(encoding="utf-8"))
    mixed = "mixed: expected induction cost (1 task); lower bound: with-rules minimum (2 tasks)"
    summary = {"k": 1, "overall": {"tasks": 5, "avg_at_k": 50.0},
               "envs": {"lights": {"tasks": 4, "induction_efficiency": 0.3125,
                                   "induction_efficiency_se": 0.1,
                                   "induction_efficiency_excluded": 1,
                                   "induction_efficiency_reference": mixed},
                        "trading": {"tasks": 1, "avg_at_k": 0.0,
                                    "induction_efficiency": None,
                                    "induction_efficiency_excluded": 1,
                                    "induction_efficiency_reference": None}}}
    results = {r["evaluation_result_id"]: r
               for r in eee_record(summary, meta)["evaluation_results"]}
    assert sorted(results) == ["lights.induction_efficiency", "overall.avg_at_k",
                               "trading.avg_at_k"]
    lights = results["lights.induction_efficiency"]
    assert lights["score_details"]["score"] == 0.3125
    assert lights["score_details"]["uncertainty"]["num_samples"] == 3  # 4 tasks, 1 without
    assert lights["metric_config"]["additional_details"]["reference_kind"] == mixed
    assert lights["metric_config"]["additional_details"]["tasks_without_reference"] == "1"


def test_an_llm_runs_model_is_named_and_a_broken_record_is_refused(scored_run: Path) -> None:
    summary = arena_gen.score(scored_run)
    meta = json.loads((scored_run / "run.json").read_text(encoding="utf-8"))
    meta["agent"] = {"name": "llm", "config": {"model": "SmolLM2-135M-Instruct"}}
    record = eee_record(summary, meta)
    assert record["model_info"]["id"] == "SmolLM2-135M-Instruct"
    assert errors(record) == []
    broken = copy.deepcopy(record)
    del broken["evaluation_results"][0]["metric_config"]["lower_is_better"]
    broken["model_info"]["additional_details"]["deployment_type"] = "cloudy"
    assert len(errors(broken)) == 2  # the schema is applied, not just loaded


def test_export_of_a_folder_without_a_run_fails_cleanly(tmp_path: Path) -> None:
    res = CliRunner().invoke(main, ["export-results", str(tmp_path), "--out",
                                    str(tmp_path / "x.json")])
    assert res.exit_code != 0 and "no run.json" in res.output
    assert not (tmp_path / "x.json").exists()
