"""Import released OdysseyArena energy configs (a JSON list of 120-day grid configs) as Drafts.

The file is untrusted: it is parsed as JSON, every field is type- and length-checked, and any
mismatch raises a ValueError naming the file and the config index. Float values are kept as
released (no rounding), so the imported world plays exactly like the released one.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from ..core.schema import loads
from ..core.task import Draft
from ..envs.energy import GENERATORS
from .energy import CAPACITY, PRICES, RANGES, make_draft

_TOP = ("horizon", "target_stability", "target_carbon", "world", "demand", "budget",
        "capacity", "initial_rated", "prices")


def importer(path: Path) -> list[Draft]:
    """Parse a released energy file into one Draft per config, or raise a clear ValueError."""
    path = Path(path)
    try:
        data = loads(path.read_bytes(), file=str(path))
    except OSError as exc:
        raise ValueError(f"{path}: cannot read as JSON ({exc})") from None
    if not isinstance(data, list) or not data or not all(isinstance(c, dict) for c in data):
        raise ValueError(f"{path}: not an energy config file (expected a non-empty JSON list "
                         f"of energy config objects)")
    return [_draft(path, i, cfg) for i, cfg in enumerate(data)]


def _draft(path: Path, index: int, cfg: dict[str, Any]) -> Draft:
    where = f"{path}: config {index}"
    missing = [k for k in _TOP if k not in cfg]
    if missing or not isinstance(cfg.get("world"), dict):
        raise ValueError(f"{where}: not in energy format (missing {', '.join(missing) or 'world'})")
    h = cfg["horizon"]
    if isinstance(h, bool) or not isinstance(h, int) or not 1 <= h <= 10_000:
        raise ValueError(f"{where}: horizon must be an integer in [1, 10000], got {h!r}")
    w = cfg["world"]
    series = {name: _series(where, name, src, h) for name, src in (
        ("demand", cfg.get("demand")), ("budget", cfg.get("budget")),
        ("eff_wind", w.get("eff_wind")), ("eff_solar", w.get("eff_solar")),
        ("eff_thermal", w.get("eff_thermal")))}
    world: dict[str, Any] = {
        "horizon": h, **series,
        "wind_period": _int(where, "world.wind_period", w.get("wind_period")),
        "solar_period": _int(where, "world.solar_period", w.get("solar_period")),
        "shift": None,
        "eff_ranges": {k: list(v) for k, v in RANGES.items()},
        "target_stability": _num(where, "target_stability", cfg["target_stability"]),
        "target_carbon": _num(where, "target_carbon", cfg["target_carbon"]),
        "capacity": _table(where, "capacity", cfg["capacity"], CAPACITY),
        "prices": _table(where, "prices", cfg["prices"], PRICES),
        "initial_rated": {k: _num(where, f"initial_rated.{k}", cfg["initial_rated"].get(k))
                          for k in GENERATORS}
        if isinstance(cfg["initial_rated"], dict) else _bad(where, "initial_rated"),
    }
    params = {"horizon": h, "source": path.name, "index": index,
              "released_seed": cfg.get("seed") if isinstance(cfg.get("seed"), int) else None,
              "shift_day": None, "min_stability_slack": 0.0, "min_carbon_slack": 0.0}
    return make_draft(world, params)


def _bad(where: str, name: str) -> Any:
    raise ValueError(f"{where}: {name} has the wrong type")


def _num(where: str, name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{where}: {name} must be a finite number, got {value!r}"[:200])
    return float(value)


def _int(where: str, name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{where}: {name} must be a positive integer, got {value!r}"[:200])
    return value


def _series(where: str, name: str, value: Any, h: int) -> list[float]:
    if not isinstance(value, list) or len(value) < h:
        raise ValueError(f"{where}: {name} must be a list of at least {h} numbers")
    return [_num(where, f"{name}[{i}]", v) for i, v in enumerate(value[:h])]


def _table(where: str, name: str, value: Any, keys: dict[str, float]) -> dict[str, float]:
    if not isinstance(value, dict):
        return _bad(where, name)  # type: ignore[no-any-return]
    return {k: _num(where, f"{name}.{k}", value.get(k, keys[k])) for k in keys}
