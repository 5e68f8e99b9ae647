"""``arena-gen verify`` of a stream folder: every line and the manifest must be what drawing the
stream again gives; a substituted, edited, reordered or relabelled folder is refused by name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena_gen.cli import main
from arena_gen.core.canon import canonical_json
from arena_gen.core.suite_io import read_suite, suite_hash
from arena_gen.train.stream_check import verify_stream


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three lights tasks of the lite stream of seed 7 from index 5."""
    out = tmp_path_factory.mktemp("stream") / "lights-lite-7"
    result = CliRunner().invoke(main, ["stream", "lights", "--level", "lite", "--seed", "7",
                                       "--start", "5", "--count", "3", "--out", str(out),
                                       "--jobs", "1", "--display", "none"])
    assert result.exit_code == 0, result.output
    return out


def rewrite(src: Path, dst: Path, edit_tasks=None, edit_manifest=None) -> Path:  # type: ignore[no-untyped-def]
    """A copy of a stream folder with its task lines and/or manifest edited, re-hashed so it
    reads as a valid suite (what a forger who knows the format would do)."""
    dst.mkdir()
    manifest = json.loads((src / "manifest.json").read_text())
    lines = [json.loads(x) for x in (src / "lights.jsonl").read_text().splitlines()]
    if edit_tasks is not None:
        lines = edit_tasks(lines)
    from arena_gen.core.task import Task

    tasks = [Task.from_dict(x, check_hash=False) for x in lines]
    hashes = {t.id: t.sha256 for t in tasks}
    manifest["tasks"] = dict(sorted(hashes.items()))
    manifest["suite_sha256"] = suite_hash(hashes)
    manifest["counts"] = {"lights": len(tasks)}
    if edit_manifest is not None:
        edit_manifest(manifest)
    (dst / "lights.jsonl").write_text("".join(canonical_json(t.to_dict()) + "\n" for t in tasks))
    (dst / "manifest.json").write_text(canonical_json(manifest) + "\n")
    read_suite(dst)  # the forgery passes every read check: only drawing again can tell
    return dst


def test_an_honest_stream_folder_verifies(folder: Path) -> None:
    report = verify_stream(str(folder))
    assert report.ok and report.checked == 3, report.problems
    result = CliRunner().invoke(main, ["verify", str(folder), "--display", "none"])
    assert result.exit_code == 0, result.output


def test_an_edited_world_is_named_by_line_and_path(folder: Path, tmp_path: Path) -> None:
    def easier(lines: list[dict]) -> list[dict]:  # type: ignore[type-arg]
        lines[1]["budget"] += 10
        return lines

    report = verify_stream(str(rewrite(folder, tmp_path / "f", easier)))
    assert not report.ok
    assert any("lights.jsonl line 2 (lights-stream_lite-7-0006)" in p and "$.budget" in p
               for p in report.problems), report.problems
    result = CliRunner().invoke(main, ["verify", str(tmp_path / "f"), "--display", "none"])
    assert result.exit_code != 0 and "FAIL stream" in result.output


def test_a_task_of_another_index_or_seed_is_refused(folder: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    result = CliRunner().invoke(main, ["stream", "lights", "--level", "lite", "--seed", "8",
                                       "--start", "5", "--count", "1", "--out", str(other),
                                       "--jobs", "1", "--display", "none"])
    assert result.exit_code == 0, result.output
    foreign = json.loads((other / "lights.jsonl").read_text())

    def swap(lines: list[dict]) -> list[dict]:  # type: ignore[type-arg]
        return [lines[0], foreign, lines[2]]

    report = verify_stream(str(rewrite(folder, tmp_path / "swapped", swap)))
    assert any("line 2" in p and "$.id" in p for p in report.problems), report.problems

    def reorder(lines: list[dict]) -> list[dict]:  # type: ignore[type-arg]
        return [lines[1], lines[0], lines[2]]

    report = verify_stream(str(rewrite(folder, tmp_path / "reordered", reorder)))
    assert sum("not the task index" in p for p in report.problems) == 2, report.problems


def test_a_manifest_claiming_another_level_or_fewer_rejections_is_refused(
        folder: Path, tmp_path: Path) -> None:
    def level(manifest: dict) -> None:  # type: ignore[type-arg]
        manifest["build"]["lights"]["stream"]["level"] = "challenge"

    report = verify_stream(str(rewrite(folder, tmp_path / "level", edit_manifest=level)))
    assert any("manifest suite 'stream_lite' is not the stream of level 'challenge'" in p
               for p in report.problems), report.problems

    def rejections(manifest: dict) -> None:  # type: ignore[type-arg]
        manifest["build"]["lights"]["attempts"] = 3

    report = verify_stream(str(rewrite(folder, tmp_path / "facts", edit_manifest=rejections)))
    assert report.problems == ["manifest build.lights.attempts is not what the draws give"]

    def dropped(lines: list[dict]) -> list[dict]:  # type: ignore[type-arg]
        return lines[:2]

    report = verify_stream(str(rewrite(folder, tmp_path / "short", dropped)))
    assert any("build.lights" in p for p in report.problems), report.problems


def test_stream_only_options_are_refused(folder: Path) -> None:
    result = CliRunner().invoke(main, ["verify", str(folder), "--allow-unpinned"])
    assert result.exit_code == 2 and "stream folder" in result.output
