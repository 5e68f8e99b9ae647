"""The build cache: a resumed or repeated build gives a fresh build's bytes, and a damaged
entry is ignored with a warning, never trusted."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

import arena_gen
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


# --- the code fingerprint covers every module a build can execute ----------------------------

def _package_copy(dest: Path) -> Path:
    """A byte-identical copy of the installed package's ``.py`` files (the installed files are
    never edited), with an unrelated file and a stale bytecode folder thrown in."""
    root, installed = dest / "arena_gen", Path(arena_gen.__file__).resolve().parent
    for file in installed.rglob("*.py"):
        if "__pycache__" in file.parts:
            continue
        target = root / file.relative_to(installed)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(file.read_bytes())
    (root / "NOTES.txt").write_text("not code\n")
    (root / "envs" / "__pycache__").mkdir(exist_ok=True)
    (root / "envs" / "__pycache__" / "stale.cpython-312.pyc").write_bytes(b"\0junk")
    return root


@pytest.fixture(scope="module")
def copies(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = {}
    for name in ("same", "repo_game_v2", "lights_formula"):
        out[name] = _package_copy(tmp_path_factory.mktemp(name))
    with open(out["repo_game_v2"] / "envs" / "repo" / "game_v2.py", "a") as fh:
        fh.write("UNUSED = 1\n")
    with open(out["lights_formula"] / "envs" / "lights" / "formula.py", "a") as fh:
        fh.write("# a comment is code too: nobody reviewed whether it matters\n")
    return out


@pytest.mark.parametrize("env", ["lights", "repo"])
def test_an_edit_to_any_module_changes_the_fingerprint(copies: dict[str, Path],
                                                       env: str) -> None:
    spec = registry.get(env)
    installed = cache_mod.code_fingerprint(spec)
    assert cache_mod.code_fingerprint(spec, [copies["same"]]) == installed
    # neither file is named by the lights spec, and formula.py by no spec at all
    assert cache_mod.code_fingerprint(spec, [copies["repo_game_v2"]]) != installed
    assert cache_mod.code_fingerprint(spec, [copies["lights_formula"]]) != installed
    assert (cache_mod.code_fingerprint(spec, [copies["repo_game_v2"]])
            != cache_mod.code_fingerprint(spec, [copies["lights_formula"]]))


def test_the_builtin_envs_hash_the_installed_package() -> None:
    builtin = [registry.get(env, v) for env in ("lights", "trading", "energy", "repo")
               for v in registry.versions(env)]
    assert len(builtin) >= 9
    for spec in builtin:
        assert cache_mod.source_roots(spec) == [cache_mod.PACKAGE_ROOT]
    assert (cache_mod.PACKAGE_ROOT / "envs" / "lights" / "formula.py").is_file()
    one = {cache_mod.code_fingerprint(spec) for spec in builtin}
    assert len(one) == 1 and len(next(iter(one))) == 64


LIGHTS_BUILD = """
import arena_gen
from arena_gen.suite.build import build_suite
result = build_suite("lite", 7, ["lights"], counts={{"lights": 2}}, cache={cache!r})
print(arena_gen.__file__, result.manifest["suite_sha256"],
      sum(g.cached for g in result.generated["lights"]))
"""


def test_an_edited_helper_misses_end_to_end(tmp_path: Path) -> None:
    """``arena-gen build`` run twice from a copy of the package, with ``formula.py`` (which no
    spec names) edited in between: the second run rebuilds both tasks, to the same bytes."""
    import os
    import subprocess
    import sys

    copy = _package_copy(tmp_path / "site")
    script = LIGHTS_BUILD.format(cache=str(tmp_path / "cache"))

    def build() -> tuple[str, int]:
        run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                             check=True, cwd=tmp_path,
                             env=dict(os.environ, PYTHONPATH=str(copy.parent)))
        where, suite_sha, cached = run.stdout.split()
        assert Path(where).resolve().parent == copy.resolve()  # the copy ran, not the install
        return suite_sha, int(cached)

    cold, cached = build()
    assert cached == 0 and len(_entries(tmp_path / "cache")) == 2
    assert build() == (cold, 2)
    with open(copy / "envs" / "lights" / "formula.py", "a") as fh:
        fh.write("# edited\n")
    assert build() == (cold, 0)  # both rebuilt, to the same bytes
    assert len(_entries(tmp_path / "cache")) == 4
    assert build() == (cold, 2)


PLUGIN_BUILD = """
import sys
sys.path[:0] = [{plugin!r}, {tests!r}]
import dataclasses
import toy_env
from arena_gen.core import registry
from arena_gen.suite.build import build_suite
registry.register(dataclasses.replace(toy_env.spec(1),
                                      sampler=registry.Lazy("cacheplug", "env:sample")))
result = build_suite("lite", 7, ["counter"], counts={{"counter": 2}}, cache={cache!r})
print(sum(g.cached for g in result.generated["counter"]))
"""


def test_a_plugin_helper_edit_misses_in_the_next_process(tmp_path: Path) -> None:
    """An env from a package outside arena_gen: its helper module, which no spec names, is
    edited between two builds (two processes, as two ``arena-gen build`` runs would be)."""
    import subprocess
    import sys

    plugin = tmp_path / "plugin"
    (plugin / "cacheplug").mkdir(parents=True)
    (plugin / "cacheplug" / "__init__.py").write_text("")
    (plugin / "cacheplug" / "helper.py").write_text("SCALE = 1\n")
    (plugin / "cacheplug" / "env.py").write_text(
        "import toy_env\nfrom cacheplug.helper import SCALE\n\n\n"
        "def sample(config, seed):\n    return toy_env.sample(dict(config, scale=SCALE), seed)\n")
    script = PLUGIN_BUILD.format(plugin=str(plugin), tests=str(Path(__file__).parent),
                                 cache=str(tmp_path / "cache"))

    def cached_count() -> int:
        run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                             check=True)
        return int(run.stdout.split()[-1])

    assert cached_count() == 0
    assert cached_count() == 2
    with open(plugin / "cacheplug" / "helper.py", "a") as fh:
        fh.write("# edited\n")
    assert cached_count() == 0
    assert len(_entries(tmp_path / "cache")) == 4


def test_plugin_roots_come_from_the_parts_modules(monkeypatch: pytest.MonkeyPatch) -> None:
    import dataclasses

    import toy_env

    spec = toy_env.spec(1)
    roots = cache_mod.source_roots(spec)
    assert roots == [cache_mod.PACKAGE_ROOT, Path(toy_env.__file__).resolve()]
    named = dataclasses.replace(spec, baselines={"a": registry.Lazy("nowhere_pkg", "mod:x")})
    assert cache_mod.source_roots(named) == roots  # a path naming no module: nothing to hash

    class Lost:
        __module__ = "lost_pkg_not_on_disk.sub"

    lost = dataclasses.replace(spec, planner=Lost)
    with pytest.raises(LookupError, match="lost_pkg_not_on_disk"):
        cache_mod.source_roots(lost)
    with pytest.warns(CacheWarning, match="cached for this process only"):
        assert cache_mod.code_fingerprint(lost).startswith("unlocated-")
