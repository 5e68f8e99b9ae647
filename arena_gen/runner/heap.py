"""The garbage collector during a run: what exists before the episodes stays out of its passes.

A run reads its suite and compiles its games once, then plays for seconds to hours. Those
objects (and the modules) live for the whole run, yet every full pass of the cyclic collector
scanned them all again, and a run with ``--probes`` makes one or two more passes than one
without (its records and the games' probe tables are bigger). Frozen (:func:`gc.freeze`), they
are left out of every pass until the run ends; nothing else changes.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def long_lived_frozen() -> Iterator[None]:
    """Every object alive now moved to the collector's permanent generation while the block
    runs and back after (:func:`gc.unfreeze`), so garbage among them is collected later, not
    never; a freeze someone else holds is left as it is (the block then changes nothing)."""
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
