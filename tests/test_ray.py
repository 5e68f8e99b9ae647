"""The Ray executor gives the same bytes as local execution (a local Ray instance)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena_gen.core import registry
from arena_gen.core.suite_io import file_digests, write_suite
from arena_gen.runner.run import RunConfig, run_suite
from arena_gen.runner.rundir import RunDir
from arena_gen.suite.build import build_suite

ray = pytest.importorskip("ray", reason="Ray is the optional extra 'ray' (.ci/run installs it)")


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    yield
    if ray.is_initialized():
        ray.shutdown()


def strip_timing(obj):
    if isinstance(obj, dict):
        return {k: strip_timing(v) for k, v in obj.items() if k not in ("latency", "seconds")}
    if isinstance(obj, list):
        return [strip_timing(v) for v in obj]
    return obj


def test_build_and_run_on_ray_match_local(tmp_path: Path) -> None:
    counts = {env: 2 for env in registry.names()}
    local = build_suite("lite", 11, counts=counts)
    pool = build_suite("lite", 11, counts=counts, jobs=2)
    remote = build_suite("lite", 11, counts=counts, executor="ray", jobs=2)
    a = write_suite(tmp_path / "local", local.manifest, local.tasks)
    b = write_suite(tmp_path / "ray", remote.manifest, remote.tasks)
    c = write_suite(tmp_path / "pool", pool.manifest, pool.tasks)
    assert file_digests(a) == file_digests(b) == file_digests(c)
    assert sorted(file_digests(a)) == sorted([f"{e}.jsonl" for e in counts] + ["manifest.json"])

    base = dict(suite=str(a), agent="random", attempts=2)
    r_local = run_suite(RunConfig(**base, out=str(tmp_path / "run-local")))
    r_ray = run_suite(RunConfig(**base, out=str(tmp_path / "run-ray"), executor="ray", jobs=2))
    assert strip_timing(RunDir(r_local.path).records()) == \
        strip_timing(RunDir(r_ray.path).records())
