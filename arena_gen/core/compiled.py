"""Compiled worlds kept per process, so a game re-made for a world it has played skips the compile.

A vector env plays a suite's tasks again and again, and the text env, the verifiers and the
judge each compile the task they get; a world's compiled rules depend on the world alone. The
cache is keyed by the builder and the world's ``marshal`` bytes (types and key order kept: equal
bytes load as equal worlds, and key order can matter, e.g. a package order), and the builder
gets a private copy of the world loaded from those bytes, so a cached object shares nothing with
any caller's world. Builders must return read-only objects (the games of equal worlds share
one). A world ``marshal`` cannot write (not plain data) is compiled afresh every time.
"""

from __future__ import annotations

import marshal
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

#: Compiled worlds kept per process (all builders together), the least recently used dropped.
CACHE_WORLDS = 64

T = TypeVar("T")
_KEPT: OrderedDict[tuple[Callable[..., Any], bytes], Any] = OrderedDict()


def compiled(build: Callable[[dict[str, Any]], T], world: dict[str, Any]) -> T:
    """``build(world)``, the kept one when an equal world was built before (see the module
    docstring); a builder's error propagates and nothing is kept."""
    try:
        data = marshal.dumps(world)
    except ValueError:
        return build(world)
    key = (build, data)
    found = _KEPT.pop(key, None)
    if found is None:
        found = build(marshal.loads(data))
    _KEPT[key] = found
    while len(_KEPT) > CACHE_WORLDS:
        _KEPT.popitem(last=False)
    return found  # type: ignore[no-any-return]


def forget() -> None:
    """Drop every kept world (tests that count compiles start from none)."""
    _KEPT.clear()
