"""The build cache: accepted tasks kept per (seed path, env, versions, preset), so an
interrupted or repeated build resumes instead of starting over.

An entry is one JSON file named by the sha256 of its key: suite, suite seed, env code and task
index (the seed path up to the attempt), env name and version, verifier version, the preset's
hash (without ``count``, which no sampler reads), the arena-gen version, and a fingerprint of the
source files of the env's sampler, verifier, acceptance rule and game (so an edit that forgot to
bump a version cannot serve a stale task). A cached task is never trusted: the entry must carry
its key and a checksum over its content, the task must hash to its recorded sha256 and match the
id and seed path asked for, its attempt count must agree with the seed path, and its witness is
replayed through the current game before it is used. Anything else is a miss with a warning,
and the task is regenerated and the entry rewritten. The cache therefore changes how long a
build takes, never its bytes.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import sys
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena_gen import __version__
from arena_gen.core import registry
from arena_gen.core.canon import canonical_json, sha256_of
from arena_gen.core.errors import ArenaGenError
from arena_gen.core.replay import check_witness
from arena_gen.core.seeds import seed_path
from arena_gen.core.task import Task

#: Bump when the entry layout changes; older entries then simply miss.
CACHE_FORMAT = 1


class CacheWarning(UserWarning):
    """A cache entry was unreadable or failed a check and was ignored (the task is rebuilt)."""


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/arena-gen``, else ``~/.cache/arena-gen`` (the XDG convention)."""
    base = os.environ.get("XDG_CACHE_HOME") or ""
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".cache"
    return root / "arena-gen"


def _module_file(part: Any) -> str | None:
    """The source file behind a spec part (``module:attr`` or an object), without importing it
    when it is a path."""
    if isinstance(part, registry.Lazy):
        part = part.module + ":"
    if isinstance(part, str):
        found = importlib.util.find_spec(part.partition(":")[0])
        return found.origin if found is not None else None
    module = sys.modules.get(getattr(part, "__module__", "") or "")
    return getattr(module, "__file__", None)


def code_fingerprint(spec: registry.EnvSpec) -> str:
    """A sha256 over the source of the modules that decide a task's bytes."""
    digest = hashlib.sha256()
    parts = [spec.sampler, spec.verifier, spec.game, spec.accept]
    if spec.calibration is not None:  # the ladder's agents decide bytes too
        parts += [spec.heuristic, spec.planner, spec.calibration,
                  "arena_gen.suite.ladder:climb", "arena_gen.core.episode:Episode",
                  "arena_gen.core.game_env:GameEnv", "arena_gen.agents.random_agent:RandomAgent",
                  *spec.baselines.values()]
    for file in sorted({f for f in map(_module_file, [p for p in parts if p is not None]) if f}):
        digest.update(Path(file).name.encode("utf-8") + b"\0")
        try:
            digest.update(Path(file).read_bytes())
        except OSError:
            digest.update(b"?")
    return digest.hexdigest()


def verifier_version(spec: registry.EnvSpec) -> int | None:
    """The ``VERIFIER_VERSION`` of the module that holds the env's verifier, if it has one."""
    verify = spec.load("verifier")
    module = sys.modules.get(getattr(verify, "__module__", "") or "")
    value = getattr(module, "VERIFIER_VERSION", None)
    return int(value) if value is not None else None


def entry_key(spec: registry.EnvSpec, suite: str, suite_seed: int, index: int,
              config: dict[str, Any], fingerprint: str | None = None) -> dict[str, Any]:
    """Everything a task's bytes depend on, as a JSON-able dict."""
    return {
        "format": CACHE_FORMAT,
        "arena_gen_version": __version__,
        "suite": suite,
        "seed_path": seed_path(suite_seed, suite, spec.code, index, 0)[:4],
        "env": spec.name,
        "env_version": spec.version,
        "verifier_version": verifier_version(spec),
        "preset_sha256": sha256_of({k: v for k, v in config.items() if k != "count"}),
        "code_sha256": fingerprint if fingerprint is not None else code_fingerprint(spec),
    }


@dataclass(frozen=True)
class CachedTask:
    """A task read back from the cache, with what it took to generate it originally."""

    task: Task
    attempts: int
    rejections: dict[str, int]
    seconds: float
    verify_seconds: float


def warn_ignored(problem: str) -> None:
    """Say that a cache entry was ignored, and why (the task is generated afresh)."""
    warnings.warn(f"ignoring cache entry {problem}; rebuilding that task", CacheWarning,
                  stacklevel=3)


def _checksum(body: dict[str, Any]) -> str:
    return sha256_of(body)


class BuildCache:
    """A folder of cache entries (safe to delete at any time; it only saves time)."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)

    def path(self, key: dict[str, Any]) -> Path:
        """Where the entry for ``key`` lives: ``<root>/tasks/<env>/<sha256 of key>.json``."""
        return self.root / "tasks" / str(key["env"]) / f"{sha256_of(key)}.json"

    def has(self, key: dict[str, Any]) -> bool:
        """Whether an entry file exists (a scheduling hint only; :meth:`load` decides)."""
        return self.path(key).is_file()

    def load(self, key: dict[str, Any], task_id: str) -> CachedTask | None:
        """The checked cached task for ``key``, or None (a bad entry warns and is ignored)."""
        cached, problem = self.lookup(key, task_id)
        if problem is not None:
            warn_ignored(problem)
        return cached

    def lookup(self, key: dict[str, Any], task_id: str) -> tuple[CachedTask | None, str | None]:
        """``(task, None)`` for a good entry, ``(None, None)`` for none, ``(None, why)`` for a
        bad one; it never warns, so a worker process can hand the reason back to the caller."""
        path = self.path(key)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None, None
        except OSError as exc:
            return None, f"{path.name}: unreadable ({exc})"
        try:
            return self._check(json.loads(text), key, task_id), None
        except (ArenaGenError, ValueError, KeyError, TypeError, AttributeError) as exc:
            return None, f"{path.name}: {str(exc) or type(exc).__name__}"

    def _check(self, entry: dict[str, Any], key: dict[str, Any], task_id: str) -> CachedTask:
        body = entry["body"]
        if entry.get("checksum") != _checksum(body):
            raise ValueError("checksum mismatch")
        if body["key"] != key:
            raise ValueError("entry key differs from the one asked for")
        task = Task.from_dict(body["task"], check_hash=True)
        if "sha256" not in body["task"]:
            raise ValueError("task has no sha256")
        if task.id != task_id or list(task.seed_path[:4]) != key["seed_path"]:
            raise ValueError(f"entry holds {task.id} {task.seed_path}, not {task_id}")
        if (task.env, task.env_version) != (key["env"], key["env_version"]):
            raise ValueError("entry holds another env version")
        attempts, rejections = int(body["attempts"]), dict(body["rejections"])
        if attempts != int(task.seed_path[4]) + 1 or sum(rejections.values()) != attempts - 1:
            raise ValueError("attempt count disagrees with the seed path")
        if task.certificate.seconds is not None:
            raise ValueError("cached certificate carries wall-clock seconds")
        check_witness(task)  # never trust a stored plan: replay it through today's game
        return CachedTask(task=task, attempts=attempts, rejections=rejections,
                          seconds=float(body["seconds"]),
                          verify_seconds=float(body["verify_seconds"]))

    def store(self, key: dict[str, Any], task: Task, *, attempts: int,
              rejections: dict[str, int], seconds: float, verify_seconds: float) -> None:
        """Write one entry atomically (a kill mid-write leaves the old entry or none)."""
        body = {"key": key, "task": task.to_dict(), "attempts": attempts,
                "rejections": dict(sorted(rejections.items())), "seconds": seconds,
                "verify_seconds": verify_seconds}
        path = self.path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(canonical_json({"body": body, "checksum": _checksum(body)}) + "\n")
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
