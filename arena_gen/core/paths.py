"""Where the shipped data lives: ``schemas/`` and ``suites/``, in a checkout or a wheel."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent


def _data_dir(name: str) -> Path:
    """Prefer the copy inside the installed package, else the checkout's top-level folder."""
    inside = _PACKAGE / name
    if inside.is_dir():
        return inside
    return _PACKAGE.parent / name


def schema_dir() -> Path:
    """Folder holding the JSON Schemas."""
    return _data_dir("schemas")


def suites_dir() -> Path:
    """Folder holding the released frozen suites."""
    return _data_dir("suites")
