"""Build a frozen suite: sample, verify, accept or resample, replay every witness, freeze.

Every task is generated from its own seed stream, independently of the others, so tasks can be
built in any order, by any number of workers, and still give the same bytes.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import __version__
from ..core import registry
from ..core.errors import GenerationError
from ..core.parallel import map_ordered
from ..core.seeds import attempt_seed, seed_path, task_seed
from ..core.suite_io import suite_hash
from ..core.task import Task
from ..verifiers.replay import check_witness
from .suites import SUITE_VERSION, preset


def task_id(env: str, suite: str, suite_seed: int, index: int) -> str:
    """The stable id of a task, e.g. ``lights-lite-7-0003``."""
    return f"{env}-{suite}-{suite_seed}-{index:04d}"


@dataclass
class Generated:
    """One accepted task and what it took to get it."""

    task: Task
    attempts: int
    rejections: dict[str, int]
    seconds: float
    verify_seconds: float


def _reason_kind(reason: str) -> str:
    return reason.split(" ")[0]


def generate_task(env: str, suite: str, suite_seed: int, index: int,
                  config: dict[str, Any] | None = None, version: int | None = None) -> Generated:
    """Generate, verify and replay one task with ``env`` at ``version`` (default: the newest);
    rejected candidates resample from the task's own stream."""
    spec = registry.get(env, version)
    config = preset(suite, env, version) if config is None else config
    sample, verify = spec.load("sampler"), spec.load("verifier")
    accept = spec.acceptance()
    root = task_seed(suite_seed, suite, spec.code, index)
    start = time.perf_counter()
    rejections: Counter[str] = Counter()
    verify_seconds = 0.0
    for attempt in range(int(config.get("max_attempts", 100))):
        draft = sample(config, attempt_seed(root, attempt))
        cert = verify(draft)
        verify_seconds += cert.seconds or 0.0
        reason = accept(draft, cert)
        if reason is not None:
            rejections[_reason_kind(reason)] += 1
            continue
        cert.seconds = None  # wall-clock time never enters a frozen file (byte-identical rebuilds)
        task = Task(id=task_id(env, suite, suite_seed, index), env=env,
                    env_version=spec.version, suite=suite,
                    seed_path=seed_path(suite_seed, suite, spec.code, index, attempt),
                    params=draft.params, budget=draft.budget, public=draft.public,
                    world=draft.world, rules_text=draft.rules_text, rubric=draft.rubric,
                    certificate=cert)
        check_witness(task)
        return Generated(task=task, attempts=attempt + 1, rejections=dict(rejections),
                         seconds=time.perf_counter() - start, verify_seconds=verify_seconds)
    raise GenerationError(f"{task_id(env, suite, suite_seed, index)}: no acceptable candidate in "
                          f"{config.get('max_attempts', 100)} attempts ({dict(rejections)})")


def _job(args: tuple[str, str, int, int, int]) -> Generated:
    env, suite, suite_seed, index, version = args
    return generate_task(env, suite, suite_seed, index, version=version)


@dataclass
class BuildResult:
    """A built suite in memory: manifest, tasks per env, and timing (kept out of the files)."""

    manifest: dict[str, Any]
    tasks: dict[str, list[Task]]
    seconds: float
    per_env_seconds: dict[str, float] = field(default_factory=dict)
    generated: dict[str, list[Generated]] = field(default_factory=dict)


def build_suite(suite: str, suite_seed: int, envs: Sequence[str] | None = None, *,
                jobs: int = 1, counts: dict[str, int] | None = None,
                on_task: Callable[[Generated], None] | None = None,
                executor: str = "local", ray_address: str | None = None,
                versions: dict[str, int] | None = None) -> BuildResult:
    """Generate every task of a suite (each env at ``versions[env]``, default the newest); the
    result depends on neither ``jobs`` nor executor."""
    start = time.perf_counter()
    envs = list(envs) if envs else registry.names()
    version = {env: registry.get(env, (versions or {}).get(env)).version for env in envs}
    configs = {env: preset(suite, env, version[env]) for env in envs}
    want = {env: int((counts or {}).get(env, configs[env]["count"])) for env in envs}
    jobs_list = [(env, suite, suite_seed, i, version[env]) for env in envs
                 for i in range(want[env])]
    results: list[Generated] = []
    for gen in map_ordered(_job, jobs_list, jobs=jobs, executor=executor,
                           ray_address=ray_address):
        results.append(gen)
        if on_task:
            on_task(gen)
    by_env: dict[str, list[Generated]] = {env: [] for env in envs}
    for gen in results:
        by_env[gen.task.env].append(gen)
    tasks = {env: [g.task for g in gens] for env, gens in by_env.items()}
    hashes = {t.id: t.sha256 for env_tasks in tasks.values() for t in env_tasks}
    build_facts = {
        env: {
            "attempts": sum(g.attempts for g in gens),
            "rejections": dict(sorted(sum((Counter(g.rejections) for g in gens),
                                          Counter()).items())),
            "min_steps": _spread([g.task.certificate.min_steps for g in gens]),
        }
        for env, gens in by_env.items()
    }
    manifest = {
        "schema_version": 1,
        "suite": suite,
        "suite_version": SUITE_VERSION,
        "arena_gen_version": __version__,
        "env_versions": version,
        "seed": suite_seed,
        "presets": {env: {k: v for k, v in configs[env].items() if k != "count"}
                    for env in envs},
        "counts": {env: len(tasks[env]) for env in envs},
        "tasks": dict(sorted(hashes.items())),
        "suite_sha256": suite_hash(hashes),
        "build": build_facts,
    }
    return BuildResult(manifest=manifest, tasks=tasks, seconds=time.perf_counter() - start,
                       per_env_seconds={env: sum(g.seconds for g in gens)
                                        for env, gens in by_env.items()},
                       generated=by_env)


def _spread(values: list[int | None]) -> dict[str, int] | None:
    known = [v for v in values if v is not None]
    if not known:
        return None
    return {"min": min(known), "max": max(known)}
