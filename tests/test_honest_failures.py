"""Honest failure reporting (#24 rows 3, 4, 7-10; #26 "run exits non-zero when every episode was
an infra error"): a failing run says why, as it happens, and refuses what cannot work before it
plays. Each test replays one row against the loopback OpenAI server or a one-task suite."""

from __future__ import annotations

import json
import shlex
import socket
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from fake_openai import FakeOpenAI, Out
from test_hostile_input import one_task_suite

from arena_gen.cli import main
from arena_gen.core.errors import ArenaGenError
from arena_gen.core.suite_io import read_suite
from arena_gen.runner import run as run_module
from arena_gen.runner.run import RunConfig, run_suite
from arena_gen.suite import verify as verify_module
from arena_gen.suite.verify import verify_suite

REPO = Path(__file__).resolve().parent.parent
TASK = "lights-lite-7-0000"
KEY = "sk-honest-failures-0123456789"


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The released lite lights task 0 as a one-task suite."""
    return one_task_suite(tmp_path_factory.mktemp("suite") / "s")


@pytest.fixture(scope="module")
def tasks(suite: Path) -> list[Any]:
    return read_suite(suite).all_tasks()


def closed_port() -> int:
    """A loopback port nothing listens on: connections are refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def run_cli(*args: str, key: str | None = KEY, **kw: Any) -> Result:
    env = {"OPENAI_API_KEY": key, "OPENAI_BASE_URL": None}
    return CliRunner().invoke(main, ["run", *args], env=env, **kw)


def llm_args(suite: Path, out: Path, url: str, *extra: str) -> list[str]:
    return ["--suite", str(suite), "--agent", "llm", "--model", "fake-model", "--base-url", url,
            "--retries", "0", "--timeout", "5", "--max-connections", "1", "--out", str(out),
            "--display", "plain", *extra]


# -- row 3: a wrong --base-url is fixed by resuming with the right one ---------------------------
def test_resume_with_the_right_base_url_finishes_the_run(suite: Path, tasks: list[Any],
                                                         tmp_path: Path) -> None:
    out = tmp_path / "run"
    wrong = f"http://127.0.0.1:{closed_port()}/v1"
    first = run_cli(*llm_args(suite, out, wrong, "--attempts", "3"))
    assert first.exit_code == 1, first.output
    assert "continue with --resume" in first.output
    with FakeOpenAI(tasks) as server:
        second = run_cli(*llm_args(suite, out, server.url, "--attempts", "3", "--timeout", "9",
                                   "--max-connections", "2", "--retries", "1"), "--resume")
    assert second.exit_code == 0, second.output
    records = [json.loads(line) for line in (out / "trajectories.jsonl").read_text().splitlines()]
    assert [(r["attempt"], r["end_reason"], r["success"]) for r in records] == [
        (0, "success", True), (1, "success", True), (2, "success", True)]
    meta = json.loads((out / "run.json").read_text())
    assert meta["agent"]["config"]["base_url"] == server.url  # the endpoint it finished on
    assert meta["agent"]["config"]["timeout"] == 9.0 and len(meta["resumed"]) == 1


@pytest.mark.parametrize(("option", "value", "words"), [
    ("--model", "other-model", "--model differs: other-model now, fake-model in the run"),
    ("--temperature", "0.2", "--temperature differs: 0.2 now, 0.6 in the run"),
    ("--history", "3", "--history differs: 3 now, not set in the run"),
    ("--mode", "with-rules", "--mode differs: with-rules now, inductive in the run"),
])
def test_resume_refuses_what_decides_the_play_naming_the_setting(
        suite: Path, tasks: list[Any], tmp_path: Path, option: str, value: str,
        words: str) -> None:
    out = tmp_path / "run"
    with FakeOpenAI(tasks) as server:
        assert run_cli(*llm_args(suite, out, server.url)).exit_code == 0
        before = (out / "trajectories.jsonl").read_bytes()
        args = llm_args(suite, out, server.url)
        if option == "--model":
            args[args.index("--model") + 1] = value
        else:
            args += [option, value]
        refused = run_cli(*args, "--resume")
    assert refused.exit_code == 1, refused.output
    assert words in refused.output, refused.output
    assert "only the endpoint settings (--base-url, --timeout" in refused.output
    assert "{'name'" not in refused.output and "Traceback" not in refused.output
    assert (out / "trajectories.jsonl").read_bytes() == before


# -- row 4: infra reasons printed as they happen; a warning without a key; exit 1 if all failed --
def test_a_401_without_a_key_is_warned_printed_and_fails_the_run(suite: Path, tasks: list[Any],
                                                                 tmp_path: Path) -> None:
    out = tmp_path / "run"
    with FakeOpenAI(tasks, key=KEY) as server:  # the endpoint needs a key; none is set
        result = run_cli(*llm_args(suite, out, server.url, "--attempts", "3",
                                   "--abort-after-infra-errors", "0"), key=None)
    assert "warning: no API key is set ($OPENAI_API_KEY is empty)" in result.output
    reason = f'{server.url}/chat/completions: HTTP 401: {{"error": "bad key: None"}} (not retried)'
    assert result.output.count(f"): {reason}") == 1, result.output  # once per distinct reason
    assert f"infra error ({TASK} attempt 0): {reason}" in result.output
    assert f"3 episode(s) ended in infra error: {reason}" in result.output
    assert result.exit_code == 1
    assert "every episode ended in an infra error" in result.output
    assert len((out / "trajectories.jsonl").read_text().splitlines()) == 3


def test_a_404_on_one_episode_is_printed_and_counted(suite: Path, tasks: list[Any],
                                                    tmp_path: Path) -> None:
    out = tmp_path / "run"

    def fault(seen: Any) -> Out | None:
        return Out(status=404, body=b'{"error": "model not found"}') if seen.index == 0 else None

    with FakeOpenAI(tasks, fault=fault) as server:
        result = run_cli(*llm_args(suite, out, server.url, "--attempts", "2"))
    assert result.exit_code == 0, result.output  # one episode was evaluated
    assert "warning: no API key" not in result.output
    reason = f'{server.url}/chat/completions: HTTP 404: {{"error": "model not found"}} ' \
             f"(not retried)"
    assert result.output.count(reason) == 2  # as it happened, and counted at the end
    assert f"1 episode(s) ended in infra error: {reason}" in result.output


def test_no_key_warning_names_the_endpoint_and_is_quiet_with_a_key() -> None:
    from arena_gen.agents.llm_client import missing_key_warning

    text = missing_key_warning("https://user:pw@api.example.com/v1", "")
    assert text is not None and "api.example.com" in text and "pw" not in text
    assert missing_key_warning("https://api.example.com/v1", "sk-1") is None


# -- row 7: the with-rules planner is refused in inductive mode, before playing -----------------
def test_planner_without_with_rules_is_refused_before_playing(suite: Path,
                                                              tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = run_cli("--suite", str(suite), "--agent", "planner", "--out", str(out),
                     "--display", "none")
    assert result.exit_code == 1, result.output
    assert ("--agent planner reads the rules text, which --mode inductive does not disclose: "
            "run it with --mode with-rules") in result.output
    assert not out.exists()
    with pytest.raises(ArenaGenError, match="--mode with-rules"):
        run_suite(RunConfig(suite=str(suite), agent="planner", out=str(out)))
    played = run_cli("--suite", str(suite), "--agent", "planner", "--mode", "with-rules",
                     "--out", str(out), "--display", "none")
    assert played.exit_code == 0, played.output
    (record,) = [json.loads(x) for x in (out / "trajectories.jsonl").read_text().splitlines()]
    assert record["success"] is True and record["steps"] > 0


# -- row 8: --out a non-empty folder that is not a run -------------------------------------------
@pytest.mark.parametrize("name", ["notes.txt", "trajectories.jsonl"])
def test_run_refuses_a_non_empty_folder_that_is_not_a_run(suite: Path, tmp_path: Path,
                                                          name: str) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / name).write_text("the user's own file\n")
    result = run_cli("--suite", str(suite), "--agent", "random", "--out", str(out),
                     "--display", "none")
    assert result.exit_code == 1, result.output
    assert f"--out {out} is not empty and holds no run (no run.json; it holds {name})" \
        in result.output
    assert sorted(p.name for p in out.iterdir()) == [name]
    assert (out / name).read_text() == "the user's own file\n"
    empty = tmp_path / "empty"
    empty.mkdir()
    assert run_cli("--suite", str(suite), "--agent", "random", "--out", str(empty),
                   "--display", "none").exit_code == 0  # an empty folder is fine


# -- row 9: Ctrl-C says what is saved and how to continue ----------------------------------------
def test_ctrl_c_prints_the_saved_count_and_the_resume_command(
        suite: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = run_module._execute

    def interrupted(pending: list[Any], cfg: RunConfig) -> Any:
        for record in real(pending, cfg):
            yield record
            raise KeyboardInterrupt

    monkeypatch.setattr(run_module, "_execute", interrupted)
    out = tmp_path / "run"
    args = ["--suite", str(suite), "--agent", "random", "--attempts", "3", "--out", str(out),
            "--display", "plain"]
    result = run_cli(*args)
    assert result.exit_code == 1 and "Aborted!" in result.output
    line = next(x for x in result.output.splitlines() if x.startswith("interrupted"))
    assert line.startswith(f"interrupted: 1 of 3 episodes are finished and saved in {out}; "
                           f"continue with: arena-gen run ")
    command = shlex.split(line.split("continue with: ", 1)[1])
    assert command == ["arena-gen", "run", *args, "--resume"]
    monkeypatch.undo()
    resumed = run_cli(*command[2:])
    assert resumed.exit_code == 0, resumed.output
    assert len((out / "trajectories.jsonl").read_text().splitlines()) == 3


def test_ctrl_c_during_the_up_front_compile_says_nothing_was_written(
        suite: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def compile_interrupted(*args: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(run_module, "check_playable", compile_interrupted)
    out = tmp_path / "run"
    result = run_cli("--suite", str(suite), "--agent", "random", "--out", str(out),
                     "--display", "none")
    assert result.exit_code == 1 and "Aborted!" in result.output
    assert (f"interrupted before any episode was saved: nothing was written to {out}; run the "
            f"same command to start again") in result.output
    assert not out.exists()


# -- row 10: verify --rebuild of an imported suite is refused first ------------------------------
def test_verify_rebuild_of_an_imported_suite_is_refused_before_verifying(
        monkeypatch: pytest.MonkeyPatch) -> None:
    odyssey = REPO / "suites" / "odyssey-lite"
    started: list[str] = []
    with pytest.raises(ArenaGenError, match="was not built from a preset; --rebuild needs"):
        verify_suite(odyssey, rebuild=True, on_start=lambda task: started.append(task.id))
    assert started == []

    def never(*args: Any, **kw: Any) -> Any:
        raise AssertionError("verified before refusing --rebuild")

    monkeypatch.setattr(verify_module, "verify_suite", never)
    result = CliRunner().invoke(main, ["verify", str(odyssey), "--rebuild", "--display", "none"])
    assert result.exit_code == 1, result.output
    assert ("suite 'odyssey-lite' was not built from a preset; --rebuild needs one of"
            in result.output)
    assert "AssertionError" not in result.output
