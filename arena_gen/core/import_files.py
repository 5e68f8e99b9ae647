"""Reading a released data file that holds a JSON list of objects (energy and repo formats)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arena_gen.core.bounded_io import read_import_file
from arena_gen.core.schema import loads


def read_object_list(path: Path, expected: str) -> list[dict[str, Any]]:
    """The file's non-empty list of objects, or a ValueError naming the file and ``expected``
    (what the list should hold, for the message); untrusted bytes go through ``loads``."""
    try:
        data = loads(read_import_file(path), file=str(path))
    except OSError as exc:
        raise ValueError(f"{path}: cannot read as JSON ({exc})") from None
    if not isinstance(data, list) or not data or not all(isinstance(c, dict) for c in data):
        raise ValueError(f"{path}: not {expected}")
    return data
