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
