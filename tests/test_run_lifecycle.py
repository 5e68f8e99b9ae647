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


WORKER_SCRIPT = """
import os, sys, time
from pathlib import Path
from arena_gen.core.parallel import map_unordered

def work(i):
    Path(sys.argv[1], f"{i}.pid").write_text(str(os.getpid()))
    time.sleep(60)
    return i

if __name__ == "__main__":
    for _ in map_unordered(work, [0, 1], jobs=2):
        pass
"""


def _alive(pid: int) -> bool:
    """Whether a process still runs (a zombie that nobody reaped has exited)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_pool_workers_exit_when_their_parent_is_killed(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    script = tmp_path / "parent.py"
    script.write_text(WORKER_SCRIPT)
    parent = subprocess.Popen([sys.executable, str(script), str(tmp_path)])
    try:
        deadline = time.monotonic() + 30
        while len(list(tmp_path.glob("*.pid"))) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        pids = [int(p.read_text()) for p in tmp_path.glob("*.pid")]
        assert len(pids) == 2
    finally:
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait()
    deadline = time.monotonic() + 30  # generous on a loaded machine; the loop ends when they do
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [p for p in pids if _alive(p)]
    for pid in left:  # do not leave them behind even when the test fails
        os.kill(pid, signal.SIGKILL)
    assert not left, f"workers {left} outlived their parent"
