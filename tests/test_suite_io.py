"""Suite I/O: atomic writes, hash checks on read, byte-identical rebuilds."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import arena_gen.core.suite_io as suite_io
from arena_gen.core.errors import ArenaGenError, HashMismatchError, SchemaError
from arena_gen.core.suite_io import file_digests, read_suite, write_suite
from arena_gen.suite.build import build_suite


@pytest.fixture(scope="module")
def small_build():
    return build_suite("lite", 7, ["lights"], counts={"lights": 4})


def write(tmp_path: Path, build) -> Path:
    return write_suite(tmp_path / "suite", build.manifest, build.tasks, force=True)


def test_write_then_read_round_trips(tmp_path: Path, small_build) -> None:
    out = write(tmp_path, small_build)
    suite = read_suite(out)
    assert [t.id for t in suite.all_tasks()] == [f"lights-lite-7-000{i}" for i in range(4)]
    assert suite.manifest == json.loads((out / "manifest.json").read_text())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["suite"]  # no temp folders left


def test_same_build_twice_and_jobs_give_identical_bytes(tmp_path: Path, small_build) -> None:
    a = write_suite(tmp_path / "a", small_build.manifest, small_build.tasks)
    again = build_suite("lite", 7, ["lights"], counts={"lights": 4}, jobs=2)
    b = write_suite(tmp_path / "b", again.manifest, again.tasks)
    assert file_digests(a) == file_digests(b)


def test_interrupted_write_leaves_no_half_suite(tmp_path: Path, small_build, monkeypatch) -> None:
    calls = {"n": 0}
    real = suite_io._write_text

    def failing(path: Path, text: str) -> None:
        calls["n"] += 1
        if path.name == "manifest.json":
            raise KeyboardInterrupt("killed mid-write")
        real(path, text)

    monkeypatch.setattr(suite_io, "_write_text", failing)
    with pytest.raises(KeyboardInterrupt):
        write(tmp_path, small_build)
    assert calls["n"] == 2
    assert list(tmp_path.iterdir()) == []  # neither the suite nor a temp folder


def test_failed_rewrite_keeps_the_old_suite(tmp_path: Path, small_build, monkeypatch) -> None:
    out = write(tmp_path, small_build)
    before = file_digests(out)

    def failing(path: Path, text: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(suite_io, "_write_text", failing)
    with pytest.raises(OSError):
        write(tmp_path, small_build)
    assert file_digests(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["suite"]


def flip_task(out: Path, line: int, mutate) -> str:
    path = out / "lights.jsonl"
    lines = path.read_text().splitlines()
    data = json.loads(lines[line])
    mutate(data)
    lines[line] = json.dumps(data, sort_keys=True, separators=(",", ":"))
    path.write_text("\n".join(lines) + "\n")
    return data["id"]


def test_tampered_task_is_named(tmp_path: Path, small_build) -> None:
    out = write(tmp_path, small_build)
    task_id = flip_task(out, 2, lambda d: d["certificate"].__setitem__("min_steps", 99))
    with pytest.raises(HashMismatchError, match=task_id):
        read_suite(out)


def test_rehashed_tamper_is_caught_by_the_manifest(tmp_path: Path, small_build) -> None:
    out = write(tmp_path, small_build)
    from arena_gen.core.task import Task

    def mutate(d: dict) -> None:
        d["budget"] = 150
        d["sha256"] = Task.from_dict(d, check_hash=False).sha256

    task_id = flip_task(out, 1, mutate)
    with pytest.raises(HashMismatchError, match=task_id):
        read_suite(out)


def test_one_flipped_byte_in_the_manifest_fails(tmp_path: Path, small_build) -> None:
    out = write(tmp_path, small_build)
    path = out / "manifest.json"
    raw = bytearray(path.read_bytes())
    pos = raw.index(b'"suite_sha256":"') + len(b'"suite_sha256":"')
    raw[pos] = ord("0") if raw[pos] != ord("0") else ord("1")
    path.write_bytes(bytes(raw))
    with pytest.raises(HashMismatchError, match="suite_sha256"):
        read_suite(out)


@pytest.mark.parametrize("name", ["li" + "9" * 2000 + "ghts", "a" * 65])
def test_an_env_name_too_long_for_a_file_name_is_a_schema_error(tmp_path: Path, small_build,
                                                                name: str) -> None:
    """Found by bench_fuzz (suite manifest, seed 0, case 6327): a counts key of 2000 legal
    characters made ``read_suite`` stat ``<key>.jsonl`` and die with ENAMETOOLONG."""
    out = write(tmp_path, small_build)
    path = out / "manifest.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    manifest["counts"][name] = manifest["counts"].pop("lights")
    path.write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(SchemaError) as err:
        read_suite(out)
    assert "manifest.json" in str(err.value) and err.value.json_path.startswith("$.counts")
    with pytest.raises(ArenaGenError, match="at most 64"):
        suite_io._env_file(out, name)


def test_schema_error_in_suite_names_file_and_task(tmp_path: Path, small_build) -> None:
    out = write(tmp_path, small_build)
    task_id = flip_task(out, 0, lambda d: d.__setitem__("env_version", "one"))
    with pytest.raises(SchemaError) as err:
        read_suite(out)
    assert task_id in str(err.value) and "lights.jsonl:1" in str(err.value)
    assert err.value.json_path == "$.env_version"


def test_files_are_canonical_and_fsynced_text(tmp_path: Path, small_build) -> None:
    out = write(tmp_path, small_build)
    for name in os.listdir(out):
        text = (out / name).read_text(encoding="utf-8")
        assert text.endswith("\n") and "\r" not in text


def test_read_task_reads_one_line_and_checks_it(tmp_path: Path, small_build) -> None:
    from arena_gen.core.errors import ArenaGenError
    from arena_gen.core.suite_io import read_task

    out = write(tmp_path, small_build)
    path = out / "lights.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:3]) + "{not json\n", encoding="utf-8")  # break the last line
    task = read_task(out, "lights-lite-7-0001")
    assert task.to_dict() == small_build.tasks["lights"][1].to_dict()
    with pytest.raises(SchemaError, match="lights.jsonl"):
        read_suite(out)  # a whole read still sees the broken line
    with pytest.raises(ArenaGenError, match="no task 'lights-lite-7-0009'"):
        read_task(out, "lights-lite-7-0009")
    path.write_text("".join(lines), encoding="utf-8")
    task_id = flip_task(out, 2, lambda d: d["certificate"].__setitem__("min_steps", 99))
    with pytest.raises(HashMismatchError, match=f"lights.jsonl:3: task {task_id}"):
        read_task(out, task_id)


def test_find_task_searches_the_suite_its_id_names(tmp_path: Path, monkeypatch) -> None:
    from arena_gen.core.errors import ArenaGenError
    from arena_gen.core.task_lookup import find_task

    monkeypatch.chdir(tmp_path)  # no ./suites here: only the released suites are searched
    found = find_task("trading-challenge-7-0002")
    assert found.task.id == "trading-challenge-7-0002" and found.task.env == "trading"
    assert found.manifest["suite"] == "challenge" and found.suite_path.name == "challenge"
    assert found.task.env_version == 6  # the folder its id names first: not challenge-moderate
    assert found.manifest["tasks"][found.task.id] == found.task.sha256
    with pytest.raises(ArenaGenError, match="not found in ./suites or the released suites"):
        find_task("lights-lite-7-9999")


def test_output_folder_that_is_not_ours_is_never_replaced(tmp_path: Path, small_build) -> None:
    mine = tmp_path / "suite"
    mine.mkdir()
    (mine / "thesis.tex").write_text("years of work")
    with pytest.raises(ArenaGenError, match="is not an arena-gen suite; refusing"):
        write_suite(mine, small_build.manifest, small_build.tasks, force=True)
    assert (mine / "thesis.tex").read_text() == "years of work"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["suite"]  # no temp folder either


def test_a_suite_of_ours_is_replaced_only_with_force(tmp_path: Path, small_build) -> None:
    out = write_suite(tmp_path / "suite", small_build.manifest, small_build.tasks)
    with pytest.raises(ArenaGenError, match="already holds a suite; pass --force"):
        write_suite(out, small_build.manifest, small_build.tasks)
    (out / "notes.txt").write_text("mine")  # a suite folder with a user's file is not ours
    with pytest.raises(ArenaGenError, match="not an arena-gen suite"):
        write_suite(out, small_build.manifest, small_build.tasks, force=True)
    (out / "notes.txt").unlink()
    killed = tmp_path / ".suite.arena-gen-killed"  # what a SIGKILL mid-write leaves
    (killed / "suite").mkdir(parents=True)
    (killed / suite_io.WORK_MARKER).write_text(suite_io._marker_text(out))
    write_suite(out, small_build.manifest, small_build.tasks, force=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["suite"]


def test_cli_build_refuses_before_doing_any_work(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from arena_gen.cli import main

    mine = tmp_path / "out"
    mine.mkdir()
    (mine / "data.csv").write_text("1,2")
    result = CliRunner().invoke(main, ["build", "--suite", "lite", "--seed", "7", "--env",
                                       "lights", "--out", str(mine), "--display", "none"])
    assert result.exit_code != 0 and "refusing to replace it" in result.output
    assert (mine / "data.csv").read_text() == "1,2"


def test_a_selective_read_checks_the_tasks_it_reads_and_only_those(tmp_path: Path,
                                                                   small_build) -> None:
    """``run --tasks ID`` reads one task: the same Task as a whole read, every check on it
    kept (schema, hash, manifest, suite hash, line counts), the other lines not validated."""
    out = write(tmp_path, small_build)
    whole = read_suite(out)
    one = read_suite(out, task_ids=["lights-lite-7-0001"])
    assert one.partial and not whole.partial
    assert [t.to_dict() for t in one.all_tasks()] == [whole.tasks["lights"][1].to_dict()]
    assert read_suite(out, envs=["lights"]).all_tasks() == whole.all_tasks()
    assert read_suite(out, envs=["trading"]).all_tasks() == []  # no such env: select_tasks says
    path = out / "lights.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:3]) + "{not json\n", encoding="utf-8")  # break line 4
    assert read_suite(out, task_ids=["lights-lite-7-0001"]).all_tasks()[0].id == \
        "lights-lite-7-0001"
    with pytest.raises(SchemaError, match="lights.jsonl:4"):
        read_suite(out, task_ids=["lights-lite-7-0003"])
    path.write_text("".join(lines[:3]), encoding="utf-8")  # a line deleted
    with pytest.raises(ArenaGenError, match="manifest counts 4 lights tasks, file has 3"):
        read_suite(out, task_ids=["lights-lite-7-0001"])
    path.write_text("".join(lines), encoding="utf-8")
    task_id = flip_task(out, 1, lambda d: d["certificate"].__setitem__("min_steps", 99))
    with pytest.raises(HashMismatchError, match=f"lights.jsonl:2: task {task_id}"):
        read_suite(out, task_ids=[task_id])
    path.write_text("".join(lines), encoding="utf-8")
    path.write_text("".join(lines).replace("lights-lite-7-0001", "lights-lite-7-0009"),
                    encoding="utf-8")  # the listed id is nowhere: a whole read names the line
    with pytest.raises(HashMismatchError, match="lights.jsonl:2: task lights-lite-7-0009"):
        read_suite(out, task_ids=["lights-lite-7-0001"])
    path.write_text("".join(lines), encoding="utf-8")
    manifest = out / "manifest.json"
    raw = bytearray(manifest.read_bytes())
    pos = raw.index(b'"suite_sha256":"') + len(b'"suite_sha256":"')
    raw[pos] = ord("0") if raw[pos] != ord("0") else ord("1")
    manifest.write_bytes(bytes(raw))
    with pytest.raises(HashMismatchError, match="suite_sha256"):
        read_suite(out, task_ids=["lights-lite-7-0001"])


def test_a_fifo_in_place_of_an_env_file_is_named_not_missing(tmp_path: Path) -> None:
    """Issue 41: a FIFO as lights.jsonl was reported "missing"; it is named, never opened."""
    import shutil
    import threading

    suite = Path(shutil.copytree(Path(__file__).resolve().parents[1] / "suites" / "lite",
                                 tmp_path / "lite"))
    (suite / "lights.jsonl").unlink()
    os.mkfifo(suite / "lights.jsonl")
    outcome: list[BaseException] = []

    def read() -> None:
        try:
            read_suite(suite)
        except BaseException as exc:  # noqa: BLE001 - handed to the main thread
            outcome.append(exc)

    worker = threading.Thread(target=read, daemon=True)
    worker.start()
    worker.join(30)
    assert not worker.is_alive(), "blocked on the FIFO"
    (exc,) = outcome
    assert "a FIFO (named pipe), not a regular file" in str(exc) and "lights.jsonl" in str(exc)
    assert "missing" not in str(exc)
