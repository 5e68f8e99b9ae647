"""Suite tasks as inspect samples: one sample per task, carrying the task's id, its suite and the
agent's view only; the judge and the baseline solvers look the task up by id in its suite."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from inspect_ai.dataset import MemoryDataset, Sample

from arena_gen.agents.llm_prompts import build_messages
from arena_gen.core.agent import MODES
from arena_gen.core.errors import ArenaGenError, HashMismatchError
from arena_gen.core.registry import make_env
from arena_gen.core.suite_io import Suite, read_suite
from arena_gen.core.task import Task
from arena_gen.runner.run import select_tasks

#: Metadata keys of a sample: the task id, the suite it is read from (its folder and hash) and
#: the agent's view (mode, env, budget; the first prompt is the sample's input). Never the
#: world, witness, certificate or params: solvers and eval logs see no more than the agent.
TASK_ID_KEY, SUITE_KEY, SUITE_SHA_KEY, MODE_KEY = "task_id", "suite", "suite_sha256", "mode"

#: Suites read by the scorer and solvers, keyed by (folder, suite_sha256): each read once.
_SUITES: dict[tuple[str, str], dict[str, Task]] = {}


def first_prompt(task: Task, mode: str) -> str:
    """The user message of the first turn: what the model sees before it has acted."""
    observation, _ = make_env(task).reset(seed=None)
    messages = build_messages(env=task.env, public=task.public,
                              rules_text=task.rules_text if mode == "with-rules" else None,
                              history=[], observation=observation, window=None,
                              budget=task.budget, version=task.env_version)
    return messages[-1]["content"]


def _remember(read: Suite) -> tuple[str, str]:
    """Keep a read suite's tasks by id for :func:`sample_task`; its (folder, hash) key back."""
    key = (str(read.path), str(read.manifest["suite_sha256"]))
    if key not in _SUITES:
        _SUITES[key] = {t.id: t for t in read.all_tasks()}
    return key


def task_sample(task: Task, mode: str, suite: Suite) -> Sample:
    """One sample: id is the task id; metadata names the suite the judge reads it from."""
    folder, digest = _remember(suite)
    meta: dict[str, Any] = {TASK_ID_KEY: task.id, SUITE_KEY: folder, SUITE_SHA_KEY: digest,
                            MODE_KEY: mode, "env": task.env, "budget": task.budget}
    return Sample(id=task.id, input=first_prompt(task, mode), metadata=meta)


def sample_task(metadata: dict[str, Any]) -> Task:
    """The task a sample names, looked up by id in its suite (read once per process, every hash
    checked); a suite whose hash differs from the one the sample was built from is refused."""
    task_id, folder, digest = (metadata.get(k) for k in (TASK_ID_KEY, SUITE_KEY, SUITE_SHA_KEY))
    if not (isinstance(task_id, str) and isinstance(folder, str) and isinstance(digest, str)):
        raise ArenaGenError("this sample names no arena-gen task and suite "
                            "(not an arena_gen dataset)")
    tasks = _SUITES.get((folder, digest))
    if tasks is None:
        read = read_suite(folder)
        if read.manifest["suite_sha256"] != digest:
            raise HashMismatchError(f"{folder}: suite_sha256 {read.manifest['suite_sha256'][:12]}"
                                    f"... differs from the sample's {digest[:12]}... (the suite "
                                    f"changed since the dataset was built)")
        tasks = _SUITES[_remember(read)]
    if task_id not in tasks:
        raise ArenaGenError(f"no task {task_id!r} in suite {folder}")
    return tasks[task_id]


def suite_dataset(suite: str | Suite, *, envs: Sequence[str] | None = None,
                  tasks: Sequence[str] | None = None, mode: str = "inductive") -> MemoryDataset:
    """The samples of a suite (a released name or a folder), optionally some envs or task ids."""
    if mode not in MODES:
        raise ArenaGenError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    read = suite if isinstance(suite, Suite) else read_suite(suite)
    chosen = select_tasks(read, envs, tasks)
    name = str(read.manifest.get("suite", read.path.name))
    return MemoryDataset([task_sample(t, mode, read) for t in chosen], name=name,
                         location=str(read.path))
