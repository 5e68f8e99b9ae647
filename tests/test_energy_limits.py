"""Bounds on what an energy task file or imported config may ask for (#16): hostile-but-valid
input is refused with the project's error (file, task or config, JSON path), and input at the
bounds is proved quickly. The values below are the fuzz cases that kept HiGHS busy for 5-25 s
(benchmarks/bench_fuzz.py, importers surface) before the bounds existed."""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path
from typing import Any

import pytest
from fuzz_surfaces import _lite_tasks, _task_hash, dumps, write_suite_dir

from arena_gen.core.errors import ArenaGenError, SchemaError
from arena_gen.core.paths import schema_dir
from arena_gen.core.suite_io import read_suite
from arena_gen.envs.energy import sampler_v1 as energy
from arena_gen.envs.energy.importer import importer
from arena_gen.suite.importer import import_tasks

RELEASED = "reference-data/odyssey-arena/energy/test_energy_lite_251207.json"


def _schema() -> dict[str, Any]:
    return json.loads((schema_dir() / "envs" / "energy.world.schema.json").read_text())


def test_schema_states_the_generator_bounds() -> None:
    schema = _schema()
    props, defs = schema["properties"], schema["$defs"]
    assert props["horizon"]["maximum"] == energy.MAX_HORIZON
    assert defs["period"]["maximum"] == energy.MAX_HORIZON
    assert props["shift"]["oneOf"][1]["properties"]["day"]["maximum"] == energy.MAX_HORIZON
    for name in ("demand", "budget"):
        assert props[name]["maxItems"] == energy.MAX_HORIZON
    assert defs["efficiencies"]["maxItems"] == energy.MAX_HORIZON
    assert props["demand"]["items"]["maximum"] == energy.MAX_DEMAND
    assert props["budget"]["items"]["maximum"] == energy.MAX_BUDGET
    assert (defs["efficiency"]["minimum"], defs["efficiency"]["maximum"]) == energy.EFFICIENCY
    assert defs["capacity"]["maximum"] == energy.MAX_CAPACITY
    assert defs["price"]["maximum"] == energy.MAX_PRICE
    knobs = {f.name: f.metadata for f in dataclasses.fields(energy.EnergyPreset)}
    assert knobs["horizon"]["hi"] == knobs["t_max"]["hi"] == energy.MAX_HORIZON
    assert max(p.horizon for p in energy.PRESETS.values()) <= energy.MAX_HORIZON
    lo, hi = energy.EFFICIENCY
    assert all(lo <= a <= b <= hi for a, b in energy.RANGES.values())


def _set(doc: dict[str, Any], path: tuple[Any, ...], value: Any) -> None:
    for key in path[:-1]:
        doc = doc[key]
    doc[path[-1]] = value


HOSTILE_WORLDS = [  # (path in the world, value, JSON path named by the error)
    (("eff_wind", 47), 855504.9514017107, "$.world.eff_wind[47]"),  # fuzz case 120: 26 s
    (("eff_thermal", 23), 998454.705179312, "$.world.eff_thermal[23]"),
    (("eff_thermal", 37), 1e-300, "$.world.eff_thermal[37]"),  # fuzz case 567
    (("eff_solar", 3), -0.9, "$.world.eff_solar[3]"),
    (("demand", 89), 316246938390583, "$.world.demand[89]"),  # fuzz case 1096
    (("budget", 5), 1e300, "$.world.budget[5]"),
    (("capacity", "thermal"), 6e8, "$.world.capacity.thermal"),
    (("prices", "wind"), 5e6, "$.world.prices.wind"),
    (("initial_rated", "solar"), 1e7, "$.world.initial_rated.solar"),
    (("eff_ranges", "wind", 0), 1e-300, "$.world.eff_ranges.wind[0]"),
    (("wind_period",), 2**40, "$.world.wind_period"),
    (("horizon",), 10_000, "$.world.horizon"),
]


@pytest.mark.parametrize(("path", "value", "json_path"), HOSTILE_WORLDS)
def test_hostile_task_file_is_refused_naming_file_task_and_path(
        tmp_path: Path, path: tuple[Any, ...], value: Any, json_path: str) -> None:
    task = json.loads(json.dumps(_lite_tasks()["energy"]))
    _set(task["world"], path, value)
    task["sha256"] = _task_hash(task)  # hash-consistent: only the bounds stand in the way
    folder = write_suite_dir(tmp_path / "suite", "energy", dumps(task), task["id"],
                             task["sha256"])
    with pytest.raises(SchemaError) as info:
        read_suite(folder)
    err = info.value
    assert err.file is not None and err.file.endswith("energy.jsonl")
    assert err.task_id == task["id"] and err.json_path == json_path, str(err)


def test_a_series_longer_than_the_largest_horizon_is_refused(tmp_path: Path) -> None:
    task = json.loads(json.dumps(_lite_tasks()["energy"]))
    task["world"]["demand"] = [400.0] * (energy.MAX_HORIZON + 1)
    task["sha256"] = _task_hash(task)
    folder = write_suite_dir(tmp_path / "suite", "energy", dumps(task), task["id"],
                             task["sha256"])
    with pytest.raises(SchemaError, match=r"task energy-lite.*at \$\.world\.demand"):
        read_suite(folder)


def _config(shared_dir: Path, horizon: int) -> dict[str, Any]:
    """The first released config stretched to ``horizon`` days (its series tiled)."""
    cfg = json.loads((shared_dir / RELEASED).read_text())[0]

    def tile(xs: list[float]) -> list[float]:
        return (xs * (horizon // len(xs) + 1))[:horizon]

    cfg["horizon"] = horizon
    cfg["demand"], cfg["budget"] = tile(cfg["demand"]), tile(cfg["budget"])
    for key in ("eff_wind", "eff_solar", "eff_thermal"):
        cfg["world"][key] = tile(cfg["world"][key])
    return cfg


@pytest.mark.parametrize(("path", "value", "json_path"), [
    (("world", "eff_wind", 47), 855504.9514017107, r"\$\[0\]\.world\.eff_wind\[47\]"),
    (("world", "eff_thermal", 37), 1e-300, r"\$\[0\]\.world\.eff_thermal\[37\]"),
    (("demand", 89), 316246938390583, r"\$\[0\]\.demand\[89\]"),
    (("initial_rated", "solar"), -88.7, r"\$\[0\]\.initial_rated\.solar"),
    (("capacity", "battery"), 1e9, r"\$\[0\]\.capacity\.battery"),
    (("world", "wind_period"), 2**40, r"\$\[0\]\.world\.wind_period"),
    (("horizon",), energy.MAX_IMPORT_HORIZON + 1, r"\$\[0\]\.horizon"),
])
def test_hostile_imported_config_is_refused_naming_file_config_and_path(
        shared_dir: Path, tmp_path: Path, path: tuple[Any, ...], value: Any,
        json_path: str) -> None:
    cfg = _config(shared_dir, 120)
    _set(cfg, path, value)
    hostile = tmp_path / "hostile.json"
    hostile.write_text(json.dumps([cfg]))
    with pytest.raises(ValueError, match=rf"hostile\.json: config 0, at {json_path}: "):
        importer(hostile)
    with pytest.raises(ArenaGenError, match="hostile.json"):  # the CLI's path: no traceback
        import_tasks("energy", [hostile])


def test_a_maximal_hostile_imported_config_is_proved_quickly(shared_dir: Path,
                                                              tmp_path: Path) -> None:
    """The longest horizon an import admits, every magnitude at a bound (wind swinging between
    the efficiency extremes, capacities and initial values at their maximum): proved (or shown
    unsolvable) in well under 5 s of CPU, about 2 s measured. CPU time, not wall time, so a
    loaded machine does not make the test flaky."""
    h = energy.MAX_IMPORT_HORIZON
    cfg = _config(shared_dir, h)
    lo, hi = energy.EFFICIENCY
    cfg["world"]["eff_wind"] = [lo if i % 2 else hi for i in range(h)]
    cfg["capacity"] = {k: energy.MAX_CAPACITY for k in cfg["capacity"]}
    cfg["initial_rated"] = {k: energy.MAX_CAPACITY for k in cfg["initial_rated"]}
    path = tmp_path / "maximal.json"
    path.write_text(json.dumps([cfg]))
    start = time.process_time()
    try:
        tasks = import_tasks("energy", [path])
    except ArenaGenError:
        tasks = []
    took = time.process_time() - start
    assert took < 5.0, f"{took:.1f} s of CPU"
    assert len(tasks) in (0, 1)


def test_zero_demand_everywhere_verifies() -> None:
    """The Charnes-Cooper scale was total demand: all-zero demand divided by zero."""
    from arena_gen.envs.energy.verify_v1 import analyse

    world = json.loads(json.dumps(_lite_tasks()["energy"]["world"]))
    world["demand"] = [0.0] * world["horizon"]
    solvable, _, facts = analyse(world)
    assert solvable and facts["carbon_slack"] is not None


@pytest.mark.parametrize(("path", "value", "json_path"), [
    (("budget",), 2**63, "$.budget"),  # fuzz (energy suite task lines) case 4935
    (("certificate", "min_steps"), 10**30, "$.certificate.min_steps"),  # case 3353
])
def test_turn_counts_past_the_record_bound_are_refused(
        tmp_path: Path, path: tuple[Any, ...], value: Any, json_path: str) -> None:
    """A task whose budget or minimum exceeds what a trajectory record may hold (1,000,000
    turns) was read, then crashed the runner when it built the record."""
    task = json.loads(json.dumps(_lite_tasks()["energy"]))
    _set(task, path, value)
    task["sha256"] = _task_hash(task)
    folder = write_suite_dir(tmp_path / "suite", "energy", dumps(task), task["id"],
                             task["sha256"])
    with pytest.raises(SchemaError) as info:
        read_suite(folder)
    assert info.value.json_path == json_path and info.value.task_id == task["id"]
