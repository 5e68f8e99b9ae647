"""Episodes that raise on the async executor: the first error is raised, and no other task's
exception is left unretrieved to print a traceback at collection (issue 41)."""

from __future__ import annotations

import gc
import logging
from typing import Any

import pytest
from conftest import built_tasks

from arena_gen.runner import async_exec


def test_failing_episodes_leave_no_unretrieved_task_exception(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    async def boom(task: Any, agent: Any, **kwargs: Any) -> Any:
        raise RuntimeError(f"episode of {task.id} failed")

    monkeypatch.setattr(async_exec, "run_episode_async", boom)
    tasks = built_tasks("lights", count=3)
    pending = [(t, "random", {}, "inductive", 0, 0) for t in tasks]
    caplog.set_level(logging.ERROR, logger="asyncio")
    with pytest.raises(RuntimeError, match="failed"):
        list(async_exec.execute_async(pending, jobs=3))
    gc.collect()
    assert not [r for r in caplog.records if "never retrieved" in r.getMessage()
                or "destroyed but it is pending" in r.getMessage()]
