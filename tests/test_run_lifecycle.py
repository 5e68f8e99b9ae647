"""A run's life on disk: what is left when it fails early, aborts, or loses its parent (#16)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_hostile_input import one_task_suite

from arena_gen.core.errors import ArenaGenError
from arena_gen.runner import run as run_module
from arena_gen.runner.run import RunConfig, run_suite


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return one_task_suite(tmp_path_factory.mktemp("suite") / "s")


def test_a_run_that_fails_before_playing_leaves_no_run_json(suite: Path, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    def refuse(pending: list[Any], cfg: RunConfig) -> Any:
        raise ArenaGenError("endpoint refused the connection")
        yield  # pragma: no cover

    monkeypatch.setattr(run_module, "_execute", refuse)
    out = tmp_path / "run"
    with pytest.raises(ArenaGenError, match="refused"):
        run_suite(RunConfig(suite=str(suite), agent="random", out=str(out)))
    assert not (out / "run.json").exists()
    monkeypatch.undo()
    rundir = run_suite(RunConfig(suite=str(suite), agent="random", out=str(out)))  # no --resume
    assert len(rundir.records()) == 1 and rundir.exists()


def test_an_unreachable_endpoint_stops_the_run_after_three_infra_errors(suite: Path,
                                                                       tmp_path: Path) -> None:
    import json
    import socket

    from click.testing import CliRunner

    from arena_gen.cli import main

    with socket.socket() as sock:  # a port nothing listens on: connections are refused
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    out = tmp_path / "run"
    result = CliRunner().invoke(main, [
        "run", "--suite", str(suite), "--agent", "llm", "--model", "m", "--attempts", "6",
        "--base-url", f"http://127.0.0.1:{port}/v1", "--retries", "0", "--timeout", "2",
        "--max-connections", "1", "--out", str(out), "--display", "none"],
        env={"OPENAI_API_KEY": "k"})
    assert result.exit_code == 1, result.output
    assert "first 3 episodes all ended in infra errors" in result.output
    assert "--resume" in result.output and "Traceback" not in result.output
    lines = (out / "trajectories.jsonl").read_text().splitlines()
    assert len(lines) == 3 and all(json.loads(x)["end_reason"] == "infra_error" for x in lines)
    assert (out / "run.json").is_file()


def test_infra_errors_after_a_finished_episode_do_not_stop_the_run(
        suite: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = run_module._execute

    def flaky(pending: list[Any], cfg: RunConfig) -> Any:
        for i, record in enumerate(real(pending, cfg)):
            yield record if i == 0 else {**record, "end_reason": "infra_error"}

    monkeypatch.setattr(run_module, "_execute", flaky)
    rundir = run_suite(RunConfig(suite=str(suite), agent="random", out=str(tmp_path / "r"),
                                 attempts=5))
    assert [r["end_reason"] == "infra_error" for r in rundir.records()] == [False] + [True] * 4
