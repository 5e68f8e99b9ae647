"""Shared fixtures: small built tasks per env, and the ../shared reference data when present."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

from arena_gen.core import registry
from arena_gen.core.task import Task

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"

# Hypothesis draws the same examples on every machine and remembers nothing between runs, so a
# fresh clone, CI and a developer's checkout run the same tests (each test keeps its own bounded
# max_examples). HYPOTHESIS_PROFILE=explore draws fresh random examples, with the database.
# No per-example deadline: hypothesis's default 200 ms fails a test on a loaded machine
# (DeadlineExceeded / Flaky), and speed is measured in benchmarks/, not asserted here.
settings.register_profile("ci", derandomize=True, database=None, deadline=None,
                          print_blob=True)
settings.register_profile("explore", derandomize=False, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The project's shared/ folder (specs and reference data); CI always has it."""
    if not (SHARED / "reference-data").is_dir():
        pytest.skip("../shared/reference-data is absent (a user's clone without the shared folder)")
    return SHARED


_TASK_CACHE: dict[tuple[str, str, int], list[Task]] = {}


def built_tasks(env: str, suite: str = "lite", count: int = 3, seed: int = 7) -> list[Task]:
    """Build (once per session) the first ``count`` tasks of an env's preset."""
    key = (env, suite, seed)
    cached = _TASK_CACHE.get(key, [])
    if len(cached) < count:
        from arena_gen.suite.build import generate_task

        cached = [generate_task(env, suite, seed, i).task for i in range(count)]
        _TASK_CACHE[key] = cached
    return cached[:count]


_VERSION_CACHE: dict[tuple[str, int, str, int], list[Task]] = {}


def built_tasks_of(env: str, version: int, suite: str = "lite", count: int = 3,
                   seed: int = 7) -> list[Task]:
    """Like :func:`built_tasks`, with ``env`` at ``version`` (an older one's own tests)."""
    key = (env, version, suite, seed)
    cached = _VERSION_CACHE.get(key, [])
    if len(cached) < count:
        from arena_gen.suite.build import generate_task

        cached = [generate_task(env, suite, seed, i, version=version).task
                  for i in range(count)]
        _VERSION_CACHE[key] = cached
    return cached[:count]


@pytest.fixture(params=registry.names())
def env_name(request: pytest.FixtureRequest) -> str:
    """Every registered env, for registry-wide tests."""
    return str(request.param)


@pytest.fixture(params=[spec.key for spec in registry.all_specs()],
                ids=[f"{spec.name}-v{spec.version}" for spec in registry.all_specs()])
def env_key(request: pytest.FixtureRequest) -> tuple[str, int]:
    """Every registered (env, version), not only the newest: registry-wide tests run on each,
    since a released suite keeps playing and verifying with the version it was built with."""
    name, version = request.param
    return str(name), int(version)


@pytest.fixture(autouse=True, scope="session")
def _private_build_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Builds in tests cache into a temporary folder, never the user's ~/.cache/arena-gen."""
    import os

    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("xdg-cache"))
