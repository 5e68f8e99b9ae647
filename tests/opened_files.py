"""Which files a block of code opens: an audit hook sees every ``open``, whichever API reads
the file (``open``, ``os.open``, ``Path.read_bytes``), so a test can count reads of a file."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

_OPENED: list[list[str]] = []


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if _OPENED and event == "open" and isinstance(args[0], (str, bytes, Path)):
        _OPENED[-1].append(os.path.realpath(os.fsdecode(args[0])))


sys.addaudithook(_audit)  # once per process: audit hooks cannot be removed


@contextmanager
def opened() -> Iterator[list[str]]:
    """The real paths opened inside the block, in order."""
    _OPENED.append([])
    try:
        yield _OPENED[-1]
    finally:
        _OPENED.pop()
