"""One interactive episode appended to a run directory, recorded like any run's episodes.

Repeated plays into one folder add attempts: ``run.json`` (written by :func:`.meta.run_meta`,
the same writer as ``run``) then lists every task played and, in ``task_attempts``, how many
attempts of each were played (replaying one task plans no attempt of the others), so
``arena-gen score`` judges a play folder like any other run, complete when every game ended.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from arena_gen.core.episode import run_episode
from arena_gen.core.errors import ArenaGenError
from arena_gen.core.paths import check_creatable
from arena_gen.core.protocol import DEFAULT_HARNESS
from arena_gen.core.task import Task
from arena_gen.runner.meta import now, run_meta
from arena_gen.runner.run import check_playable
from arena_gen.runner.rundir import TASK_ATTEMPTS, RunDir, check_run_folder, planned_attempts


def play_task(task: Task, agent: Any, *, manifest: dict[str, Any], suite_path: str | Path,
              out: str | os.PathLike[str],
              mode: str = "inductive") -> tuple[RunDir, dict[str, Any]]:
    """Play the next attempt of ``task`` and append it to the run directory ``out``."""
    check_playable([task], suite_path)
    check_creatable(out, "--out")
    check_run_folder(out)  # never mix a play's files into a folder that holds no run
    rundir = RunDir(out)
    with rundir.locked("--out"):  # one writer per folder
        return _play_locked(task, agent, rundir, manifest, suite_path, mode)


def _play_locked(task: Task, agent: Any, rundir: RunDir, manifest: dict[str, Any],
                 suite_path: str | Path, mode: str) -> tuple[RunDir, dict[str, Any]]:
    """:func:`play_task` inside the folder's lock."""
    name = getattr(agent, "name", type(agent).__name__)
    harness = str(getattr(agent, "harness", DEFAULT_HARNESS))
    old = rundir.read_meta() if rundir.exists() else None
    if old is not None:
        if old.get("suite_sha256", manifest["suite_sha256"]) != manifest["suite_sha256"] or (
                (old.get("agent") or {}).get("name", name) != name) or (
                old.get("harness", DEFAULT_HARNESS) != harness):  # one harness: one budget
            raise ArenaGenError(f"{rundir.path} holds a run of another suite, agent or "
                                f"harness; choose another --out")
    if rundir.signed:  # play signs nothing: its lines would fall outside the signature
        raise ArenaGenError(f"{rundir.path} is a signed run (run --sign-key); play into "
                            f"another --out")
    records = rundir.records()  # the chain is checked: a broken one is refused
    if rundir.unchained:
        raise ArenaGenError(f"{rundir.run_json} records no trajectory chain (written by an "
                            f"older arena-gen); play into another --out")
    attempt = sum(1 for r in records if r["task_id"] == task.id)
    record = run_episode(task, agent, mode=mode, attempt=attempt)
    meta = run_meta(manifest, suite_path, [task], agent=name, mode=mode, attempts=attempt + 1,
                    harness=harness)
    meta["started"] = now()
    per_task = {tid: planned_attempts(old, tid) for tid in old.get("tasks", [])} \
        if old is not None else {}
    per_task[task.id] = attempt + 1
    if old is not None:  # merge with the earlier plays in this folder
        played = list(old.get("tasks", []))
        meta["tasks"] = played + ([task.id] if task.id not in played else [])
        meta["envs"] = sorted(set(old.get("envs", [])) | set(meta["envs"]))
        meta["budgets"] = {**old.get("budgets", {}), **meta["budgets"]}
        meta["started"] = old.get("started", meta["started"])
    # each task plans the attempts played of it, so replaying one task leaves the others
    # complete; ``attempts`` (k of Pass@k) is the most of any
    meta[TASK_ATTEMPTS] = dict(sorted(per_task.items()))
    meta["attempts"] = max(per_task.values())
    meta["ended"] = now()
    # the plan grew (a task, an attempt): the lines are chained afresh from the new plan
    rundir.rewrite([*records, record], meta)
    return rundir, record
