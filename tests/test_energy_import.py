"""Released OdysseyArena energy configs: import, prove feasible, pin the released semantics."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena_gen.core.errors import SchemaError
from arena_gen.core.replay import replay
from arena_gen.core.task import Task
from arena_gen.envs.energy.importer import importer
from arena_gen.suite.importer import import_tasks

RELEASED = "reference-data/odyssey-arena/energy/test_energy_lite_251207.json"
_CACHE: list[Task] = []


def released_tasks(shared_dir: Path) -> list[Task]:
    if not _CACHE:
        _CACHE.extend(import_tasks("energy", [shared_dir / RELEASED]))
    return _CACHE


def test_importer_reads_all_thirty(shared_dir: Path) -> None:
    drafts = importer(shared_dir / RELEASED)
    assert len(drafts) == 30
    raw = json.loads((shared_dir / RELEASED).read_text())
    for draft, cfg in zip(drafts, raw, strict=True):
        w = draft.world
        assert w["eff_wind"] == cfg["world"]["eff_wind"] and w["demand"] == cfg["demand"]
        assert w["target_carbon"] == cfg["target_carbon"] and draft.budget == 132
        assert draft.params["released_seed"] == cfg["seed"]
        assert f"repeats every {cfg['world']['wind_period']} days" in draft.rules_text


def test_released_configs_are_feasible_with_pinned_slacks(shared_dir: Path) -> None:
    """All 30 are feasible; stability slack 0.023-0.045 and carbon slack 0.034-0.224 pin the
    released semantics (ramp over four sources incl. the battery command, / 1280)."""
    tasks = released_tasks(shared_dir)
    assert len(tasks) == 30
    stab = [t.certificate.facts["stability_slack"] for t in tasks]
    carb = [t.certificate.facts["carbon_slack"] for t in tasks]
    assert all(t.certificate.solvable for t in tasks)
    assert 0.02 <= min(stab) and max(stab) <= 0.05
    assert min(stab) == pytest.approx(0.0231, abs=5e-4)
    assert max(stab) == pytest.approx(0.0445, abs=5e-4)
    assert min(carb) == pytest.approx(0.0341, abs=5e-4)
    assert max(carb) == pytest.approx(0.2242, abs=5e-4)
    assert all(t.certificate.facts["worst_case_plan"] == "infeasible" for t in tasks)
    assert all(t.certificate.facts["mean_efficiency_plan"] != "succeeds" for t in tasks)


def test_released_witnesses_replay_to_success(shared_dir: Path) -> None:
    for task in released_tasks(shared_dir):
        result = replay(task)
        assert result.success and result.steps == 120, task.id
        assert result.final_info["stability"] > task.world["target_stability"]
        assert result.final_info["thermal_share"] < task.world["target_carbon"]


def test_wrong_format_names_the_file(shared_dir: Path, tmp_path: Path) -> None:
    lights = shared_dir / "reference-data/odyssey-arena/lights/test_turnonlights_lite_251030.json"
    with pytest.raises(ValueError, match="test_turnonlights_lite_251030.json.*not in energy"):
        importer(lights)
    trade = shared_dir / "reference-data/odyssey-arena/trading/test_trade_config_1.json"
    with pytest.raises(ValueError, match="test_trade_config_1.json"):
        importer(trade)
    bad = tmp_path / "broken.json"
    bad.write_text("{not json")
    with pytest.raises(SchemaError, match="broken.json:1, at \\$: invalid JSON"):
        importer(bad)
    cfg = json.loads((shared_dir / RELEASED).read_text())[0]
    cfg["demand"] = cfg["demand"][:10]
    short = tmp_path / "short.json"
    short.write_text(json.dumps([cfg]))
    with pytest.raises(ValueError,
                       match=r"short.json: config 0, at \$\[0\].demand: demand must be a list"):
        importer(short)
    cfg = json.loads((shared_dir / RELEASED).read_text())[0]
    cfg["world"]["eff_wind"][3] = "1.0"
    typed = tmp_path / "typed.json"
    typed.write_text(json.dumps([cfg]))
    with pytest.raises(ValueError, match=r"eff_wind\[3\] must be a finite number"):
        importer(typed)
