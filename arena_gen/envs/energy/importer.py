"""Import released OdysseyArena energy configs (a JSON list of 120-day grid configs) as Drafts.

The file is untrusted: it is parsed as JSON, every field is type-, length- and range-checked,
and any mismatch raises a ValueError naming the file, the config index and the JSON path of the
value (``$[3].world.eff_wind[47]``). The ranges are the task schema's
(:data:`~.energy.MAX_HORIZON` and the rest), with a shorter horizon for imports
(:data:`~.energy.MAX_IMPORT_HORIZON`: the released format has 120 days), so that a hostile
config is refused instead of keeping the LP solver busy. Float values are kept as released (no
rounding), so the imported world plays exactly like the released one. :func:`derive` gives the
rest of a draft from the world and the source facts, for the importer and ``verify`` alike.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from arena_gen.core.import_files import read_object_list
from arena_gen.core.task import Draft
from arena_gen.envs.energy.game_v1 import GENERATORS
from arena_gen.envs.energy.sampler_v1 import (
    CAPACITY,
    EFFICIENCY,
    MAX_BUDGET,
    MAX_CAPACITY,
    MAX_DEMAND,
    MAX_HORIZON,
    MAX_IMPORT_HORIZON,
    MAX_PRICE,
    PRICES,
    RANGES,
    make_draft,
)

_TOP = ("horizon", "target_stability", "target_carbon", "world", "demand", "budget",
        "capacity", "initial_rated", "prices")

#: The world fields an energy config gives; the rest of an imported world is constants.
RELEASED = ("horizon", "demand", "budget", "eff_wind", "eff_solar", "eff_thermal",
            "wind_period", "solar_period", "target_stability", "target_carbon", "capacity",
            "prices", "initial_rated")


def importer(path: Path) -> list[Draft]:
    """Parse a released energy file into one Draft per config, or raise a clear ValueError."""
    path = Path(path)
    data = read_object_list(path, "an energy config file (expected a non-empty JSON list of "
                                  "energy config objects)")
    return [_draft(_Where(path, i), cfg) for i, cfg in enumerate(data)]


class _Where:
    """Names a value of one config in messages: file, config index, JSON path."""

    def __init__(self, path: Path, index: int) -> None:
        self.path, self.index = path, index

    def __call__(self, name: str = "") -> str:
        at = f", at $[{self.index}].{name}" if name else ""
        return f"{self.path}: config {self.index}{at}"

    def bad(self, name: str, message: str) -> ValueError:
        return ValueError(f"{self(name)}: {name.rsplit('.', 1)[-1]} {message}"[:300])


def _draft(where: _Where, cfg: dict[str, Any]) -> Draft:
    missing = [k for k in _TOP if k not in cfg]
    if missing or not isinstance(cfg.get("world"), dict):
        raise ValueError(f"{where()}: not in energy format (missing "
                         f"{', '.join(missing) or 'world'})")
    h = cfg["horizon"]
    if isinstance(h, bool) or not isinstance(h, int) or not 1 <= h <= MAX_IMPORT_HORIZON:
        raise where.bad("horizon", f"must be an integer in [1, {MAX_IMPORT_HORIZON}], got "
                                   f"{h!r}")
    w = cfg["world"]
    series = {name: _series(where, at, src, h, lo, hi) for name, at, src, (lo, hi) in (
        ("demand", "demand", cfg.get("demand"), (0.0, MAX_DEMAND)),
        ("budget", "budget", cfg.get("budget"), (0.0, MAX_BUDGET)),
        ("eff_wind", "world.eff_wind", w.get("eff_wind"), EFFICIENCY),
        ("eff_solar", "world.eff_solar", w.get("eff_solar"), EFFICIENCY),
        ("eff_thermal", "world.eff_thermal", w.get("eff_thermal"), EFFICIENCY))}
    if not isinstance(cfg["initial_rated"], dict):
        raise where.bad("initial_rated", "must be an object")
    world: dict[str, Any] = {
        "horizon": h, **series,
        "wind_period": _int(where, "world.wind_period", w.get("wind_period")),
        "solar_period": _int(where, "world.solar_period", w.get("solar_period")),
        "target_stability": _num(where, "target_stability", cfg["target_stability"], 0.0, 1.0),
        "target_carbon": _num(where, "target_carbon", cfg["target_carbon"], 0.0, 1.0),
        "capacity": _table(where, "capacity", cfg["capacity"], CAPACITY, MAX_CAPACITY),
        "prices": _table(where, "prices", cfg["prices"], PRICES, MAX_PRICE),
        "initial_rated": {k: _num(where, f"initial_rated.{k}", cfg["initial_rated"].get(k),
                                  0.0, MAX_CAPACITY) for k in GENERATORS},
    }
    seed = cfg.get("seed") if isinstance(cfg.get("seed"), int) else None
    return derive(world, {"source": where.path.name, "index": where.index,
                          "released_seed": seed})


def derive(world: Mapping[str, Any], source: Mapping[str, Any]) -> Draft:
    """The draft an imported world gives with its source facts (file, config index, released
    seed): no regime shift, the fixed efficiency ranges and zero slack floors are the
    importer's, so ``verify`` re-derives them with the budget, public view, rules and rubric."""
    full: dict[str, Any] = {**{k: world[k] for k in RELEASED}, "shift": None,
                            "eff_ranges": {k: list(v) for k, v in RANGES.items()}}
    params = {"horizon": full["horizon"], "source": source.get("source"),
              "index": source.get("index"), "released_seed": source.get("released_seed"),
              "shift_day": None, "min_stability_slack": 0.0, "min_carbon_slack": 0.0}
    return make_draft(full, params)


def _num(where: _Where, name: str, value: Any, lo: float, hi: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise where.bad(name, f"must be a finite number, got {value!r}")
    if not lo <= value <= hi:
        raise where.bad(name, f"must be in [{lo:g}, {hi:g}], got {value!r}")
    return float(value)


def _int(where: _Where, name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_HORIZON:
        raise where.bad(name, f"must be an integer in [1, {MAX_HORIZON}], got {value!r}")
    return value


def _series(where: _Where, name: str, value: Any, h: int, lo: float, hi: float) -> list[float]:
    if not isinstance(value, list) or not h <= len(value) <= MAX_IMPORT_HORIZON:
        size = f"{len(value)} items" if isinstance(value, list) else type(value).__name__
        raise where.bad(name, f"must be a list of {h}-{MAX_IMPORT_HORIZON} numbers (the "
                              f"horizon is {h}), got {size}")
    return [_num(where, f"{name}[{i}]", v, lo, hi) for i, v in enumerate(value[:h])]


def _table(where: _Where, name: str, value: Any, keys: dict[str, float],
           hi: float) -> dict[str, float]:
    if not isinstance(value, dict):
        raise where.bad(name, "must be an object")
    return {k: _num(where, f"{name}.{k}", value.get(k, keys[k]), 0.0, hi) for k in keys}
