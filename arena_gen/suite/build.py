"""Build a frozen suite: sample, verify, accept or resample, replay every witness, freeze.

Every task is generated from its own seed stream, independently of the others, so tasks can be
built in any order, by any number of workers, and still give the same bytes. The builder uses
that freedom twice: it starts the longest tasks first (repo first, then by an expected cost per
env and preset) so no core idles at the end while one slow task finishes, then puts the results
back in canonical order; and it can take accepted tasks from a :class:`~.cache.BuildCache`, so
an interrupted or repeated build resumes where it stopped.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena_gen.core import registry
from arena_gen.core.calibration import (
    binding_problems,
    calibration_for,
    reported_problems,
    rung_rates,
)
from arena_gen.core.errors import ArenaGenError, GenerationError
from arena_gen.core.parallel import map_unordered
from arena_gen.core.suite_io import suite_hash
from arena_gen.core.task import Task
from arena_gen.core.version import __version__
from arena_gen.suite.attempts import reason_kind, task_id, try_attempt
from arena_gen.suite.cache import BuildCache, code_fingerprint, entry_key, warn_ignored
from arena_gen.suite.catalog import SUITE_VERSION, preset, resolve
from arena_gen.suite.seal import PRIVATE, Secret


def expected_seconds(env: str, suite: str, version: int | None = None) -> float:
    """The expected cost of one task of ``env`` in ``suite`` (its spec's ``build_seconds``, a
    scheduling estimate only: never the bytes); an unlisted suite counts as 1 s."""
    return float(registry.get(env, version).build_seconds.get(suite, 1.0))


@dataclass
class Generated:
    """One accepted task and what it took to get it (``cached``: read back, not generated)."""

    task: Task
    attempts: int
    rejections: dict[str, int]
    seconds: float
    verify_seconds: float
    cached: bool = False
    cache_problem: str | None = None
    stored: bool = False


def generate_task(env: str, suite: str, suite_seed: int, index: int,
                  config: dict[str, Any] | None = None, version: int | None = None,
                  tree_key: bytes | None = None) -> Generated:
    """Generate, verify and replay one task with ``env`` at ``version`` (default: the newest);
    rejected candidates resample from the task's own stream (of the sealed tree of
    ``tree_key`` when given)."""
    spec = registry.get(env, version)
    config = preset(suite, env, version) if config is None else config
    start = time.perf_counter()
    rejections: Counter[str] = Counter()
    verify_seconds = 0.0
    for attempt in range(int(config.get("max_attempts", 100))):
        tried = try_attempt(spec, suite, suite_seed, index, attempt, config, tree_key)
        verify_seconds += tried.verify_seconds
        if tried.task is None:
            rejections[reason_kind(tried.reason or "")] += 1
            continue
        return Generated(task=tried.task, attempts=attempt + 1, rejections=dict(rejections),
                         seconds=time.perf_counter() - start, verify_seconds=verify_seconds)
    raise GenerationError(f"{task_id(env, suite, suite_seed, index)}: no acceptable candidate in "
                          f"{config.get('max_attempts', 100)} attempts ({dict(rejections)})")


@dataclass(frozen=True)
class Job:
    """One task to build, as handed to a worker (picklable: plain values only)."""

    env: str
    suite: str
    suite_seed: int
    index: int
    version: int
    key: dict[str, Any] | None = None
    cache_dir: str | None = None
    cost: float = 1.0
    #: The worker fills the cache itself (local workers share the cache folder): a task that
    #: finishes while an interrupted build shuts down is then kept, not thrown away.
    worker_stores: bool = False
    #: A sealed build's seed-tree key (``build --secret``; None: the public tree); never shown.
    tree_key: bytes | None = field(default=None, repr=False)


def schedule(jobs: list[Job]) -> list[Job]:
    """The order tasks start in: likely-cached last, envs whose spec says ``schedule_first``
    first, then longest first (ties in canonical order). Output bytes never depend on it; the
    tests shuffle it."""
    first = {j.env: registry.get(j.env, j.version).schedule_first for j in jobs}
    return sorted(jobs, key=lambda j: (j.cost == 0.0, not first[j.env], -j.cost, j.env,
                                       j.index))


def _job(job: Job) -> Generated:
    problem = None
    if job.cache_dir is not None and job.key is not None:
        start = time.perf_counter()
        cached, problem = BuildCache(job.cache_dir).lookup(
            job.key, task_id(job.env, job.suite, job.suite_seed, job.index))
        if cached is not None:
            return Generated(task=cached.task, attempts=cached.attempts,
                             rejections=cached.rejections, seconds=time.perf_counter() - start,
                             verify_seconds=0.0, cached=True)
    gen = generate_task(job.env, job.suite, job.suite_seed, job.index, version=job.version,
                        tree_key=job.tree_key)
    gen.cache_problem = problem
    if job.worker_stores and job.cache_dir is not None and job.key is not None:
        BuildCache(job.cache_dir).store(job.key, gen.task, attempts=gen.attempts,
                                        rejections=gen.rejections, seconds=gen.seconds,
                                        verify_seconds=gen.verify_seconds)
        gen.stored = True
    return gen


def _index(gen: Generated) -> int:
    return int(gen.task.seed_path[3])


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
                on_start: Callable[[str], None] | None = None,
                on_plan: Callable[[list[Job]], None] | None = None,
                executor: str = "local", ray_address: str | None = None,
                versions: dict[str, int] | None = None,
                cache: BuildCache | str | os.PathLike[str] | None = None,
                secret: Secret | None = None) -> BuildResult:
    """Generate every task of a suite (each env at ``versions[env]``, default the newest),
    reusing and filling ``cache`` when given; the result depends on neither ``jobs``, executor,
    schedule nor cache. ``on_start(env)`` fires as each task is handed to a worker and
    ``on_task`` as each finishes (in finishing order); ``on_plan`` sees the schedule first.
    With ``secret`` the suite is sealed: its seed tree comes from the secret and its manifest
    records a commitment to it (never a cache: it would keep the private worlds)."""
    if secret is not None and cache is not None:
        raise ArenaGenError("a sealed build (--secret) uses no build cache: the cache would keep "
                            "its private worlds in a shared folder")
    tree_key = secret.tree_key(suite, suite_seed) if secret is not None else None
    start = time.perf_counter()
    suite, versions = resolve(suite, versions)
    envs = list(envs) if envs else registry.suite_envs(suite)
    version = {env: registry.get(env, versions.get(env)).version for env in envs}
    configs = {env: preset(suite, env, version[env]) for env in envs}
    want = {env: int((counts or {}).get(env, configs[env]["count"])) for env in envs}
    store = cache if isinstance(cache, BuildCache) or cache is None else BuildCache(cache)
    todo: list[Job] = []
    for env in envs:
        spec = registry.get(env, version[env])
        fingerprint = code_fingerprint(spec) if store is not None else None
        for i in range(want[env]):
            key = (entry_key(spec, suite, suite_seed, i, configs[env], fingerprint)
                   if store is not None else None)
            hit = store is not None and key is not None and store.has(key)
            todo.append(Job(env, suite, suite_seed, i, version[env], key=key,
                            cache_dir=str(store.root) if store is not None else None,
                            cost=0.0 if hit else expected_seconds(env, suite, version[env]),
                            worker_stores=executor == "local" and jobs > 1,
                            tree_key=tree_key))
    keys = {(j.env, j.index): j.key for j in todo}
    todo = schedule(todo)
    if on_plan:
        on_plan(todo)
    results: list[Generated] = []
    started = (lambda job: on_start(job.env)) if on_start else None
    for gen in map_unordered(_job, todo, jobs=jobs, executor=executor,
                             ray_address=ray_address, on_submit=started):
        if gen.cache_problem is not None:
            warn_ignored(gen.cache_problem)
        key = keys[(gen.task.env, _index(gen))]
        if store is not None and key is not None and not gen.cached and not gen.stored:
            store.store(key, gen.task, attempts=gen.attempts, rejections=gen.rejections,
                        seconds=gen.seconds, verify_seconds=gen.verify_seconds)
        results.append(gen)
        if on_task:
            on_task(gen)
    rank = {env: n for n, env in enumerate(envs)}
    results.sort(key=lambda g: (rank[g.task.env], _index(g)))
    by_env: dict[str, list[Generated]] = {env: [] for env in envs}
    for gen in results:
        by_env[gen.task.env].append(gen)
    tasks = {env: [g.task for g in gens] for env, gens in by_env.items()}
    hashes = {t.id: t.sha256 for env_tasks in tasks.values() for t in env_tasks}
    facts = {env: env_build_facts([(g.task, g.rejections) for g in gens])
             for env, gens in by_env.items()}
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
        "build": facts,
    }
    calibration = suite_calibration(suite, version, tasks)
    if calibration:
        manifest["calibration"] = calibration
    if secret is not None:
        manifest["sealed"] = secret.manifest_entry(PRIVATE)
    return BuildResult(manifest=manifest, tasks=tasks, seconds=time.perf_counter() - start,
                       per_env_seconds={env: sum(g.seconds for g in gens)
                                        for env, gens in by_env.items()},
                       generated=by_env)


def env_build_facts(done: list[tuple[Task, dict[str, int]]]) -> dict[str, Any]:
    """The manifest's ``build`` facts of one env from its tasks and each one's rejection kinds
    (attempts come from the seed paths), so ``verify`` recomputes them as ``build`` wrote them."""
    return {
        "attempts": sum(int(t.seed_path[4]) + 1 for t, _ in done),
        "rejections": dict(sorted(sum((Counter(r) for _, r in done), Counter()).items())),
        "min_steps": _spread([t.certificate.min_steps for t, _ in done]),
    }


def suite_calibration(suite: str, version: dict[str, int],
                      tasks: dict[str, list[Task]]) -> dict[str, Any]:
    """Per calibrated env: its targets, the ladder's rates over the suite, and what is missed."""
    out = {}
    for env, env_tasks in tasks.items():
        cal = calibration_for(registry.get(env, version[env]), suite)
        if cal is None:
            continue
        rates = rung_rates([t.certificate.facts["ladder"] for t in env_tasks])
        out[env] = {"targets": cal.to_dict(), "rungs": rates,
                    "missed": binding_problems(cal, rates)}
        if cal.resistant:  # every task resists model-free play: draw-level misses are noted
            out[env]["noted"] = reported_problems(cal, rates)
    return out


def uncalibrated(manifest: dict[str, Any]) -> list[str]:
    """Each suite-level calibration target a built manifest misses, prefixed by its env."""
    return [f"{env}: {problem}" for env, row in manifest.get("calibration", {}).items()
            for problem in row["missed"]]


def _spread(values: list[int | None]) -> dict[str, int] | None:
    known = [v for v in values if v is not None]
    if not known:
        return None
    return {"min": min(known), "max": max(known)}
