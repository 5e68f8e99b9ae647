"""The documented Python API (docs/python-api.md): thin, typed entry points over the CLI's own
functions, so a notebook or a training script needs no subprocess and no internal module path.

Each function imports what it wraps when called: ``import arena_gen`` stays cheap.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arena_gen.core.game_env import GameEnv
    from arena_gen.core.protocol import Protocol
    from arena_gen.core.suite_io import Suite
    from arena_gen.core.task import Task

__all__ = ["load_suite", "make_env", "run", "score"]


def load_suite(name_or_dir: str | os.PathLike[str], *, envs: Sequence[str] | None = None,
               task_ids: Sequence[str] | None = None) -> Suite:
    """A released suite by name (``lite``, ``challenge``, ``odyssey-lite``) or a suite folder,
    every hash checked; ``envs``/``task_ids`` read only those tasks (much faster)."""
    from arena_gen.core.suite_io import read_suite

    return read_suite(name_or_dir, envs=envs, task_ids=task_ids)


def make_env(task: Task, protocol: Protocol | None = None) -> GameEnv:
    """The Gymnasium text env of one task (its own env version), as ``arena-gen run`` plays it."""
    from arena_gen.core.registry import make_env as build

    env: GameEnv = build(task, protocol)
    return env


def run(suite: str | os.PathLike[str], agent: str, out: str | os.PathLike[str], *,
        attempts: int = 1, envs: Sequence[str] | None = None,
        tasks: Sequence[str] | None = None, mode: str = "inductive", seed: int = 0,
        jobs: int = 1, agent_config: dict[str, Any] | None = None,
        resume: bool = False) -> Path:
    """Play a suite (or the ``envs``/``tasks`` picked from it) as ``arena-gen run`` does and
    return the finalized run directory, ready for :func:`score`."""
    from arena_gen.runner.run import RunConfig, run_suite

    cfg = RunConfig(suite=str(suite), agent=agent, attempts=attempts, out=str(out),
                    envs=list(envs) if envs else None, tasks=list(tasks) if tasks else None,
                    mode=mode, jobs=jobs, resume=resume, seed=seed, agent_config=agent_config)
    return Path(run_suite(cfg).path)


def score(run_dir: str | os.PathLike[str], *, suite: str | None = None,
          strict: bool = False) -> dict[str, Any]:
    """Judge and score a run directory as ``arena-gen score`` does (it writes findings.jsonl,
    summary.json and summary.csv there) and return the summary."""
    from arena_gen.scoring.score import score_run

    return score_run(Path(run_dir), suite, strict=strict)
