"""A suite folder read once: its manifest (document and bytes) and the kind it is.

``verify`` checks five kinds of folder: a suite built from a preset, an imported one, a stream
folder, and a sealed suite's private and public halves. Each kind has its own verification (in
:mod:`arena_gen.suite.verify`, and :mod:`arena_gen.train.stream_check` for streams, which draws
from ``train``), and every one of them takes this object, so the manifest is read once per
``verify`` and the signature is checked over the bytes that were decoded.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

from arena_gen.core.suite_io import SEALED_PRIVATE, SEALED_PUBLIC, ManifestRead, load_manifest
from arena_gen.suite.catalog import STREAM_PREFIX, SUITES


class Kind(Enum):
    """What a suite folder is, from its manifest alone."""

    BUILT = "built"
    IMPORTED = "imported"
    STREAM = "stream"
    SEALED_PRIVATE = "sealed private"
    SEALED_PUBLIC = "sealed public"


def kind_of(manifest: dict[str, Any]) -> Kind:
    """The kind a (schema-valid) manifest names: its ``sealed`` role first, then its suite."""
    sealed = manifest.get("sealed")
    role = sealed.get("role") if isinstance(sealed, dict) else None
    if role == SEALED_PUBLIC:
        return Kind.SEALED_PUBLIC
    if role == SEALED_PRIVATE:
        return Kind.SEALED_PRIVATE
    name = str(manifest.get("suite", ""))
    if name.startswith(STREAM_PREFIX):
        return Kind.STREAM
    return Kind.BUILT if name in SUITES else Kind.IMPORTED


@dataclass(frozen=True)
class SuiteFolder:
    """A suite folder whose manifest was read once, and its kind."""

    read: ManifestRead
    kind: Kind

    @property
    def path(self) -> Path:
        return self.read.root

    @property
    def manifest(self) -> dict[str, Any]:
        return self.read.manifest


def open_suite(path: str | os.PathLike[str] | SuiteFolder) -> SuiteFolder:
    """Read a suite folder's manifest (schema-checked, bounded) once and name its kind."""
    if isinstance(path, SuiteFolder):
        return path
    read = load_manifest(path)
    return SuiteFolder(read, kind_of(read.manifest))
