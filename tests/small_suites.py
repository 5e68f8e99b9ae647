"""Small suites in tests: the first n tasks of a preset are the suite of their seed only when
the preset counts n, so a test that verifies one shrinks the preset's count while it does."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from unittest import mock

from arena_gen.suite import catalog


@contextmanager
def preset_counts(counts: dict[str, int]) -> Iterator[None]:
    """Make each env's preset count ``counts[env]`` tasks (in every suite) inside the block."""
    real = catalog.preset_count

    def count(suite: str, env: str, version: int | None = None) -> int:
        return counts[env] if env in counts else real(suite, env, version)

    with mock.patch.object(catalog, "preset_count", count):
        yield
