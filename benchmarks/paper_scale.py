"""Helpers the paper-scale Challenge benchmarks share (imported from the scripts' folder, so
each figure they print is computed one way)."""

from __future__ import annotations

import resource


def cpu_seconds() -> float:
    """CPU seconds of this process and its finished workers (shared load does not enter)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(
        resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime
