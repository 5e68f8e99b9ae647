"""Imported suites pin their sources: each file's sha256 and each task's entry (file, position,
world digest), so a world swapped for an easier one (its certificate recomputed), two tasks
sharing a world, or a changed source file are caught by ``verify`` (with ``--sources``, against
the released files themselves)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena_gen.cli import main
from arena_gen.core.suite_io import read_suite, resolve_suite
from arena_gen.suite.importer import IMPORT_SUITE_VERSION, _world_digest, pin_problems


def _released_files(shared: Path) -> Path:
    return shared / "reference-data" / "odyssey-arena"


def test_shipped_odyssey_lite_pins_every_task() -> None:
    suite = read_suite(resolve_suite("odyssey-lite"))
    manifest = suite.manifest
    assert manifest["suite_version"] == IMPORT_SUITE_VERSION
    assert pin_problems(manifest, suite.tasks) == []
    trading = manifest["build"]["trading"]
    assert len(trading["sources"]) == 30 and all(len(s["sha256"]) == 64
                                                 for s in trading["sources"])
    assert trading["entries"]["trading-import-0-0001"][:2] == ["test_trade_config_2.json", 0]
    lights = manifest["build"]["lights"]
    assert [s["entries"] for s in lights["sources"]] == [30]
    assert sorted(pos for _, pos, _ in lights["entries"].values()) == list(range(30))


def _swap_world(folder: Path, env: str, victim: int, donor: int) -> str:
    """Give task ``victim`` the world (and certificate) of task ``donor``, hashes recomputed,
    as an attacker who rewrites the manifest's task hashes would."""
    from arena_gen.core.suite_io import write_suite

    suite = read_suite(folder)
    tasks = suite.tasks[env]
    tasks[victim].world = tasks[donor].world
    tasks[victim].certificate = tasks[donor].certificate
    tasks[victim].rules_text = tasks[donor].rules_text
    manifest = dict(suite.manifest)
    manifest["tasks"] = {t.id: t.sha256 for ts in suite.tasks.values() for t in ts}
    from arena_gen.core.suite_io import suite_hash

    manifest["suite_sha256"] = suite_hash(manifest["tasks"])
    tmp = folder.parent / (folder.name + "-forged")
    write_suite(tmp, manifest, suite.tasks)
    return str(tmp)


def test_a_swapped_world_breaks_its_pin(tmp_path: Path) -> None:
    copy = Path(shutil.copytree(resolve_suite("odyssey-lite"), tmp_path / "ody"))
    forged = read_suite(_swap_world(copy, "lights", 3, 0))
    problems = pin_problems(forged.manifest, forged.tasks)
    assert problems == ["lights-import-0-0003: its world is not the one pinned for "
                        "test_turnonlights_lite_251030.json entry 3"]


def test_pins_rewritten_to_match_are_caught_against_the_sources(shared_dir: Path,
                                                                tmp_path: Path) -> None:
    """An attacker who also rewrites the pin passes the self-check, not ``--sources``; and
    two tasks pinned to one entry are named."""
    from arena_gen.suite.importer import source_problems

    copy = Path(shutil.copytree(resolve_suite("odyssey-lite"), tmp_path / "ody"))
    forged_dir = Path(_swap_world(copy, "lights", 3, 0))
    manifest = json.loads((forged_dir / "manifest.json").read_text())
    entries = manifest["build"]["lights"]["entries"]
    entries["lights-import-0-0003"][2] = _world_digest(read_suite(forged_dir).tasks["lights"][0]
                                                       .world)
    suite = read_suite(forged_dir)
    assert pin_problems(manifest, suite.tasks) == []
    assert source_problems(manifest, suite.tasks, [_released_files(shared_dir)]) == [
        "lights-import-0-0003: its world is not test_turnonlights_lite_251030.json entry 3"]
    entries["lights-import-0-0003"][1] = 0  # now pinned to entry 0, like task 0000
    assert ("lights-import-0-0003: pinned to test_turnonlights_lite_251030.json entry 0, as "
            "lights-import-0-0000") in pin_problems(manifest, suite.tasks)


def test_a_changed_source_file_is_named(shared_dir: Path, tmp_path: Path) -> None:
    from arena_gen.suite.importer import source_problems

    data = Path(shutil.copytree(_released_files(shared_dir) / "trading", tmp_path / "trading"))
    path = data / "test_trade_config_5.json"
    path.write_text(path.read_text() + "\n")
    suite = read_suite(resolve_suite("odyssey-lite"))
    trading_only = {"trading": suite.tasks["trading"]}
    assert source_problems(suite.manifest, trading_only, [data]) == [
        f"trading: {path} is not the pinned test_trade_config_5.json (sha256 differs)"]


@pytest.mark.slow
def test_verify_sources_cli_on_the_shipped_suite(shared_dir: Path) -> None:
    result = CliRunner().invoke(main, ["verify", "odyssey-lite", "--sources",
                                       str(_released_files(shared_dir)), "--jobs", "2",
                                       "--display", "plain"])
    assert result.exit_code == 0 and "all certificates hold" in result.output, result.output


def _downgrade(folder: Path, **changes: object) -> Path:
    """The manifest of ``folder`` with ``changes`` written in (no other byte touched)."""
    path = folder / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest.update(changes)
    from arena_gen.core.suite_io import manifest_text

    path.write_text(manifest_text(manifest))
    return folder


def test_a_manifest_lowered_to_format_1_is_refused(tmp_path: Path) -> None:
    """The downgrade attack: format 1 pins nothing, so an odyssey-lite whose manifest says
    ``suite_version: 1`` would pass a swapped world; verify refuses it under the shipped name
    (even with ``--allow-unpinned``), and under any other name unless asked."""
    from arena_gen.suite.importer import format_problems

    copy = Path(shutil.copytree(resolve_suite("odyssey-lite"), tmp_path / "ody"))
    forged = read_suite(_downgrade(Path(_swap_world(copy, "lights", 3, 0)), suite_version=1))
    assert pin_problems(forged.manifest, forged.tasks) == []  # what let it through before
    refusal = format_problems(forged.manifest, allow_unpinned=True)
    assert refusal == ["manifest suite_version 1: this imported suite pins no source files "
                       "(format 2 does), so an edited world would pass; the shipped "
                       "'odyssey-lite' is at format 2, so these files are not it"]
    assert format_problems(forged.manifest) == refusal
    renamed = dict(forged.manifest, suite="my-import")
    assert format_problems(renamed) == [
        "manifest suite_version 1: this imported suite pins no source files (format 2 does), "
        "so an edited world would pass; re-import it with arena-gen import, or pass "
        "--allow-unpinned"]
    assert format_problems(renamed, allow_unpinned=True) == []
    assert format_problems(dict(forged.manifest, suite_version=3)) == [
        "manifest suite_version 3 is newer than this arena-gen's imported suite format 2: "
        "upgrade arena-gen to verify it"]
    assert format_problems(read_suite(resolve_suite("odyssey-lite")).manifest) == []
    assert format_problems(read_suite(resolve_suite("lite")).manifest) == []


def test_verify_cli_refuses_a_downgraded_import(tmp_path: Path) -> None:
    """End to end: ``arena-gen verify`` refuses a downgraded copy of odyssey-lite before
    re-proving any task, naming the manifest and why."""
    copy = _downgrade(Path(shutil.copytree(resolve_suite("odyssey-lite"), tmp_path / "ody")),
                      suite_version=1)
    result = CliRunner().invoke(main, ["verify", str(copy), "--jobs", "1", "--display", "plain",
                                       "--allow-unpinned"])
    assert result.exit_code != 0
    assert "manifest.json: manifest suite_version 1: this imported suite pins no source" \
        in result.output, result.output
