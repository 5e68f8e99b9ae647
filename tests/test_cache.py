"""The build cache: a resumed or repeated build gives a fresh build's bytes, and a damaged
entry is ignored with a warning, never trusted."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from arena_gen.core import registry
from arena_gen.core.canon import canonical_json
from arena_gen.core.suite_io import jsonl_text, manifest_text
from arena_gen.suite import cache as cache_mod
from arena_gen.suite.build import BuildResult, Generated, build_suite
from arena_gen.suite.cache import BuildCache, CacheWarning, default_cache_dir, entry_key
from arena_gen.suite.catalog import preset

ENVS = ["lights", "repo"]
COUNTS = {"lights": 6, "repo": 2}


def _bytes(result: BuildResult) -> dict[str, bytes]:
    out = {env: jsonl_text(tasks).encode() for env, tasks in result.tasks.items()}
    out["manifest.json"] = manifest_text(result.manifest).encode()
    return out


@pytest.fixture(scope="module")
def fresh() -> dict[str, bytes]:
    return _bytes(build_suite("lite", 7, ENVS, counts=COUNTS))


class Interrupt(Exception):
    pass


def _interrupted_build(cache_dir: Path, after: int) -> None:
    done = []

    def on_task(gen: Generated) -> None:
        done.append(gen)
        if len(done) == after:
            raise Interrupt

    with pytest.raises(Interrupt):
        build_suite("lite", 7, ENVS, counts=COUNTS, cache=cache_dir, on_task=on_task)


def _entries(cache_dir: Path) -> list[Path]:
    return sorted((cache_dir / "tasks").glob("*/*.json"))


def test_interrupted_build_resumes_from_the_cache(tmp_path: Path, fresh: dict[str, bytes]) -> None:
    _interrupted_build(tmp_path, after=4)
    assert len(_entries(tmp_path)) == 4
    resumed = build_suite("lite", 7, ENVS, counts=COUNTS, cache=tmp_path, jobs=2)
    assert _bytes(resumed) == fresh
    cached = [g.cached for env in ENVS for g in resumed.generated[env]]
    assert sum(cached) == 4 and len(cached) == 8
    assert len(_entries(tmp_path)) == 8
    again = build_suite("lite", 7, ENVS, counts=COUNTS, cache=tmp_path)
    assert all(g.cached for env in ENVS for g in again.generated[env])
    assert _bytes(again) == fresh


def _damage(path: Path, how: str) -> None:
    entry = json.loads(path.read_text())
    if how == "truncated":
        path.write_text(path.read_text()[:100])
        return
    if how == "flipped-witness":  # checksum left stale
        entry["body"]["task"]["certificate"]["witness"].reverse()
    elif how == "rehashed-wrong-witness":
        # a consistent forgery: checksum and task hash both recomputed over a broken plan
        from arena_gen.core.task import Task

        task = Task.from_dict(entry["body"]["task"])
        task.certificate.witness = task.certificate.witness[:-1]
        entry["body"]["task"] = task.to_dict()
        entry["checksum"] = cache_mod._checksum(entry["body"])
    elif how == "rehashed-stale-task-hash":
        entry["body"]["task"]["budget"] += 1
        entry["checksum"] = cache_mod._checksum(entry["body"])
    path.write_text(canonical_json(entry))


@pytest.mark.parametrize("how", ["truncated", "flipped-witness", "rehashed-wrong-witness",
                                 "rehashed-stale-task-hash"])
def test_a_damaged_entry_warns_and_is_rebuilt(tmp_path: Path, fresh: dict[str, bytes],
                                              how: str) -> None:
    build_suite("lite", 7, ["lights"], counts={"lights": 6}, cache=tmp_path)
    _damage(_entries(tmp_path)[2], how)
    with pytest.warns(CacheWarning, match=r"ignoring cache entry .*rebuilding that task"):
        result = build_suite("lite", 7, ENVS, counts=COUNTS, cache=tmp_path)
    assert _bytes(result) == fresh
    assert sum(not g.cached for g in result.generated["lights"]) == 1
    with warnings.catch_warnings():  # the entry was rewritten from the fresh task
        warnings.simplefilter("error")
        again = build_suite("lite", 7, ["lights"], counts={"lights": 6}, cache=tmp_path)
    assert all(g.cached for g in again.generated["lights"])


def test_the_key_names_versions_preset_and_seed_path() -> None:
    spec = registry.get("lights")
    config = preset("lite", "lights")
    key = entry_key(spec, "lite", 7, 3, config)
    assert key["seed_path"] == [7, 1, 1, 3]
    assert key["env"] == "lights" and key["env_version"] == spec.version
    assert key["verifier_version"] == 1
    assert key["arena_gen_version"]
    other = dict(config, n_min=config.get("n_min", 0) + 1)
    assert entry_key(spec, "lite", 7, 3, other)["preset_sha256"] != key["preset_sha256"]
    assert entry_key(spec, "lite", 7, 3, dict(config, count=999)) == key
    assert BuildCache("/c").path(key) != BuildCache("/c").path(entry_key(spec, "lite", 7, 4,
                                                                          config))


def test_a_different_verifier_version_misses(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    build_suite("lite", 7, ["lights"], counts={"lights": 2}, cache=tmp_path)
    monkeypatch.setattr("arena_gen.envs.lights.verify.VERIFIER_VERSION", 99)
    again = build_suite("lite", 7, ["lights"], counts={"lights": 2}, cache=tmp_path)
    assert not any(g.cached for g in again.generated["lights"])
    assert len(_entries(tmp_path)) == 4


def test_default_cache_dir_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert default_cache_dir() == tmp_path / "arena-gen"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/ignored")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert default_cache_dir() == tmp_path / ".cache" / "arena-gen"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert default_cache_dir() == tmp_path / ".cache" / "arena-gen"


def test_a_local_worker_stores_its_task_itself(tmp_path: Path) -> None:
    """A task that finishes while an interrupted build shuts its pool down is kept: the worker
    writes the cache entry, not the (interrupted) main loop."""
    from arena_gen.suite.build import Job, _job

    spec = registry.get("trading")
    config = preset("lite", "trading")
    key = entry_key(spec, "lite", 7, 0, config, cache_mod.code_fingerprint(spec))
    store = BuildCache(tmp_path / "cache")
    job = Job("trading", "lite", 7, 0, spec.version, key=key, cache_dir=str(store.root),
              worker_stores=True)
    gen = _job(job)
    assert gen.stored and store.has(key)
    cached, problem = store.lookup(key, gen.task.id)
    assert problem is None and cached is not None and cached.task.sha256 == gen.task.sha256
