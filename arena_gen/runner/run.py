"""Run an agent over a suite: many (task, attempt) episodes, in parallel, resumably."""

from __future__ import annotations

import datetime as dt
import platform
import subprocess
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from .. import __version__
from ..agents.registry import make_agent
from ..core.errors import ArenaGenError
from ..core.redact import public_url
from ..core.suite_io import Suite, read_suite
from ..core.task import Task
from .episode import run_episode
from .rundir import RunDir

#: Agent options recorded although their names look like secrets (``--max-tokens``).
PUBLIC_CONFIG_KEYS = ("max_tokens", "max_prompt_tokens")
PACKAGES = ("numpy", "scipy", "python-sat", "z3-solver", "gymnasium", "jsonschema", "httpx")


@dataclass
class RunConfig:
    """Everything that defines a run (recorded in run.json; secrets never included)."""

    suite: str
    agent: str
    attempts: int = 1
    out: str = "runs/run"
    envs: Sequence[str] | None = None
    tasks: Sequence[str] | None = None
    mode: str = "inductive"
    jobs: int = 1
    executor: str = "local"
    resume: bool = False
    seed: int = 0
    agent_config: dict[str, Any] | None = None
    ray_address: str | None = None


def package_versions() -> dict[str, str]:
    """Versions of arena-gen and the packages that decide its results."""
    out = {"arena-gen": __version__, "python": platform.python_version()}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "absent"
    return out


def git_revision() -> str | None:
    """The checkout's commit when arena-gen runs from a git checkout, else None."""
    here = Path(__file__).resolve().parent
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True,
                             text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    return out.stdout.strip() or None


def select_tasks(suite: Suite, envs: Sequence[str] | None,
                 task_ids: Sequence[str] | None) -> list[Task]:
    """The suite's tasks filtered by env and id, in suite order."""
    tasks = suite.all_tasks()
    if envs:
        unknown = sorted(set(envs) - set(suite.tasks))
        if unknown:
            raise ArenaGenError(f"suite has no env {unknown[0]!r}; it has {sorted(suite.tasks)}")
        tasks = [t for t in tasks if t.env in envs]
    if task_ids:
        known = {t.id for t in tasks}
        missing = [t for t in task_ids if t not in known]
        if missing:
            raise ArenaGenError(f"no task {missing[0]!r} in the selection")
        tasks = [t for t in tasks if t.id in set(task_ids)]
    return tasks


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def _play(args: tuple[Task, str, dict[str, Any], str, int, int]) -> dict[str, Any]:
    task, agent_name, agent_config, mode, attempt, seed = args
    agent = make_agent(agent_name, task.env, agent_config)
    return run_episode(task, agent, mode=mode, attempt=attempt, run_seed=seed)


def run_suite(cfg: RunConfig,
              on_episode: Callable[[dict[str, Any]], None] | None = None) -> RunDir:
    """Play every pending (task, attempt) of a run and leave a finalized run directory."""
    suite = read_suite(cfg.suite)
    tasks = select_tasks(suite, cfg.envs, cfg.tasks)
    rundir = RunDir(cfg.out)
    meta = {
        "suite": suite.manifest["suite"], "suite_path": str(suite.path),
        "suite_sha256": suite.manifest["suite_sha256"],
        "agent": {"name": cfg.agent, "config": _public_config(cfg.agent_config)},
        "mode": cfg.mode, "attempts": cfg.attempts, "seed": cfg.seed,
        "envs": sorted({t.env for t in tasks}), "tasks": [t.id for t in tasks],
        "budgets": {t.id: t.budget for t in tasks},
        "executor": cfg.executor, "jobs": cfg.jobs,
        "package_versions": package_versions(), "git_revision": git_revision(),
    }
    if rundir.exists():
        if not cfg.resume:
            raise ArenaGenError(f"{rundir.path} already holds a run; pass --resume to continue "
                                f"it or choose another --out")
        old = rundir.read_meta()
        for key in ("suite_sha256", "agent", "mode", "attempts", "seed", "tasks"):
            if _comparable(key, old.get(key)) != _comparable(key, meta[key]):
                raise ArenaGenError(f"--resume: {key} differs from the run in {rundir.path} "
                                    f"({old.get(key)!r} vs {meta[key]!r})")
        meta["started"] = old.get("started", _now())
        meta["resumed"] = [*old.get("resumed", []), _now()]
    else:
        meta["started"] = _now()
    rundir.write_meta(meta)
    rundir.repair()
    order = [(t.id, a) for t in tasks for a in range(cfg.attempts)]
    done = rundir.finished()
    by_id = {t.id: t for t in tasks}
    pending = [(by_id[tid], cfg.agent, dict(cfg.agent_config or {}), cfg.mode, a, cfg.seed)
               for tid, a in order if (tid, a) not in done]
    for record in _execute(pending, cfg):
        rundir.append(record)
        if on_episode:
            on_episode(record)
    rundir.finalize(order)
    meta["ended"] = _now()
    rundir.write_meta(meta)
    return rundir


def _execute(pending: list[Any], cfg: RunConfig) -> Any:
    """Yield finished episode records as they complete, on the chosen executor."""
    if cfg.executor == "ray":
        from .ray_executor import execute_ray

        yield from execute_ray(_play, pending, cfg.jobs, cfg.ray_address)
        return
    if cfg.executor != "local":
        raise ArenaGenError(f"unknown executor {cfg.executor!r}; choose local or ray")
    if cfg.agent == "llm":  # network-bound: asyncio tasks sharing one connection limit
        from .async_exec import execute_async

        yield from execute_async(pending, cfg.jobs)
        return
    if cfg.jobs <= 1 or len(pending) <= 1:
        for args in pending:
            yield _play(args)
        return
    with ProcessPoolExecutor(max_workers=cfg.jobs) as pool:
        queue = list(pending)
        running: set[Future[dict[str, Any]]] = set()
        while queue or running:
            while queue and len(running) < 2 * cfg.jobs:
                running.add(pool.submit(_play, queue.pop(0)))
            finished, running = wait(running, return_when=FIRST_COMPLETED)
            for fut in finished:
                yield fut.result()


#: Agent options that may change on --resume (they affect how, not what, the agent plays).
OPERATIONAL_KEYS = ("timeout", "retries", "backoff", "max_connections", "max_reply_chars")


def _comparable(key: str, value: Any) -> Any:
    """What --resume compares: the agent without its operational options."""
    if key != "agent" or not isinstance(value, dict):
        return value
    config = {k: v for k, v in (value.get("config") or {}).items() if k not in OPERATIONAL_KEYS}
    return {**value, "config": config}


def _public_config(config: dict[str, Any] | None) -> dict[str, Any]:
    """Agent config as recorded: secret-looking options dropped, URLs without credentials."""
    return {k: public_url(v) if isinstance(v, str) and k.lower().endswith("url") else v
            for k, v in (config or {}).items()
            if (k in PUBLIC_CONFIG_KEYS
                or not any(s in k.lower() for s in ("key", "token", "secret", "password")))
            and not callable(v)}


def summarize(records: list[dict[str, Any]],
              tasks: dict[str, Task] | None = None) -> dict[str, Any]:
    """Per-env counts for the end-of-run table; with ``tasks``, success = every rubric item met
    (the judge's verdict, as the scorer counts it), else the env's own success flag."""
    from ..scoring.policy import is_perfect
    from ..scoring.score import judge_record

    out: dict[str, Any] = {}
    for rec in records:
        env = out.setdefault(rec["env"], {"episodes": 0, "success": 0, "infra_error": 0,
                                          "turns": 0, "seconds": 0.0})
        env["episodes"] += 1
        task = (tasks or {}).get(rec["task_id"])
        if task is not None:
            ok = is_perfect(judge_record(task, rec)["findings"], [r.id for r in task.rubric])
        else:
            ok = bool(rec["success"])
        env["success"] += ok
        env["infra_error"] += rec["end_reason"] == "infra_error"
        env["turns"] += rec["steps"]
        env["seconds"] += rec.get("seconds", 0.0)
    return out
