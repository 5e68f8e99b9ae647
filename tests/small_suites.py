"""Small suites in tests: the first n tasks of a preset are the suite of their seed only when
the preset counts n, so a test that verifies one shrinks the preset's count while it does."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from unittest import mock

from arena_gen.core.suite_io import read_manifest, resolve_suite
from arena_gen.suite import catalog
from arena_gen.train.released import RELEASED


@contextmanager
def preset_counts(counts: dict[str, int]) -> Iterator[None]:
    """Make each env's preset count ``counts[env]`` tasks (in every suite) inside the block."""
    real = catalog.preset_count

    def count(suite: str, env: str, version: int | None = None) -> int:
        return counts[env] if env in counts else real(suite, env, version)

    with mock.patch.object(catalog, "preset_count", count):
        yield


def released_count(env: str) -> int:
    """How many tasks of ``env`` the released folders hold, by their manifests' counts (the one
    owner of that number; tests compare streams' exclusions and fingerprints against it)."""
    return sum(int(read_manifest(resolve_suite(name))[1]["counts"].get(env, 0))
               for name in RELEASED)
