"""Limits a user may set through the environment (``$ARENA_GEN_...``), read in one way."""

from __future__ import annotations

import math
import os

from arena_gen.core.errors import ArenaGenError


def positive_number(name: str, default: float, unit: str = "number") -> float:
    """``$name`` as a positive finite number (``default`` when unset or blank); anything else
    is a clear error naming the variable, never a traceback deep in a run."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise ArenaGenError(f"${name} is {raw[:40]!r}, not a positive {unit}")
    return value
