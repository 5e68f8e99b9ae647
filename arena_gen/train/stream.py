"""Fresh certified task streams: ``stream(env, level, seed)`` yields tasks one by one.

Each task is sampled, verified, accepted and witness-replayed by the build's own decision
(:func:`arena_gen.suite.attempts.decide`), with the level's preset (a level is a named sampler
preset: ``lite``, ``challenge``, or one of the env's curriculum levels ``L1``, ``L2``, ...;
:mod:`arena_gen.train.levels`) and, when asked, the level's baseline ladder. Task ``i`` of
a stream is a function of (env, env version, level, seed, i, ladder) alone: its attempts draw
from :func:`arena_gen.core.seeds.stream_seed`, a seed tree no suite build shares, so tasks can
be drawn in any order, by any number of workers, and reproduce byte for byte. A candidate
whose world fingerprint is in a released suite is rejected before it is verified (kind
``released``): the next attempt is tried, and the count is kept (:attr:`Stream.rejections`).
"""

from __future__ import annotations

import itertools
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from arena_gen.core import registry
from arena_gen.core.calibration import calibration_for
from arena_gen.core.errors import ArenaGenError, GenerationError
from arena_gen.core.fingerprint import fingerprint
from arena_gen.core.parallel import map_unordered
from arena_gen.core.seeds import attempt_seed, level_code, stream_seed
from arena_gen.core.task import Draft, Task
from arena_gen.suite.attempts import Origin, decide, reason_kind
from arena_gen.suite.catalog import STREAM_PREFIX, SUITES
from arena_gen.train.levels import level_preset, level_version
from arena_gen.train.released import released_fingerprints

#: The suite presets every env has as stream levels (its curriculum levels come on top).
LEVELS = SUITES
#: The rejection kind of a candidate whose world is in a released suite.
RELEASED = "released"
#: Tasks handed out per round when a stream has no end (the workers' queue).
ROUND = 64
#: The ``suite`` of every stream task and folder starts so (owned by the suite catalog, which
#: tells a stream folder from a built one).
SUITE_PREFIX = STREAM_PREFIX


def stream_suite(level: str, ladder: bool = False) -> str:
    """The ``suite`` a stream task records, e.g. ``stream_lite`` or ``stream_l3`` (ids are
    lower case; ``stream_lite_ladder`` when its ladder was climbed: the ladder can reject, so
    it is part of what a task is)."""
    return f"{SUITE_PREFIX}{level.lower()}" + ("_ladder" if ladder else "")


def stream_task_id(env: str, level: str, seed: int, index: int, ladder: bool = False) -> str:
    """A stream task's id, e.g. ``lights-stream_lite-7-0003``; from index 10,000 on the
    seed carries the ten-thousands (``lights-stream_lite-7.1-2345`` is index 12,345), since
    an id ends in four digits."""
    head = str(seed) if index < 10_000 else f"{seed}.{index // 10_000}"
    return f"{env}-{stream_suite(level, ladder)}-{head}-{index % 10_000:04d}"


@dataclass(frozen=True)
class StreamJob:
    """One stream task to draw, as handed to a worker (picklable: plain values only)."""

    env: str
    version: int
    level: str
    seed: int
    index: int
    ladder: bool
    released: frozenset[str]


@dataclass
class Drawn:
    """One stream task and what it took: attempts, rejections by kind (``released``: worlds
    skipped because a released suite holds them) and seconds (kept out of the task)."""

    task: Task
    index: int
    attempts: int
    rejections: dict[str, int]
    seconds: float


def draw(job: StreamJob, config: dict[str, Any] | None = None) -> Drawn:
    """Draw task ``job.index`` of a stream: the first acceptable attempt of its seed tree.
    ``config`` replaces the level's preset (an ablation of a level's knobs on the level's own
    seed tree, ``benchmarks/bench_levels.py --set``); a stream never passes it."""
    start = time.perf_counter()
    spec = registry.get(job.env, job.version)
    if config is None:
        config = level_preset(job.level, job.env, job.version)
    cal = calibration_for(spec, job.level) if job.ladder else None
    shape = spec.load("fingerprint") if spec.fingerprint is not None else None

    def screen(draft: Draft) -> str | None:
        if shape is not None and fingerprint(job.env, shape, draft.world) in job.released:
            return RELEASED
        return None

    root = stream_seed(job.seed, job.level, spec.code, job.index)
    task_id = stream_task_id(job.env, job.level, job.seed, job.index, job.ladder)
    rejections: Counter[str] = Counter()
    limit = int(config.get("max_attempts", 100))
    for attempt in range(limit):
        origin = Origin(id=task_id, suite=stream_suite(job.level, job.ladder),
                        seed_path=[job.seed, level_code(job.level), spec.code, job.index,
                                   attempt],
                        seq=attempt_seed(root, attempt))
        tried = decide(spec, origin, config, cal, screen)
        if tried.task is None:
            rejections[reason_kind(tried.reason or "")] += 1
            continue
        return Drawn(task=tried.task, index=job.index, attempts=attempt + 1,
                     rejections=dict(rejections), seconds=time.perf_counter() - start)
    raise GenerationError(f"{task_id}: no acceptable candidate in {limit} attempts "
                          f"({dict(rejections)})")


@dataclass
class Stream(Iterator[Task]):
    """An iterator over a stream's tasks, in index order, with what drawing them took."""

    env: str
    version: int
    level: str
    seed: int
    start: int = 0
    count: int | None = None
    jobs: int = 1
    ladder: bool = False
    executor: str = "local"
    ray_address: str | None = None
    #: Rejections by kind over every task yielded so far (``released`` among them).
    rejections: Counter[str] = field(default_factory=Counter)
    released: frozenset[str] = frozenset()
    _draws: Iterator[Drawn] | None = None

    @property
    def skipped(self) -> int:
        """How many drawn worlds were skipped because a released suite holds them."""
        return self.rejections[RELEASED]

    def draws(self) -> Iterator[Drawn]:
        """The stream as :class:`Drawn` records (task and facts), in index order."""
        if self.count is None:
            indices: Iterator[int] = itertools.count(self.start)
        else:
            indices = iter(range(self.start, self.start + self.count))
        size = self.count if self.count is not None else max(ROUND, 8 * self.jobs)
        while True:
            batch = list(itertools.islice(indices, size))
            if not batch:
                return
            todo = [StreamJob(self.env, self.version, self.level, self.seed, i, self.ladder,
                              self.released) for i in batch]
            ready: dict[int, Drawn] = {}
            following = batch[0]
            for drawn in map_unordered(draw, todo, jobs=self.jobs, executor=self.executor,
                                       ray_address=self.ray_address):
                ready[drawn.index] = drawn
                while following in ready:
                    done = ready.pop(following)
                    self.rejections.update(done.rejections)
                    yield done
                    following += 1

    def __next__(self) -> Task:
        if self._draws is None:
            self._draws = self.draws()
        return next(self._draws).task


def stream(env: str, level: str, seed: int, *, version: int | None = None, start: int = 0,
           count: int | None = None, jobs: int = 1, ladder: bool = False,
           executor: str = "local", ray_address: str | None = None) -> Stream:
    """The certified task stream of ``env`` (at ``version``; default the version ``level``'s
    suite builds at, :func:`~arena_gen.train.levels.level_version`) at ``level``
    from ``seed``: tasks ``start``, ``start + 1``, ... (``count`` of them, default no end),
    drawn by ``jobs`` workers, never a world of a released suite; ``ladder`` also climbs the
    level's baseline ladder and rejects what its calibration rejects, as a build does."""
    for name, value in (("seed", seed), ("start", start)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ArenaGenError(f"{name} must be a non-negative integer, got {value!r}")
    if count is not None and (isinstance(count, bool) or not isinstance(count, int)
                              or count < 0):
        raise ArenaGenError(f"count must be a non-negative integer, got {count!r}")
    spec = registry.get(env, level_version(level, env, version))
    level_preset(level, env, spec.version)  # an unknown level fails here, not in a worker
    if ladder and level not in LEVELS:
        raise ArenaGenError(f"level {level!r} has no ladder calibration (only "
                            f"{', '.join(LEVELS)} do): bench_levels.py measures its ladder")
    return Stream(env=env, version=spec.version, level=level, seed=seed, start=start,
                  count=count, jobs=jobs, ladder=ladder, executor=executor,
                  ray_address=ray_address, released=released_fingerprints(env))


def stream_manifest(stream: Stream, drawn: list[Drawn]) -> dict[str, Any]:
    """A stream output's manifest, in the suite format (so ``read_suite``, ``run`` and
    ``overlap`` read it): ``suite`` is the stream's (``stream_lite``), ``build`` holds the
    env's draw facts with a ``stream`` entry (level, start, ladder, the excluded suites and the
    hash of their fingerprints: a stream reproduces for the same exclusions)."""
    from arena_gen.core.suite_io import suite_hash
    from arena_gen.core.version import __version__
    from arena_gen.suite.build import env_build_facts
    from arena_gen.suite.catalog import SUITE_VERSION
    from arena_gen.train.released import RELEASED as EXCLUDED
    from arena_gen.train.released import released_digest

    hashes = {d.task.id: d.task.sha256 for d in drawn}
    facts = env_build_facts([(d.task, d.rejections) for d in drawn])
    facts["stream"] = {"level": stream.level, "start": stream.start, "ladder": stream.ladder,
                       "excluded_suites": list(EXCLUDED),
                       "excluded_fingerprints": len(stream.released),
                       "excluded_sha256": released_digest(stream.released)}
    config = level_preset(stream.level, stream.env, stream.version)
    return {
        "schema_version": 1,
        "suite": stream_suite(stream.level, stream.ladder),
        "suite_version": SUITE_VERSION,
        "arena_gen_version": __version__,
        "env_versions": {stream.env: stream.version},
        "seed": stream.seed,
        "presets": {stream.env: {k: v for k, v in config.items() if k != "count"}},
        "counts": {stream.env: len(drawn)},
        "tasks": dict(sorted(hashes.items())),
        "suite_sha256": suite_hash(hashes),
        "build": {stream.env: facts},
    }
