"""``arena-gen verify`` of a stream folder: draw every index again and compare the bytes.

A stream task is a function of (env, env version, level, seed, index, ladder) and of the set of
released worlds it was drawn against (:mod:`arena_gen.train.stream`), and drawing it proves it
(sampler, verifier, acceptance, witness replay, and the ladder when the stream climbed it). So a
stream folder is checked the way ``verify --rebuild`` checks a build: its manifest names the
stream, the stream is drawn again over the same indices, and every task line and the manifest
must be the bytes the draw writes. A changed world, certificate, id, order, count or build fact
is a difference named by task and field; a stream drawn against another set of released suites
(a later arena-gen released more) is said to be so, since its tasks may then differ honestly.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from arena_gen.core.canon import canonical_json
from arena_gen.core.errors import ArenaGenError
from arena_gen.core.suite_io import Suite, read_suite
from arena_gen.core.task import Task
from arena_gen.suite.folder import SuiteFolder, open_suite
from arena_gen.train.stream import SUITE_PREFIX, Drawn, stream, stream_manifest, stream_suite


def is_stream(manifest: dict[str, Any]) -> bool:
    """Whether a manifest is a stream folder's (written by ``arena-gen stream``)."""
    return str(manifest.get("suite", "")).startswith(SUITE_PREFIX)


@dataclass
class StreamReport:
    """What drawing a stream folder again found: per-task and manifest differences."""

    suite: Suite
    env: str
    level: str
    ladder: bool
    checked: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def stream_of(manifest: dict[str, Any], file: str) -> tuple[str, dict[str, Any]]:
    """The env and the ``build.<env>.stream`` entry of a stream folder's manifest (an error
    names the manifest and what is missing)."""
    envs = sorted(manifest.get("counts") or {})
    if len(envs) != 1:
        raise ArenaGenError(f"{file}: a stream folder holds one env; its counts name "
                            f"{envs or 'none'}")
    env = envs[0]
    entry = ((manifest.get("build") or {}).get(env) or {}).get("stream")
    if not isinstance(entry, dict) or not isinstance(entry.get("level"), str):
        raise ArenaGenError(f"{file}: suite {manifest.get('suite')!r} has no build.{env}.stream "
                            f"entry naming its level (not written by arena-gen stream)")
    return env, entry


def _differences(stored: Any, fresh: Any, path: str) -> list[str]:
    """Dotted paths where two JSON values differ (the first few), for a readable failure."""
    if isinstance(stored, dict) and isinstance(fresh, dict):
        out: list[str] = []
        for key in sorted(set(stored) | set(fresh), key=str):
            out += _differences(stored.get(key), fresh.get(key), f"{path}.{key}")
        return out
    return [] if stored == fresh else [path]


def verify_stream(path: str | SuiteFolder, *, jobs: int = 1,
                  on_check: Callable[[Task, bool], None] | None = None) -> StreamReport:
    """Draw a stream folder's tasks again (``jobs`` workers) and list every difference from
    its files; ``on_check(task, ok)`` as each stored task is compared. This is the stream
    kind's verification (:mod:`arena_gen.suite.folder`); it lives here because it draws."""
    folder = open_suite(path)
    # schemas, canonical bytes, hashes: refused before any draw
    suite = read_suite(folder.path, loaded=folder.read)
    manifest = suite.manifest
    file = f"{suite.path}/manifest.json"
    env, entry = stream_of(manifest, file)
    level, ladder = entry["level"], bool(entry.get("ladder", False))
    report = StreamReport(suite, env, level, ladder)
    if manifest["suite"] != stream_suite(level, ladder):
        report.problems.append(f"manifest suite {manifest['suite']!r} is not the stream of level "
                               f"{level!r}{' with its ladder' if ladder else ''} "
                               f"({stream_suite(level, ladder)!r})")
    start = entry.get("start", 0)
    version = (manifest.get("env_versions") or {}).get(env)
    stored = suite.tasks.get(env, [])
    if not isinstance(start, int) or isinstance(start, bool) or start < 0 or not stored:
        report.problems.append(f"build.{env}.stream.start {start!r} with {len(stored)} task(s): "
                               f"nothing to draw")
        return report
    drawn = stream(env, level, int(manifest["seed"]), version=version, start=start,
                   count=len(stored), jobs=jobs, ladder=ladder)
    fresh: list[Drawn] = []
    for d, task in zip(drawn.draws(), stored, strict=True):
        fresh.append(d)
        same = canonical_json(task.to_dict()) == canonical_json(d.task.to_dict())
        if not same:
            where = f"{env}.jsonl line {d.index - start + 1} ({task.id})"
            if task.id != d.task.id:
                report.problems.append(f"{where}: not the task index {d.index} of the stream "
                                       f"draws (that is {d.task.id}, $.id)")
            else:
                fields = _differences(task.to_dict(), d.task.to_dict(), "$")
                report.problems.append(f"{where}: not the task index {d.index} of the stream "
                                       f"draws (differs at {', '.join(fields[:3])})")
        report.checked += 1
        if on_check is not None:
            on_check(task, same)
    expected = stream_manifest(drawn, fresh)
    excluded = f"build.{env}.stream.excluded_sha256"
    for where in _differences(manifest, expected, "$"):
        if where == "$.arena_gen_version":
            continue  # the release that drew it: any release draws the same bytes
        if where == f"$.{excluded}":
            report.problems.append(
                f"manifest {excluded}: drawn against another set of released worlds than this "
                f"arena-gen's ({manifest['build'][env]['stream'].get('excluded_sha256')!r} vs "
                f"{expected['build'][env]['stream']['excluded_sha256']!r}); its tasks may differ "
                f"where a newly released world was drawn")
        else:
            report.problems.append(f"manifest {where[2:]} is not what the draws give")
    return report
