"""Suite tasks as inspect samples: one sample per task, the task itself carried in its metadata."""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from inspect_ai.dataset import MemoryDataset, Sample

from arena_gen.agents.llm_prompts import build_messages
from arena_gen.core.agent import MODES
from arena_gen.core.canon import canonical_json
from arena_gen.core.errors import ArenaGenError
from arena_gen.core.registry import make_env
from arena_gen.core.suite_io import Suite, read_suite
from arena_gen.core.task import Task
from arena_gen.runner.run import select_tasks

#: Metadata keys of a sample (the task travels whole, so a log can be re-judged on its own).
TASK_KEY, MODE_KEY = "arena_gen_task", "mode"


def first_prompt(task: Task, mode: str) -> str:
    """The user message of the first turn: what the model sees before it has acted."""
    observation, _ = make_env(task).reset(seed=None)
    messages = build_messages(env=task.env, public=task.public,
                              rules_text=task.rules_text if mode == "with-rules" else None,
                              history=[], observation=observation, window=None,
                              budget=task.budget)
    return messages[-1]["content"]


def task_sample(task: Task, mode: str) -> Sample:
    """One sample: id is the task id, metadata holds the task (hash-checked when read back)."""
    meta: dict[str, Any] = {TASK_KEY: task.to_dict(), MODE_KEY: mode, "env": task.env,
                            "budget": task.budget, "min_steps": task.certificate.min_steps}
    return Sample(id=task.id, input=first_prompt(task, mode), metadata=meta)


@lru_cache(maxsize=512)
def _task_of(text: str) -> Task:
    """Parse and hash-check a task once per distinct canonical text (solver and scorer share)."""
    return Task.from_dict(json.loads(text))


def sample_task(metadata: dict[str, Any]) -> Task:
    """The task a sample carries; its sha256 is checked, so a tampered log cannot be scored."""
    data = metadata.get(TASK_KEY)
    if not isinstance(data, dict):
        raise ArenaGenError("this sample carries no arena-gen task (not an arena_gen dataset)")
    return _task_of(canonical_json(data))


def suite_dataset(suite: str | Suite, *, envs: Sequence[str] | None = None,
                  tasks: Sequence[str] | None = None, mode: str = "inductive") -> MemoryDataset:
    """The samples of a suite (a released name or a folder), optionally some envs or task ids."""
    if mode not in MODES:
        raise ArenaGenError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    read = suite if isinstance(suite, Suite) else read_suite(suite)
    chosen = select_tasks(read, envs, tasks)
    name = str(read.manifest.get("suite", read.path.name))
    return MemoryDataset([task_sample(t, mode) for t in chosen], name=name,
                         location=str(read.path))
