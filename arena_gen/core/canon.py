"""Canonical JSON: the one byte form that hashes, manifests and rebuild comparisons rely on."""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any


def _check(obj: Any, path: str = "$") -> None:
    """Reject values JSON cannot carry faithfully (NaN, infinities, non-string keys)."""
    if isinstance(obj, float):
        if not math.isfinite(obj):
            raise ValueError(f"non-finite float at {path}: {obj!r}")
    elif isinstance(obj, dict):
        for key, value in obj.items():
            if not isinstance(key, str):
                raise ValueError(f"non-string key at {path}: {key!r}")
            _check(value, f"{path}.{key}")
    elif isinstance(obj, (list, tuple)):
        for i, value in enumerate(obj):
            _check(value, f"{path}[{i}]")


#: Values :func:`_check` accepts without looking further (exact types, not subclasses).
_PLAIN = frozenset({str, int, bool, type(None)})


def _clean(obj: Any) -> bool:
    """Whether :func:`_check` accepts ``obj``, decided without building a path per value
    (hashing a task spent most of its time naming paths; a failure is named by ``_check``)."""
    if isinstance(obj, float):
        return math.isfinite(obj)
    if isinstance(obj, dict):
        for key in obj:
            if not isinstance(key, str):
                return False
        values: Any = obj.values()
    elif isinstance(obj, (list, tuple)):
        values = obj
    else:
        return True
    for value in values:
        if type(value) not in _PLAIN and not _clean(value):
            return False
    return True


def canonical_json(obj: Any) -> str:
    """Serialise with sorted keys, no spaces, UTF-8 text and floats as Python ``repr``."""
    if not _clean(obj):
        _check(obj)  # raises, naming the first value JSON cannot carry
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)


def canonical_members(obj: dict[str, Any]) -> dict[str, str]:
    """The canonical JSON of each member of an object, to be joined by :func:`joined_members`
    (two objects that share most members then serialise the shared ones once)."""
    if not _clean(obj):
        _check(obj)
    return {key: json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                            allow_nan=False) for key, value in obj.items()}


def joined_members(members: dict[str, str]) -> str:
    """The canonical JSON of the object whose members serialise to ``members``: the same text
    :func:`canonical_json` gives the object itself."""
    return "{" + ",".join(json.dumps(key, ensure_ascii=False) + ":" + members[key]
                          for key in sorted(members)) + "}"


def canonical_bytes(obj: Any) -> bytes:
    """Return the UTF-8 bytes of :func:`canonical_json`."""
    return canonical_json(obj).encode("utf-8")


def sha256_hex(data: bytes | str) -> str:
    """Return the hex sha256 of bytes (strings are UTF-8 encoded)."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def sha256_of(obj: Any) -> str:
    """Return the sha256 of an object's canonical JSON."""
    return sha256_hex(canonical_bytes(obj))
