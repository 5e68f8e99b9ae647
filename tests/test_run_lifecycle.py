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
