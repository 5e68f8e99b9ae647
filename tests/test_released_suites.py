"""The released suites: present, shipped, and any flipped byte is caught and named."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena_gen.cli import main
from arena_gen.core import registry
from arena_gen.core.suite_io import read_suite, resolve_suite
from arena_gen.suite import catalog

EXPECTED = {"lite": 30, "challenge": 10, "challenge-moderate": 10}
#: The envs and versions the released suites were built with: fixed by the release, not by
#: what is registered (registering a new env or version must not force a re-release).
RELEASED = {"lights": 4, "trading": 5, "energy": 5, "repo": 5}
#: The paper-scale Challenge (issue 42) pins preview versions of its own.
PAPER_SCALE = {"lights": 6, "trading": 6, "energy": 8, "repo": 6}
VERSIONS = {"lite": RELEASED, "challenge": PAPER_SCALE, "challenge-moderate": RELEASED}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_released_suite_is_complete(name: str) -> None:
    suite = read_suite(name)  # resolves the released name; checks schemas and every hash
    built, versions = catalog.resolve(name)  # the moderate Challenge's manifest says challenge
    assert suite.manifest["suite"] == built and suite.manifest["seed"] == 7
    assert suite.manifest["counts"] == {env: EXPECTED[name] for env in RELEASED}
    assert suite.manifest["env_versions"] == VERSIONS[name]
    # ... and a build of the preset today holds exactly those envs at those versions
    assert {env: versions.get(env, registry.get(env).version)
            for env in registry.suite_envs(built)} == VERSIONS[name]


def test_lite_and_run_prompts_keep_the_default_versions() -> None:
    """The paper-scale versions stay previews: a build naming no version (Lite) and the grammar
    ``run``'s prompts state use the default ones."""
    assert catalog.resolve("lite") == ("lite", {})
    for env, version in RELEASED.items():
        assert registry.get(env).version == version
        assert registry.get(env, PAPER_SCALE[env]).preview
        assert not registry.released_with(env, "grammar").preview


def flip_byte(path: Path, needle: bytes) -> None:
    raw = bytearray(path.read_bytes())
    pos = raw.index(needle) + len(needle)
    raw[pos] = ord("1") if raw[pos] != ord("1") else ord("2")
    path.write_bytes(bytes(raw))


@pytest.fixture
def lite_copy(tmp_path: Path) -> Path:
    return Path(shutil.copytree(resolve_suite("lite"), tmp_path / "lite"))


@pytest.mark.parametrize("env", ["lights", "trading", "energy", "repo"])
def test_flipped_byte_in_a_task_is_named(lite_copy: Path, env: str) -> None:
    path = lite_copy / f"{env}.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    task_id = json.loads(lines[5])["id"]
    needle = b'"budget":'
    raw = bytearray(lines[5])
    pos = raw.index(needle) + len(needle)
    raw[pos] = ord("1") if raw[pos] != ord("1") else ord("2")
    lines[5] = bytes(raw)
    path.write_bytes(b"".join(lines))
    result = CliRunner().invoke(main, ["verify", str(lite_copy), "--display", "plain"])
    assert result.exit_code == 1
    assert task_id in result.output and "sha256" in result.output


def test_flipped_byte_in_the_manifest_is_named(lite_copy: Path) -> None:
    manifest = json.loads((lite_copy / "manifest.json").read_text())
    task_id = sorted(manifest["tasks"])[3]
    flip_byte(lite_copy / "manifest.json", f'"{task_id}":"'.encode())
    result = CliRunner().invoke(main, ["verify", str(lite_copy), "--display", "plain"])
    assert result.exit_code == 1 and task_id in result.output


@pytest.mark.parametrize("name", [
    "lite", pytest.param("challenge", marks=pytest.mark.slow),
    pytest.param("challenge-moderate", marks=pytest.mark.slow)])
def test_oracle_scores_100_on_every_released_task(name: str, tmp_path: Path) -> None:
    from arena_gen.runner.run import RunConfig, run_suite
    from arena_gen.scoring.score import score_run

    rundir = run_suite(RunConfig(suite=name, agent="oracle", out=str(tmp_path / "run")))
    records = rundir.records()
    assert len(records) == EXPECTED[name] * len(RELEASED)
    assert all(r["success"] for r in records)
    summary = score_run(rundir.path)
    assert summary["overall"]["success_rate"] == 100.0
    assert all(m["avg_at_k"] == 100.0 for m in summary["envs"].values())


def test_odyssey_lite_holds_the_120_released_tasks() -> None:
    suite = read_suite("odyssey-lite")
    manifest = suite.manifest
    assert manifest["suite"] == "odyssey-lite"
    assert manifest["counts"] == {"lights": 30, "trading": 30, "energy": 30, "repo": 30}
    assert manifest["env_versions"] == {"lights": 1, "trading": 1, "energy": 1, "repo": 2}
    lights = [t.certificate.min_steps for t in suite.tasks["lights"]]
    assert min(lights) == 7 and max(lights) == 16  # exact minima of the released lights tasks
    repo = [t.certificate.min_steps for t in suite.tasks["repo"]]
    assert min(repo) == 4 and max(repo) == 10 and all(t.certificate.facts.get("exact", True)
                                                      for t in suite.tasks["repo"])


@pytest.mark.slow
def test_odyssey_lite_verifies_and_the_oracle_scores_100(tmp_path: Path) -> None:
    from arena_gen.runner.run import RunConfig, run_suite
    from arena_gen.scoring.score import score_run

    result = CliRunner().invoke(main, ["verify", "odyssey-lite", "--jobs", "2",
                                       "--display", "plain"])
    assert result.exit_code == 0 and "all certificates hold" in result.output, result.output
    rundir = run_suite(RunConfig(suite="odyssey-lite", agent="oracle", jobs=2,
                                 out=str(tmp_path / "run")))
    summary = score_run(rundir.path)
    assert len(rundir.records()) == 120 and summary["overall"]["success_rate"] == 100.0
    assert summary["envs"]["trading"]["avg_at_k_profit"] == pytest.approx(211.0, abs=0.5)
