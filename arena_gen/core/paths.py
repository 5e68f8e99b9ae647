"""Where the shipped data lives: ``schemas/`` and ``suites/``, in a checkout or a wheel."""

from __future__ import annotations

import os
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


def check_creatable(path: str | os.PathLike[str], what: str = "output") -> Path:
    """Fail early, with the project's error, when ``path`` (a file or folder to write) cannot be
    created: an ancestor is a file, or the nearest existing ancestor is not writable. Nothing
    is created; this runs before any work so a bad ``--out`` costs nothing."""
    from arena_gen.core.errors import ArenaGenError

    path = Path(path)
    probe = path.absolute()
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    if probe != path.absolute() or path.is_dir():
        if not probe.is_dir():
            raise ArenaGenError(f"{what} {path}: cannot be created, {probe} is a file, not a "
                                f"folder")
        if not os.access(probe, os.W_OK | os.X_OK):
            raise ArenaGenError(f"{what} {path}: cannot be created, {probe} is not writable")
    elif not os.access(probe, os.W_OK):
        raise ArenaGenError(f"{what} {path}: exists and is not writable")
    return path
