"""Preset names: ``challenge`` builds the paper-scale Challenge at its pinned versions and
``challenge-moderate`` the first Challenge (issue 42: it stays buildable under its own name and
its released folder, ``suites/challenge-moderate``, keeps verifying)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena_gen.cli import main
from arena_gen.core.errors import ArenaGenError
from arena_gen.suite import catalog
from arena_gen.suite.build import build_suite

SUITES = Path(__file__).resolve().parents[1] / "suites"


@pytest.mark.parametrize("name", ["challenge", "challenge-moderate"])
def test_each_challenge_preset_is_its_released_folders_suite_and_versions(name: str) -> None:
    manifest = json.loads((SUITES / name / "manifest.json").read_text())
    assert catalog.resolve(name) == (manifest["suite"], manifest["env_versions"])
    assert manifest["suite"] == "challenge"


def test_the_challenge_pins_the_paper_scale_versions() -> None:
    assert catalog.PINNED == {"challenge": {"lights": 6, "trading": 6, "energy": 8, "repo": 6}}
    assert catalog.resolve("challenge", {"repo": 5}) == (
        "challenge", {"lights": 6, "trading": 6, "energy": 8, "repo": 5})


def test_asked_versions_override_an_alias_and_unknown_names_are_refused() -> None:
    suite, versions = catalog.resolve("challenge-moderate", {"lights": 5})
    assert (suite, versions["lights"], versions["repo"]) == ("challenge", 5, 5)
    with pytest.raises(ArenaGenError, match="challenge-moderate"):
        catalog.resolve("challenge-huge")


def test_a_suites_pin_chooses_its_version_and_leaves_other_suites(monkeypatch) -> None:
    monkeypatch.setitem(catalog.PINNED, "challenge", {"lights": 5})
    pinned = build_suite("challenge", 7, ["lights"], counts={"lights": 0})
    lite = build_suite("lite", 7, ["lights"], counts={"lights": 0})
    moderate = build_suite("challenge-moderate", 7, ["lights"], counts={"lights": 0})
    assert pinned.manifest["env_versions"] == {"lights": 5}
    assert lite.manifest["env_versions"] == {"lights": 4}
    assert moderate.manifest["env_versions"] == {"lights": 4}
    assert moderate.manifest["suite"] == "challenge"


def test_building_the_moderate_challenge_gives_the_released_bytes(tmp_path: Path) -> None:
    out = tmp_path / "moderate"
    result = CliRunner().invoke(main, ["build", "--suite", "challenge-moderate", "--seed", "7",
                                       "--env", "lights", "--out", str(out), "--no-cache",
                                       "--jobs", "1"])
    assert result.exit_code == 0, result.output
    assert (out / "lights.jsonl").read_bytes() == (SUITES / "challenge-moderate" / "lights.jsonl"
                                                   ).read_bytes()
