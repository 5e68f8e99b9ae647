"""The arena-gen command line: build, verify (and its failures), show."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from arena_gen.cli import main


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.output


def test_build_verify_show(tmp_path: Path) -> None:
    out = tmp_path / "lite"
    code, text = run("build", "--suite", "lite", "--seed", "7", "--env", "lights",
                     "--out", str(out), "--display", "plain")
    assert code == 0, text
    assert "lights  30" in text and "suite sha256" in text
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["counts"] == {"lights": 30} and manifest["seed"] == 7
    code, text = run("verify", str(out), "--display", "plain")
    assert code == 0, text
    assert "all certificates hold" in text
    code, text = run("show", "lights-lite-7-0003", "--suite", str(out), "--reveal")
    assert code == 0 and "min_steps=" in text and "witness:" in text
    code, text = run("show", "lights-lite-7-0003", "--suite", str(out))
    assert code == 0 and "min_steps=" not in text and "-- hidden rules" not in text


def test_verify_names_a_tampered_task(tmp_path: Path) -> None:
    out = tmp_path / "lite"
    assert run("build", "--suite", "lite", "--seed", "3", "--env", "lights", "--out", str(out),
               "--display", "none")[0] == 0
    path = out / "lights.jsonl"
    raw = bytearray(path.read_bytes())
    pos = raw.index(b'"budget":50') + len(b'"budget":5')
    raw[pos] = ord("1")
    path.write_bytes(bytes(raw))
    code, text = run("verify", str(out), "--display", "plain")
    assert code == 1 and "lights-lite-3-0000" in text and "sha256" in text


def test_unknown_env_and_missing_suite_fail_cleanly(tmp_path: Path) -> None:
    code, text = run("build", "--suite", "lite", "--seed", "1", "--env", "nope",
                     "--out", str(tmp_path / "x"))
    assert code == 1 and "unknown env 'nope'" in text
    code, text = run("verify", str(tmp_path / "missing"))
    assert code == 1 and "no suite at" in text


def test_play_saves_the_episode(tmp_path: Path) -> None:
    out = tmp_path / "lite"
    assert run("build", "--suite", "lite", "--seed", "7", "--env", "lights", "--out", str(out),
               "--display", "none")[0] == 0
    task = json.loads((out / "lights.jsonl").read_text().splitlines()[0])
    moves = "\n".join(["banana", *task["certificate"]["witness"]]) + "\n"
    result = CliRunner().invoke(main, ["play", task["id"], "--suite", str(out),
                                       "--out", str(tmp_path / "play")], input=moves)
    assert result.exit_code == 0, result.output
    assert "Invalid action: 'banana'" in result.output and "State: off" in result.output
    assert f"success: {len(task['certificate']['witness']) + 1} turns" in result.output
    line = json.loads((tmp_path / "play" / "trajectories.jsonl").read_text())
    assert line["agent"] == "human" and line["success"] and not line["turns"][0]["valid"]


def test_play_twice_writes_run_json_like_run(tmp_path: Path) -> None:
    out = tmp_path / "lite"
    assert run("build", "--suite", "lite", "--seed", "7", "--env", "lights", "--out", str(out),
               "--display", "none")[0] == 0
    task = json.loads((out / "lights.jsonl").read_text().splitlines()[1])
    moves = "\n".join(task["certificate"]["witness"]) + "\n"
    for _ in range(2):
        result = CliRunner().invoke(main, ["play", task["id"], "--suite", str(out),
                                           "--out", str(tmp_path / "play")], input=moves)
        assert result.exit_code == 0, result.output
    meta = json.loads((tmp_path / "play" / "run.json").read_text())
    assert meta["agent"] == {"name": "human", "config": {}}
    assert meta["tasks"] == [task["id"]] and meta["attempts"] == 2
    assert meta["suite_sha256"] == json.loads((out / "manifest.json").read_text())["suite_sha256"]
    assert meta["budgets"] == {task["id"]: task["budget"]} and task["budget"] == 50
    assert "package_versions" in meta
    lines = (tmp_path / "play" / "trajectories.jsonl").read_text().splitlines()
    assert [json.loads(x)["attempt"] for x in lines] == [0, 1]
