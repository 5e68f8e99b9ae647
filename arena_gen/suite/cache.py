"""The build cache: accepted tasks kept per (seed path, env, versions, preset), so an
interrupted or repeated build resumes instead of starting over.

An entry is one JSON file named by the sha256 of its key: suite, suite seed, env code and task
index (the seed path up to the attempt), env name and version, verifier version, the preset's
hash (without ``count``, which no sampler reads), the arena-gen version, and a fingerprint of
the code (:func:`code_fingerprint`): a sha256 over the relative path and bytes of every ``.py``
file of the installed ``arena_gen`` package, plus every ``.py`` file of the top-level package of
any env part that lives outside it (a plugin). Any edit to code a build can execute -- a helper
module the game imports, not only the files a spec names -- therefore misses, even when nobody
bumped a version; the fingerprint is computed once per process. A cached task is never trusted:
the entry must carry its key and a checksum over its content, the task must hash to its recorded
sha256 and match the id and seed path asked for, its attempt count must agree with the seed
path, its witness is replayed through the current game, and it is re-derived from its seed
path before it is used (:func:`rederived`): the sampler at that path must give back its draft,
and every earlier attempt of its stream is decided again exactly as ``build`` decides it
(sampler, verifier, acceptance, ladder) and must be rejected with the kinds the entry claims.
What an entry saves is the accepted attempt's verifier run and baseline ladder (its certificate
is taken from the entry; ``verify`` re-proves it). Anything else is a miss with a warning, and
the task is regenerated and the entry rewritten. An entry arena-gen wrote therefore changes how
long a build takes, never its bytes; a forged one can change only the accepted attempt's
certificate or ladder, which plain ``verify`` re-derives and refuses.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib.util
import json
import os
import secrets
import sys
import tempfile
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena_gen.core import registry
from arena_gen.core.canon import canonical_json, sha256_of
from arena_gen.core.errors import ArenaGenError
from arena_gen.core.replay import check_witness
from arena_gen.core.seeds import seed_path
from arena_gen.core.task import Task
from arena_gen.core.version import __version__

#: Bump when the entry layout changes; older entries then simply miss.
CACHE_FORMAT = 1


class CacheWarning(UserWarning):
    """A cache entry was unreadable or failed a check and was ignored (the task is rebuilt)."""


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/arena-gen``, else ``~/.cache/arena-gen`` (the XDG convention)."""
    base = os.environ.get("XDG_CACHE_HOME") or ""
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".cache"
    return root / "arena-gen"


#: The installed ``arena_gen`` package: every build executes code from it.
PACKAGE_ROOT = Path(__file__).resolve().parent.parent

#: Stands in for code that is not on disk: such tasks are cached for this process only.
_PROCESS_NONCE = secrets.token_hex(16)


def _part_modules(value: Any, named: set[str], held: set[str]) -> None:
    """Collect the modules behind a spec field into ``named`` (lazy parts, read without
    importing) and ``held`` (objects), through the mappings, lists and tuples a spec nests them
    in; plain values (names, numbers, suite lists) name no code."""
    if isinstance(value, registry.Lazy):
        named.add(value.module)
        return
    if isinstance(value, Mapping):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        for item in value:
            _part_modules(item, named, held)
    elif not isinstance(value, (str, int, float)) and isinstance(
            getattr(value, "__module__", None), str):
        held.add(value.__module__)


def _package_root(name: str) -> list[Path] | None:
    """Where the top-level package (or single module) ``name`` lives: its folders, its file,
    ``[]`` for a built-in module, or None when it is not on disk."""
    try:
        found = importlib.util.find_spec(name)
    except (ImportError, ValueError):  # ``__main__`` run as a script has no spec
        found = None
    if found is not None and found.submodule_search_locations:
        return sorted(Path(p).resolve() for p in found.submodule_search_locations)
    if found is not None and found.has_location and found.origin:
        return [Path(found.origin).resolve()]
    if found is not None and found.origin in ("built-in", "frozen"):
        return []
    file = getattr(sys.modules.get(name), "__file__", None)
    return [Path(file).resolve()] if file else None


def source_roots(spec: registry.EnvSpec) -> list[Path]:
    """The folders (or single files) whose ``.py`` files a build of ``spec`` can execute:
    ``arena_gen`` itself, then the top-level package of each part that lives elsewhere (a
    plugin); LookupError when an object's module is not on disk."""
    named: set[str] = set()
    held: set[str] = set()
    _part_modules([getattr(spec, f.name) for f in dataclasses.fields(spec)], named, held)
    named.add(spec.package)  # the declaring package: its helpers run though no part names them
    roots = [PACKAGE_ROOT]
    for top in sorted({m.split(".")[0] for m in named | held} - {"arena_gen"}):
        found = _package_root(top)
        if found is None and any(m.split(".")[0] == top for m in held):
            raise LookupError(f"the source of {top!r} is not on disk")
        # a lazy part naming no module has no code to hash (loading it fails anyway)
        roots += [r for r in found or [] if r not in roots]
    return roots


@functools.cache
def tree_sha256(root: Path) -> str:
    """A sha256 over the relative path and bytes of every ``.py`` file under ``root`` (sorted;
    ``__pycache__`` and hidden folders skipped), or of ``root`` itself when it is a file;
    cached, since the code a process runs does not change under it."""
    digest = hashlib.sha256()
    if root.is_file():
        files = [root]
    else:
        files = sorted((f for f in root.rglob("*.py")
                        if not any(p == "__pycache__" or p.startswith(".")
                                   for p in f.relative_to(root).parts[:-1])),
                       key=lambda f: f.relative_to(root).as_posix())
    for file in files:
        name = file.name if file == root else file.relative_to(root).as_posix()
        data = file.read_bytes()
        digest.update(f"{name}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def code_fingerprint(spec: registry.EnvSpec, roots: Sequence[Path] | None = None) -> str:
    """A sha256 over every ``.py`` file a build of ``spec`` can execute (``roots``, default
    :func:`source_roots`), so an edit anywhere in that code misses the cache."""
    try:
        found = list(source_roots(spec)) if roots is None else list(roots)
    except LookupError as exc:
        warnings.warn(f"{exc}, so tasks of env {spec.name!r} are cached for this process only",
                      CacheWarning, stacklevel=2)
        return f"unlocated-{_PROCESS_NONCE}"
    digest = hashlib.sha256()
    for root in found:
        digest.update(f"{root.name}\0{tree_sha256(Path(root))}\n".encode())
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


def rederived(task: Task, rejections: dict[str, int]) -> None:
    """Raise unless the seed path gives back the cached task: the sampler re-run at it must give
    its draft, and every earlier attempt of its stream, decided again as ``build`` decides it,
    must be rejected with the rejection kinds the entry claims (a forged entry for a rerolled,
    easier attempt fails here)."""
    from arena_gen.suite.attempts import earlier_attempts
    from arena_gen.suite.derived import derived_problem

    problem = derived_problem(task)
    if problem is not None:
        raise ValueError(f"not what its seed path gives: {problem}")
    problem, fresh = earlier_attempts(task)
    if problem is not None:
        raise ValueError(problem)
    if fresh != rejections:
        raise ValueError(f"claims rejections {rejections}, its earlier attempts give {fresh}")


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
        rederived(task, rejections)
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
