"""Hostile or damaged input on every surface fails with the project's error, naming the file
(and line, task and JSON path where there is one), never with a traceback (#16 M5)."""

from __future__ import annotations

import functools
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena_gen.cli import main
from arena_gen.core.errors import ArenaGenError
from arena_gen.core.suite_io import read_suite, suite_hash, write_suite
from arena_gen.core.task import Task

LITE = Path(__file__).resolve().parent.parent / "suites" / "lite"


@functools.cache
def _lite() -> Any:
    return read_suite(LITE)


def one_task_suite(out: Path, edit: Any = None, env: str = "lights") -> Path:
    """A one-task suite copied from the released lite suite, its task edited by ``edit`` and
    re-hashed, so it is schema- and hash-valid whatever the edit did to its rules."""
    suite = _lite()
    body = suite.tasks[env][0].to_dict()
    body.pop("sha256")
    if edit is not None:
        edit(body)
    task = Task.from_dict(body, check_hash=False)
    manifest = dict(suite.manifest, counts={env: 1}, tasks={task.id: task.sha256},
                    suite_sha256=suite_hash({task.id: task.sha256}))
    shutil.rmtree(out, ignore_errors=True)
    return write_suite(out, manifest, {env: [task]})


def bulb_99(body: dict[str, Any]) -> None:
    body["world"]["conditions"][1] = {"var": 99}


def test_run_refuses_a_task_its_env_cannot_build_before_writing_anything(tmp_path: Path) -> None:
    suite = one_task_suite(tmp_path / "bad", bulb_99)
    out = tmp_path / "run"
    result = CliRunner().invoke(main, ["run", "--suite", str(suite), "--agent", "random",
                                       "--out", str(out), "--display", "none"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert str(suite / "lights.jsonl") in result.output
    assert "lights-lite-7-0000" in result.output and "99" in result.output
    assert not out.exists()


def test_play_refuses_a_task_its_env_cannot_build(tmp_path: Path) -> None:
    suite = one_task_suite(tmp_path / "bad", bulb_99)
    out = tmp_path / "play"
    result = CliRunner().invoke(main, ["play", "lights-lite-7-0000", "--suite", str(suite),
                                       "--out", str(out)], input=":quit\n")
    assert result.exit_code == 1 and "cannot be built" in result.output
    assert not out.exists()


HOSTILE_IMPORTS = {
    "deep JSON": "[" * 5000 + "]" * 5000,
    "1e400": '[{"x": 1e400}]',
    "5000-digit int": '[{"x": ' + "9" * 5000 + "}]",
    "not x 100000": json.dumps([{"idx": 0, "level": 2, "custom_logic": {
        "B0": "True", "B1": "not " * 100_000 + "B0"}}]),
    "parentheses x 100000": json.dumps([{"idx": 0, "level": 2, "custom_logic": {
        "B0": "True", "B1": "(" * 100_000 + "B0" + ")" * 100_000}}]),
    "not utf-8": b'[{"idx": "\xff"}]',
}


@pytest.mark.parametrize("env", [None, "lights", "trading", "energy", "repo"])
@pytest.mark.parametrize("name", sorted(HOSTILE_IMPORTS))
def test_hostile_released_files_fail_naming_the_file(tmp_path: Path, name: str,
                                                    env: str | None) -> None:
    path = tmp_path / "released.json"
    data = HOSTILE_IMPORTS[name]
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    args = ["import", "odyssey-arena", str(path), "--out", str(tmp_path / "out"),
            "--display", "none", *(["--env", env] if env else [])]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        repr(result.exception)
    assert str(path) in result.output and "Traceback" not in result.output


GOOD_FINDING = {"task_id": "t1", "attempt": 0, "flags": {},
                "findings": [{"item": "a", "status": "met", "evidence": "e"}]}
BAD_FINDINGS = {
    "NaN": (b'{"task_id": "t1", "attempt": NaN}', 2),
    "not utf-8": (b'{"task_id": "\xff"}', 2),
    "deep": (b"[" * 5000 + b"]" * 5000, 2),
    "torn": (b'{"task_id": "t1", "att', 2),
    "wrong shape": (b'{"task_id": 5}', 2),
    "no rubric": (json.dumps({**GOOD_FINDING, "task_id": "t9"}).encode(), 2),
}


@pytest.mark.parametrize("name", sorted(BAD_FINDINGS))
def test_score_findings_names_the_file_and_line(tmp_path: Path, name: str) -> None:
    bad, line = BAD_FINDINGS[name]
    findings = tmp_path / "findings.jsonl"
    findings.write_bytes(json.dumps(GOOD_FINDING).encode() + b"\n" + bad + b"\n")
    rubrics = tmp_path / "rubrics.json"
    rubrics.write_text(json.dumps({"t1": ["a"]}))
    result = CliRunner().invoke(main, ["score", "--findings", str(findings), "--rubrics",
                                       str(rubrics), "--display", "none"])
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        repr(result.exception)
    assert f"{findings}:{line}" in result.output, result.output


BAD_RUBRICS = {
    "NaN": b'{"t1": NaN}',
    "deep": b"[" * 5000 + b"]" * 5000,
    "items not a list": b'{"t1": 5}',
    "item without id": b'{"t1": [{"text": "x"}]}',
    "jsonl row without id": b'{"id": "t1", "rubric": ["a"]}\n{"rubric": ["a"]}\n',
    "jsonl torn line": b'{"id": "t1", "rubric": ["a"]}\n{"id": "t\n',
    "a bare number": b"5",
    "a list of numbers": b"[1, 2]",
    "not utf-8": b'{"t1": ["\xff"]}',
}


@pytest.mark.parametrize("name", sorted(BAD_RUBRICS))
def test_score_rubrics_names_the_file(tmp_path: Path, name: str) -> None:
    findings = tmp_path / "findings.jsonl"
    findings.write_text(json.dumps(GOOD_FINDING) + "\n")
    rubrics = tmp_path / "rubrics.jsonl"
    rubrics.write_bytes(BAD_RUBRICS[name])
    result = CliRunner().invoke(main, ["score", "--findings", str(findings), "--rubrics",
                                       str(rubrics), "--display", "none"])
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        repr(result.exception)
    assert str(rubrics) in result.output and "Traceback" not in result.output


def test_jsonl_rubrics_still_read_line_by_line(tmp_path: Path) -> None:
    from arena_gen.scoring.score import load_rubrics

    rubrics = tmp_path / "rubrics.jsonl"
    rubrics.write_text('{"id": "t1", "rubric": [{"id": "a", "text": "x"}]}\n\n'
                       '{"task_id": "t2", "rubric": ["b"]}\n')
    assert load_rubrics(rubrics) == {"t1": ["a"], "t2": ["b"]}
    rubrics.write_text('{"id": "t1", "rubric": ["a"]}\n')
    assert load_rubrics(rubrics) == {"t1": ["a"]}


_SCORED: list[Path] = []


def scored_run(tmp_path: Path) -> Path:
    """A scored one-episode run (made once, copied per test) beside its suite."""
    if not _SCORED:
        import tempfile

        base = Path(tempfile.mkdtemp(prefix="scored-"))
        suite = one_task_suite(base / "suite")
        for args in (["run", "--suite", str(suite), "--agent", "random", "--out",
                      str(base / "run")], ["score", str(base / "run")]):
            result = CliRunner().invoke(main, [*args, "--display", "none"])
            assert result.exit_code == 0, result.output
        _SCORED.append(base)
    shutil.copytree(_SCORED[0] / "suite", tmp_path / "suite")
    shutil.copytree(_SCORED[0] / "run", tmp_path / "run")
    meta = json.loads((tmp_path / "run" / "run.json").read_text())
    meta["suite_path"] = str(tmp_path / "suite")
    (tmp_path / "run" / "run.json").write_text(json.dumps(meta))
    return tmp_path / "run"


DAMAGED_SUMMARIES = {
    "truncated": lambda text: text[: len(text) // 2],
    "NaN": lambda text: text.replace('"k": 1', '"k": NaN'),
    "envs a number": lambda text: json.dumps({**json.loads(text), "envs": 5}),
    "run a string": lambda text: json.dumps({**json.loads(text), "run": "x"}),
    "metric a list": lambda text: json.dumps({**json.loads(text), "overall": {"success_rate": []}}),
    "curve of text": lambda text: json.dumps({**json.loads(text),
                                              "curves": {"lights": {"evolution": ["a"]}}}),
    "deep": lambda text: "[" * 5000 + "]" * 5000,
}


@pytest.mark.parametrize("name", sorted(DAMAGED_SUMMARIES))
def test_report_names_a_damaged_summary(tmp_path: Path, name: str) -> None:
    pytest.importorskip("matplotlib")
    run = scored_run(tmp_path)
    summary = run / "summary.json"
    summary.write_text(DAMAGED_SUMMARIES[name](summary.read_text()))
    result = CliRunner().invoke(main, ["report", str(run), "--html", str(tmp_path / "r.html")])
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        repr(result.exception)
    assert str(summary) in result.output


@pytest.mark.parametrize("command", ["score", "run"])
def test_a_damaged_run_json_is_named(tmp_path: Path, command: str) -> None:
    run = scored_run(tmp_path)
    (run / "run.json").write_text('{"suite": "lite", "tasks": [')
    args = (["score", str(run)] if command == "score" else
            ["run", "--suite", str(tmp_path / "suite"), "--agent", "random", "--out", str(run),
             "--resume"])
    result = CliRunner().invoke(main, [*args, "--display", "none"])
    assert result.exit_code == 1 and f"{run / 'run.json'}:" in result.output, result.output


def test_a_damaged_manifest_in_the_output_folder_is_not_ours(tmp_path: Path) -> None:
    from arena_gen.core.suite_io import is_our_suite

    (tmp_path / "manifest.json").write_text("[" * 5000 + "]" * 5000)
    assert not is_our_suite(tmp_path)


@pytest.mark.parametrize("command", ["run", "play", "report", "build", "import"])
def test_an_output_path_under_a_file_is_a_clear_error(tmp_path: Path, command: str) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    out = blocker / "sub" / "out"
    lite = str(LITE)
    args = {
        "run": ["run", "--suite", lite, "--agent", "random", "--out", str(out), "--env",
                "lights", "--display", "none"],
        "play": ["play", "lights-lite-7-0000", "--suite", lite, "--out", str(out)],
        "report": ["report", str(tmp_path), "--html", str(out / "r.html")],
        "build": ["build", "--suite", "lite", "--seed", "7", "--env", "lights", "--out",
                  str(out), "--display", "none"],
        "import": ["import", "odyssey-arena", str(blocker), "--out", str(out),
                   "--display", "none"],
    }[command]
    if command == "report":
        pytest.importorskip("matplotlib")
        args[1] = str(scored_run(tmp_path))
    result = CliRunner().invoke(main, args, input=":quit\n")
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        repr(result.exception)
    assert "is a file, not a folder" in result.output and str(blocker) in result.output


def test_user_errors_turn_an_os_error_into_a_clean_message() -> None:
    import click

    from arena_gen.cli.options import user_errors

    with pytest.raises(click.ClickException, match="/x/y: No space left on device"):
        with user_errors():
            raise OSError(28, "No space left on device", "/x/y")


def test_verify_names_the_failing_task_even_with_display_none(tmp_path: Path) -> None:
    def wrong_minimum(body: dict[str, Any]) -> None:
        body["certificate"]["min_steps"] -= 1

    suite = one_task_suite(tmp_path / "bad", wrong_minimum)
    result = CliRunner().invoke(main, ["verify", str(suite), "--display", "none"])
    assert result.exit_code == 1
    assert "FAIL lights-lite-7-0000" in result.output, result.output


@pytest.mark.parametrize("env", ["../outside", "Lights", "a.b", "/etc/x", "lights/../lights",
                                 ""])
def test_manifest_env_names_cannot_name_files_outside_the_suite(tmp_path: Path,
                                                               env: str) -> None:
    from arena_gen.core import suite_io

    suite = one_task_suite(tmp_path / "s")
    (tmp_path / "outside.jsonl").write_text((suite / "lights.jsonl").read_text())
    manifest = json.loads((suite / "manifest.json").read_text())
    manifest["counts"] = {env: 1}
    (suite / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ArenaGenError, match=r"counts"):
        suite_io.read_suite(suite)
    with pytest.raises(ArenaGenError, match="counts"):
        suite_io._env_file(suite, env)
    assert not suite_io.is_our_suite(suite)


def test_a_suite_name_the_os_refuses_is_not_found_not_a_crash() -> None:
    from arena_gen.core.suite_io import resolve_suite

    with pytest.raises(ArenaGenError, match="no suite"):
        resolve_suite("(" * 5000)


def test_an_undecodable_path_from_argv_is_printed_not_a_crash(tmp_path: Path) -> None:
    import io
    import sys

    out = str(tmp_path / "caf\udcff")  # what Python makes of the bytes b"caf\xff" in argv
    stdout = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")  # strict, like a UTF-8 terminal
    old = sys.stdout
    sys.stdout = stdout
    try:
        main(["play", "lights-lite-7-0000", "--suite", str(LITE), "--out", out],
             standalone_mode=False)
    except Exception as exc:  # noqa: BLE001
        pytest.fail(f"{type(exc).__name__}: {exc}")
    finally:
        sys.stdout = old
    stdout.flush()
    assert b"caf\\udcff" in stdout.buffer.getvalue()


def short_trading_changes(body: dict[str, Any]) -> None:
    body["world"]["changes"][0] = body["world"]["changes"][0][:-1]


def test_a_trading_world_with_short_rows_is_refused_before_playing(tmp_path: Path) -> None:
    suite = one_task_suite(tmp_path / "bad", short_trading_changes, env="trading")
    result = CliRunner().invoke(main, ["run", "--suite", str(suite), "--agent", "random",
                                       "--out", str(tmp_path / "run"), "--display", "none"])
    assert result.exit_code == 1 and "world.changes" in result.output, result.output
    assert str(suite / "trading.jsonl") in result.output and not (tmp_path / "run").exists()


def test_findings_with_a_null_env_are_scored(tmp_path: Path) -> None:
    from arena_gen.scoring.score import score_findings

    findings, rubrics = tmp_path / "f.jsonl", tmp_path / "r.json"
    findings.write_text(json.dumps({**GOOD_FINDING, "env": None}) + "\n"
                        + json.dumps({**GOOD_FINDING, "attempt": 1}) + "\n")
    rubrics.write_text(json.dumps({"t1": ["a"]}))
    assert score_findings(findings, rubrics)["overall"]["attempts"] == 2
