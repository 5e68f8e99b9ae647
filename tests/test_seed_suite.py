"""A suite is its seed's suite (#26): the attack shapes of issue 26's "Suites that verify but
are not the suite of their seed" list, each replayed as the forger would do it (every hash,
count and the suite hash recomputed, the files written in canonical form), must fail plain
``verify``, ``--rebuild``, the build cache or the signature; honest suites still pass."""

from __future__ import annotations

import json
import shutil
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from arena_gen.core import registry
from arena_gen.core.canon import canonical_json, sha256_of
from arena_gen.core.errors import SchemaError
from arena_gen.core.signing import check_signature, generate_key, sign_suite
from arena_gen.core.suite_io import (
    SIGNATURE,
    Suite,
    read_suite,
    read_task,
    suite_hash,
    write_suite,
)
from arena_gen.core.task import Task
from arena_gen.suite.attempts import try_attempt
from arena_gen.suite.build import build_suite, env_build_facts
from arena_gen.suite.cache import BuildCache, CacheWarning
from arena_gen.suite.catalog import preset
from arena_gen.suite.verify import TaskCheck, seed_problems, verify_suite
from tests.small_suites import preset_counts

#: The lights version the pinned attempt indices below come from (the Lite default until
#: 2026-12-02; it stays registered).
LIGHTS_V2 = {"lights": 2}

#: Lights lite seed 7 task 1 is accepted at attempt 1; attempt 7 of its stream is acceptable
#: too (the easier reroll a forger would pick).
REROLL = (1, 1, 7)


@pytest.fixture(scope="module")
def honest(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first 3 lights tasks of lite seed 7, as ``build`` writes them (lights v2, whose
    attempt indices the forgeries below were found on)."""
    built = build_suite("lite", 7, ["lights"], counts={"lights": 3}, versions=LIGHTS_V2)
    return write_suite(tmp_path_factory.mktemp("honest") / "suite", built.manifest,
                       built.tasks)


def _lines(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / "lights.jsonl").read_text().splitlines()]


def _refreeze(src: Path, dst: Path, edit: Callable[[list[dict[str, Any]]], None] | None = None,
              edit_manifest: Callable[[dict[str, Any]], None] | None = None) -> Path:
    """Copy a suite, edit its task list, then rehash lines, the task map, counts and suite hash
    and write every file canonically: everything a careful forger recomputes."""
    shutil.copytree(src, dst)
    tasks = _lines(src)
    if edit:
        edit(tasks)
    for task in tasks:
        task["sha256"] = sha256_of({k: v for k, v in task.items() if k != "sha256"})
    (dst / "lights.jsonl").write_text("".join(canonical_json(t) + "\n" for t in tasks))
    manifest = json.loads((src / "manifest.json").read_text())
    manifest["tasks"] = {t["id"]: t["sha256"] for t in sorted(tasks, key=lambda t: t["id"])}
    manifest["counts"] = {"lights": len(tasks)}
    manifest["suite_sha256"] = suite_hash(manifest["tasks"])
    if edit_manifest:
        edit_manifest(manifest)
    (dst / "manifest.json").write_text(canonical_json(manifest) + "\n")
    return dst


def _problems(folder: Path, count: int = 3, **kwargs: Any) -> list[str]:
    with preset_counts({"lights": count}):
        report = verify_suite(folder, **kwargs)
    return ([f"{c.task_id}: {c.problem}" for c in report.checks if not c.ok]
            + report.manifest_problems + report.rebuild_problems)


def test_the_honest_small_suite_verifies_and_rebuilds(honest: Path) -> None:
    assert _problems(honest, rebuild=True) == []


def _rerolled(index: int, attempt: int) -> dict[str, Any]:
    spec = registry.get("lights", 2)
    tried = try_attempt(spec, "lite", 7, index, attempt, preset("lite", "lights", 2))
    assert tried.task is not None  # the reroll is itself acceptable: only its index betrays it
    return tried.task.to_dict()


def test_a_task_swapped_for_a_later_acceptable_attempt_fails_plain_verify(
        honest: Path, tmp_path: Path) -> None:
    index, accepted, reroll = REROLL
    assert _lines(honest)[index]["seed_path"][4] == accepted

    def swap(tasks: list[dict[str, Any]]) -> None:
        tasks[index] = _rerolled(index, reroll)

    def stats(manifest: dict[str, Any]) -> None:  # the forger fixes the build facts too
        manifest["build"]["lights"]["attempts"] += reroll - accepted
        manifest["build"]["lights"]["rejections"]["min_steps"] = (
            manifest["build"]["lights"]["rejections"].get("min_steps", 0) + reroll - accepted)

    bad = _refreeze(honest, tmp_path / "bad", swap, stats)
    problems = _problems(bad)
    assert problems[0] == (f"lights-lite-7-000{index}: seed_path attempt {reroll}: attempt "
                           f"{accepted} of this task's stream is acceptable, so the suite of "
                           f"seed 7 holds attempt {accepted} there, not {reroll}"), problems


def test_an_id_whose_seed_part_is_not_the_seed_fails(honest: Path, tmp_path: Path) -> None:
    def rename(tasks: list[dict[str, Any]]) -> None:
        tasks[0]["id"] = "lights-lite-99-0000"

    problems = _problems(_refreeze(honest, tmp_path / "bad", rename))
    assert ("lights-lite-99-0000: id lights-lite-99-0000 is not the id its seed path "
            "[7, 1, 1, 0, 0] gives (lights-lite-7-0000)") in problems, problems


def test_a_duplicated_task_under_another_id_fails(honest: Path, tmp_path: Path) -> None:
    def duplicate(tasks: list[dict[str, Any]]) -> None:
        tasks[1] = dict(tasks[0], id="lights-lite-7-0001")

    problems = _problems(_refreeze(honest, tmp_path / "bad", duplicate))
    assert any(p.startswith("lights-lite-7-0001: seed_path [7, 1, 1, 0, 0] does not name")
               for p in problems), problems


def test_two_tasks_sharing_a_world_in_an_unpinned_suite_are_refused(honest: Path) -> None:
    """An imported suite of format 1 pins no source entry, so nothing gives two tasks one
    world (odyssey-lite's shape before its pins); a preset task's world is pinned by its seed
    path, a format-2 imported task's by its entry."""
    suite = read_suite(honest)
    twin = Task.from_dict(dict(suite.tasks["lights"][1].to_dict(),
                               world=suite.tasks["lights"][0].world), check_hash=False)
    forged = Suite(path=suite.path, manifest=dict(suite.manifest, suite="odyssey-lite",
                                                  suite_version=1),
                   tasks={"lights": [suite.tasks["lights"][0], twin]})
    with preset_counts({"lights": 3}):
        problems = seed_problems(forged, [])
        # the same pair in a preset suite: each world is what its own seed path gives
        assert seed_problems(dict_suite(forged, suite="lite", suite_version=1), []) == []
    assert problems == [
        "task lights-lite-7-0001 has the same world as lights-lite-7-0000"]


def test_dropped_hard_tasks_with_counts_recomputed_fail_plain_and_rebuild(
        honest: Path, tmp_path: Path) -> None:
    def drop_last(tasks: list[dict[str, Any]]) -> None:
        del tasks[2]

    def drop_middle(tasks: list[dict[str, Any]]) -> None:
        del tasks[1]

    lite = _refreeze(honest, tmp_path / "lite", drop_last,
                     lambda m: m["build"].update(lights=env_build_facts(
                         [(t, {}) for t in read_suite(honest).tasks["lights"][:2]])))
    assert "manifest counts.lights is 2, the lite preset's is 3" in _problems(lite)
    # the shape: this "lite" rebuilt byte-identical, its counts read from its manifest
    problems = _problems(lite, rebuild=True)
    assert "lights.jsonl differs from a rebuild" in problems, problems
    gap = _refreeze(honest, tmp_path / "gap", drop_middle)
    assert ("lights.jsonl: line 2 holds task lights-lite-7-0002 (index 2); lines are in index "
            "order from 0") in _problems(gap)


def test_reordered_lines_fail_plain_verify(honest: Path, tmp_path: Path) -> None:
    bad = _refreeze(honest, tmp_path / "bad", lambda tasks: tasks.reverse())
    assert ("lights.jsonl: line 1 holds task lights-lite-7-0002 (index 2); lines are in index "
            "order from 0") in _problems(bad)


def test_a_manifest_naming_another_suite_fails(honest: Path, tmp_path: Path) -> None:
    bad = _refreeze(honest, tmp_path / "bad", None, lambda m: m.update(suite="challenge"))
    problems = _problems(bad)
    assert "lights-lite-7-0000: suite 'lite' task in a suite whose manifest says 'challenge'" \
        in problems, problems


@pytest.mark.parametrize("edit, message", [
    (lambda m: m["build"]["lights"].update(attempts=3), "manifest build.lights differs"),
    (lambda m: m["build"]["lights"].update(rejections={}), "manifest build.lights differs"),
    (lambda m: m.update(suite_version=7), "manifest suite_version 7 is not the lite preset's 1"),
    (lambda m: m["env_versions"].update(lights=1),
     "env_version 2 differs from the manifest's env_versions.lights (1)"),
])
def test_fake_build_stats_and_version_strings_fail(honest: Path, tmp_path: Path, edit: Any,
                                                   message: str) -> None:
    problems = _problems(_refreeze(honest, tmp_path / "bad", None, edit))
    assert any(message in p for p in problems), problems


def dict_suite(base: Suite, **manifest: Any) -> Suite:
    """The same tasks under a manifest with ``manifest``'s fields replaced."""
    return Suite(path=base.path, manifest=dict(base.manifest, **manifest), tasks=base.tasks)


def _raw_lines(folder: Path) -> list[bytes]:
    return (folder / "lights.jsonl").read_bytes().splitlines(keepends=True)


def test_a_duplicate_key_in_a_task_line_is_refused_naming_file_task_and_path(
        honest: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad"
    shutil.copytree(honest, bad)
    lines = _raw_lines(bad)
    lines[1] = b'{"budget":999999,' + lines[1][1:]  # a reader taking the first value plays on
    (bad / "lights.jsonl").write_bytes(b"".join(lines))
    for read in (lambda: read_suite(bad), lambda: read_task(bad, "lights-lite-7-0001")):
        with pytest.raises(SchemaError) as err:
            read()
        assert err.value.json_path == "$.budget" and err.value.line == 2
        assert err.value.task_id == "lights-lite-7-0001"
        assert str(err.value).startswith(f"{bad / 'lights.jsonl'}:2")
        assert "duplicate key 'budget'" in str(err.value)


def test_a_nested_duplicate_key_in_the_manifest_is_refused(honest: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad"
    shutil.copytree(honest, bad)
    text = (bad / "manifest.json").read_bytes()
    (bad / "manifest.json").write_bytes(text.replace(b'"counts":{', b'"counts":{"lights":9,'))
    with pytest.raises(SchemaError) as err:
        read_suite(bad)
    assert err.value.json_path == "$.counts.lights" and "manifest.json" in str(err.value)


@pytest.mark.parametrize("how", ["spaces", "crlf", "blank line", "no final newline",
                                 "escaped unicode"])
def test_non_canonical_bytes_are_refused(honest: Path, tmp_path: Path, how: str) -> None:
    bad = tmp_path / "bad"
    shutil.copytree(honest, bad)
    lines = _raw_lines(bad)
    if how == "spaces":
        lines[0] = (json.dumps(json.loads(lines[0]), sort_keys=True) + "\n").encode()
    elif how == "crlf":
        lines[0] = lines[0][:-1] + b"\r\n"
    elif how == "blank line":
        lines.insert(1, b"\n")
    elif how == "no final newline":
        lines[-1] = lines[-1][:-1]
    else:
        lines[0] = lines[0].replace(b'"id":"lights', b'"id":"\\u006cights')
    (bad / "lights.jsonl").write_bytes(b"".join(lines))
    message = "invalid JSON" if how == "blank line" else "not in canonical form"
    with pytest.raises(SchemaError, match=message) as err:  # a blank line was skipped before
        read_suite(bad)
    assert "lights.jsonl" in str(err.value) and err.value.json_path == "$"


def test_a_forged_cache_entry_for_a_rerolled_attempt_never_reaches_the_suite(
        tmp_path: Path) -> None:
    index, accepted, reroll = REROLL
    counts = {"lights": index + 1}
    cold = build_suite("lite", 7, ["lights"], counts=counts, cache=tmp_path,
                            versions=LIGHTS_V2)
    entry_path = next(p for p in (tmp_path / "tasks" / "lights").glob("*.json")
                      if json.loads(p.read_text())["body"]["task"]["id"]
                      == f"lights-lite-7-000{index}")
    entry = json.loads(entry_path.read_text())
    body = entry["body"]
    body["task"] = _rerolled(index, reroll)  # consistent: attempts, rejections and checksum
    body["attempts"] = reroll + 1
    body["rejections"] = {"min_steps": reroll}
    entry["checksum"] = sha256_of(body)
    entry_path.write_text(canonical_json(entry) + "\n")
    with pytest.warns(CacheWarning, match=f"attempt {accepted} of this task's stream is "
                                          f"acceptable"):
        again = build_suite("lite", 7, ["lights"], counts=counts, cache=tmp_path,
                            versions=LIGHTS_V2)
    assert again.tasks["lights"][index].seed_path[4] == accepted
    assert again.manifest == cold.manifest and not again.generated["lights"][index].cached
    with warnings.catch_warnings():  # the honest entry was written back and is used
        warnings.simplefilter("error")
        third = build_suite("lite", 7, ["lights"], counts=counts, cache=tmp_path,
                            versions=LIGHTS_V2)
    assert third.generated["lights"][index].cached and third.manifest == cold.manifest


def test_an_honest_cache_entry_is_still_used(tmp_path: Path) -> None:
    build_suite("lite", 7, ["lights"], counts={"lights": 3}, cache=tmp_path,
                            versions=LIGHTS_V2)
    entry = BuildCache(tmp_path)
    assert len(list((entry.root / "tasks" / "lights").glob("*.json"))) == 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again = build_suite("lite", 7, ["lights"], counts={"lights": 3}, cache=tmp_path,
                            versions=LIGHTS_V2)
    assert all(g.cached for g in again.generated["lights"])


# ------------------------------------------------------------------------- signatures


@pytest.fixture
def signed(honest: Path, tmp_path: Path) -> tuple[Path, Path]:
    folder = tmp_path / "signed"
    shutil.copytree(honest, folder)
    generate_key(tmp_path / "k")
    sign_suite(folder, tmp_path / "k")
    return folder, tmp_path / "k.pub"


@pytest.mark.parametrize("how", ["reordered", "re-serialised", "duplicate key"])
def test_the_signature_covers_the_bytes_of_every_file(signed: tuple[Path, Path],
                                                      how: str) -> None:
    folder, pub = signed
    assert check_signature(folder, pub) is None
    lines = _raw_lines(folder)
    if how == "reordered":
        lines.reverse()
    elif how == "re-serialised":
        lines[0] = (json.dumps(json.loads(lines[0]), sort_keys=True) + "\n").encode()
    else:
        lines[0] = b'{"budget":999999,' + lines[0][1:]
    (folder / "lights.jsonl").write_bytes(b"".join(lines))
    problem = check_signature(folder, pub) or ""
    assert problem.startswith(f"{folder / SIGNATURE}, at $.files.lights.jsonl: "
                              f"{folder / 'lights.jsonl'} has sha256"), problem
    assert problem.endswith("(its bytes changed after signing)")


def test_a_version_1_signature_is_refused_with_a_clear_message(
        signed: tuple[Path, Path]) -> None:
    folder, pub = signed
    doc = json.loads((folder / SIGNATURE).read_text())
    old = {"schema_version": 1, "algorithm": "ed25519", "file": "manifest.json",
           "sha256": "0" * 64, "key_id": doc["key_id"], "public_key": doc["public_key"],
           "signature": doc["signature"]}
    (folder / SIGNATURE).write_text(canonical_json(old) + "\n")
    problem = check_signature(folder, pub) or ""
    assert problem == (f"{folder / SIGNATURE}, at $.schema_version: a version-1 signature, "
                       f"which covers manifest.json only; this arena-gen checks version-2 "
                       f"signatures, which cover every file of the suite: re-sign it "
                       f"(arena-gen sign SUITE --key KEY)")


def test_a_signature_covers_exactly_the_suite_files(signed: tuple[Path, Path]) -> None:
    folder, pub = signed
    doc = json.loads((folder / SIGNATURE).read_text())
    del doc["files"]["lights.jsonl"]
    (folder / SIGNATURE).write_text(canonical_json(doc) + "\n")
    problem = check_signature(folder, pub) or ""
    assert problem == (f"{folder / SIGNATURE}, at $.files: does not cover "
                       f"{folder / 'lights.jsonl'} (a file was added to the suite after "
                       f"signing)")


# ------------------------------------------------------------------------- temp names


def test_build_and_import_never_delete_a_users_hidden_folders(honest: Path,
                                                              tmp_path: Path) -> None:
    suite = read_suite(honest)
    out = tmp_path / "out"
    mine = [tmp_path / ".out.old-backup", tmp_path / ".out.tmp-notes",
            tmp_path / ".out.arena-gen-notes"]
    for folder in mine:
        folder.mkdir()
        (folder / "notes.txt").write_text("precious")
    write_suite(out, suite.manifest, suite.tasks)
    write_suite(out, suite.manifest, suite.tasks, force=True)  # a replace moves the old aside
    for folder in mine:
        assert (folder / "notes.txt").read_text() == "precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["out"] + [p.name for p in mine])
    assert read_suite(out).manifest == suite.manifest


def test_sign_uses_a_random_temp_name_and_leaves_others_alone(
        signed: tuple[Path, Path], tmp_path: Path) -> None:
    folder, _ = signed
    theirs = folder / ".manifest.json.sig.tmp-1"
    theirs.write_text("not ours")
    sign_suite(folder, tmp_path / "k")
    assert theirs.read_text() == "not ours"
    assert sorted(p.name for p in folder.iterdir()) == [
        ".manifest.json.sig.tmp-1", "lights.jsonl", "manifest.json", SIGNATURE]


def test_check_task_reports_rejections_of_earlier_attempts(honest: Path) -> None:
    with preset_counts({"lights": 3}):
        report = verify_suite(honest)
    by_id: dict[str, TaskCheck] = {c.task_id: c for c in report.checks}
    assert by_id["lights-lite-7-0000"].rejections == {}
    assert sum((by_id["lights-lite-7-0001"].rejections or {}).values()) == 1
    assert report.manifest_problems == []
