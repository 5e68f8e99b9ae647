"""``arena-gen play``: meta-commands are not turns, and quitting is not an agent error (#16)."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from arena_gen.agents.human import HumanAgent
from arena_gen.cli import main
from arena_gen.cli import play as play_cli
from arena_gen.core.episode import run_episode
from arena_gen.core.suite_io import read_task

LITE = Path(__file__).resolve().parent.parent / "suites" / "lite"
TASK = "lights-lite-7-0000"


def play(tmp_path: Path, typed: str) -> dict:
    out = tmp_path / "play"
    result = CliRunner().invoke(main, ["play", TASK, "--suite", str(LITE), "--out", str(out)],
                                input=typed)
    assert result.exit_code == 0, result.output
    lines = (out / "trajectories.jsonl").read_text().splitlines()
    return {"record": json.loads(lines[-1]), "output": result.output}


def test_help_empty_and_slips_are_not_turns_and_quit_ends_the_episode(tmp_path: Path) -> None:
    got = play(tmp_path, "5\n\nhelp\nquit\n:help\n:nope\n2\n:quit\n")
    record = got["record"]
    assert record["end_reason"] == "quit" and record["steps"] == 2
    assert [t["action"] for t in record["turns"]] == ["5", "2"]
    assert "error" not in record
    assert ":quit" in got["output"] and "Action format" in got["output"]
    assert "quit: 2 turns" in got["output"]


def test_end_of_input_ends_the_episode_as_quit(tmp_path: Path) -> None:
    assert play(tmp_path, "5\n")["record"]["end_reason"] == "quit"


def test_ctrl_c_ends_the_episode_as_quit_not_as_an_agent_error() -> None:
    task = read_task(LITE, TASK)

    def interrupted(prompt: str) -> str:
        raise KeyboardInterrupt

    record = run_episode(task, HumanAgent(read=interrupted, write=lambda text: None))
    assert record["end_reason"] == "quit" and record["steps"] == 0


def test_the_cli_reader_turns_click_abort_into_keyboard_interrupt(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def abort(*args: object, **kwargs: object) -> str:
        raise click.Abort

    monkeypatch.setattr(click, "prompt", abort)
    with pytest.raises(KeyboardInterrupt):
        play_cli._read("action> ")


def test_a_quit_episode_is_scored_not_excluded(tmp_path: Path) -> None:
    play(tmp_path, "5\n:quit\n")
    result = CliRunner().invoke(main, ["score", str(tmp_path / "play"), "--display", "none"])
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "play" / "summary.json").read_text())
    assert summary["overall"]["scored"] == 1 and summary["overall"]["infra_errors"] == 0


def test_play_refuses_a_non_empty_folder_that_holds_no_run(tmp_path: Path) -> None:
    """#24 row 8 for ``play`` as for ``run``: the user's files are never mixed with a run's."""
    out = tmp_path / "notes"
    out.mkdir()
    (out / "mine.txt").write_text("keep me\n")
    result = CliRunner().invoke(main, ["play", TASK, "--suite", str(LITE), "--out", str(out)],
                                input=":quit\n")
    assert result.exit_code != 0
    assert "holds no run" in result.output
    assert sorted(p.name for p in out.iterdir()) == ["mine.txt"]
    again = play(tmp_path, "1\n:quit\n")  # a new folder, then the same folder again: fine
    assert again["record"]["attempt"] == 0
    assert play(tmp_path, ":quit\n")["record"]["attempt"] == 1


def test_the_winning_moves_result_is_shown(tmp_path: Path) -> None:
    task = read_task(LITE, TASK)
    got = play(tmp_path, "\n".join(task.certificate.witness) + "\n")
    assert got["record"]["end_reason"] == "success"
    n = task.budget - len(task.certificate.witness)
    on = " ".join(["on"] * int(task.public["n"]))
    assert f"State: {on}\nTurns left: {n}" in got["output"]  # after the last move


def test_games_played_into_one_folder_leave_the_run_complete(tmp_path: Path) -> None:
    """Replaying one task plans no more attempts of the others (#41): a folder of three games,
    one task played twice, scores as complete, each attempt where it belongs."""
    out = tmp_path / "play"
    other = "lights-lite-7-0001"
    for task_id in (TASK, TASK, other):
        witness = read_task(LITE, task_id).certificate.witness
        result = CliRunner().invoke(main, ["play", task_id, "--suite", str(LITE), "--out",
                                           str(out)], input="\n".join(witness) + "\n")
        assert result.exit_code == 0, result.output
    meta = json.loads((out / "run.json").read_text())
    assert meta["task_attempts"] == {TASK: 2, other: 1} and meta["attempts"] == 2
    result = CliRunner().invoke(main, ["score", str(out), "--display", "plain"])
    assert result.exit_code == 0, result.output
    assert "INCOMPLETE" not in result.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["complete"] and summary["overall"]["attempts"] == 3
    assert summary["overall"]["missing"] == 0


def test_a_play_folders_plan_per_task_is_in_the_chain(tmp_path: Path) -> None:
    """Shrinking ``task_attempts`` (to hide a played attempt) breaks the hash chain."""
    out = tmp_path / "play"
    witness = read_task(LITE, TASK).certificate.witness
    for _ in range(2):
        CliRunner().invoke(main, ["play", TASK, "--suite", str(LITE), "--out", str(out)],
                           input="\n".join(witness) + "\n")
    meta = json.loads((out / "run.json").read_text())
    meta["task_attempts"][TASK] = 1
    (out / "run.json").write_text(json.dumps(meta))
    result = CliRunner().invoke(main, ["score", str(out), "--display", "plain"])
    assert result.exit_code != 0 and "chain" in result.output
