"""The suite-substitution fuzz surface (#26), registered into :data:`fuzz_surfaces.SURFACES`:
an honest 3-task lights suite substituted the ways issue 26 lists (another acceptable attempt of
a task's rejection sampling, duplicated or renamed ids, dropped tasks with counts and calibration
recomputed, manifest names, versions and build stats, shared worlds, duplicate JSON keys,
non-canonical bytes, reordered lines, signatures, forged build-cache entries) plus random
structural edits, most of them refrozen as a careful forger would (every hash, count and the
suite hash recomputed, the files canonical). A case returns ``"error"`` when plain ``verify``
refuses it, ``"ok"`` when the bytes are the honest suite's, ``"forged"`` otherwise.
"""

from __future__ import annotations

import atexit
import copy
import functools
import json
import random
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest import mock

from fuzz_forgery import LAST_FORGED, Record

from arena_gen.core.canon import canonical_json, sha256_of

#: The honest suite: the first 3 lights tasks of lite seed 7 as lights v2 builds them (the
#: version whose rejection sampling test_seed_suite.py pins: task 1 is attempt 1 of its stream,
#: and attempt 7 is acceptable too, the easier reroll a forger picks).
SUITE_VERSIONS = {"lights": 2}
SUITE_COUNT = 3
REROLL = (1, 7)


@functools.cache
def honest_suite() -> tuple[Path, dict[str, bytes], list[Record], dict[str, Any]]:
    """The honest suite (built once per process): its folder, its files' bytes, its task lines
    and its manifest, as ``build`` writes them."""
    from arena_gen.core.suite_io import write_suite
    from arena_gen.suite.build import build_suite

    root = Path(tempfile.mkdtemp(prefix="fuzz-suite-"))
    atexit.register(shutil.rmtree, root, True)
    built = build_suite("lite", 7, ["lights"], counts={"lights": SUITE_COUNT},
                        versions=SUITE_VERSIONS)
    folder = write_suite(root / "suite", built.manifest, built.tasks)
    files = {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}
    tasks = [json.loads(x) for x in files["lights.jsonl"].splitlines()]
    return folder, files, tasks, json.loads(files["manifest.json"])


@functools.cache
def _rerolled() -> Record:
    """Another acceptable attempt of task REROLL[0]'s rejection sampling."""
    from arena_gen.core import registry
    from arena_gen.suite.attempts import try_attempt
    from arena_gen.suite.catalog import preset

    index, attempt = REROLL
    spec = registry.get("lights", SUITE_VERSIONS["lights"])
    tried = try_attempt(spec, "lite", 7, index, attempt, preset("lite", "lights", spec.version))
    assert tried.task is not None
    return tried.task.to_dict()


@functools.cache
def _signing_key() -> tuple[Path, Path, bytes]:
    """A trusted key pair, another (untrusted) key, and the honest suite's signature."""
    from arena_gen.core.signing import generate_key, sign_suite

    folder = honest_suite()[0]
    root = Path(tempfile.mkdtemp(prefix="fuzz-keys-"))
    atexit.register(shutil.rmtree, root, True)
    generate_key(root / "trusted")
    generate_key(root / "other")
    signed = root / "signed"
    shutil.copytree(folder, signed)
    sig = sign_suite(signed, root / "trusted").read_bytes()
    return root / "trusted", root / "other", sig


def _rehash(task: Record) -> None:
    try:
        task["sha256"] = sha256_of({k: v for k, v in task.items() if k != "sha256"})
    except (ValueError, TypeError):
        pass


def _task_objs(tasks: list[Record]) -> list[Any] | None:
    from arena_gen.core.task import Task

    try:
        return [Task.from_dict(t, check_hash=False) for t in tasks]
    except Exception:  # a structurally broken task: no recomputed facts for it
        return None


# The substitutions of issue 26, each an edit of (task lines, manifest) in place.
def _sub_reroll(tasks: list[Record], manifest: dict[str, Any], rng: random.Random) -> None:
    """A task replaced by another acceptable attempt of its rejection sampling (build stats
    fixed up as the forger would)."""
    index, attempt = REROLL
    if index < len(tasks):
        accepted = int(tasks[index]["seed_path"][4])
        tasks[index] = copy.deepcopy(_rerolled())
        build = (manifest.get("build") or {}).get("lights")
        if isinstance(build, dict) and rng.random() < 0.7:
            build["attempts"] = build.get("attempts", 0) + attempt - accepted
            rej = build.setdefault("rejections", {})
            rej["min_steps"] = rej.get("min_steps", 0) + attempt - accepted


def _sub_duplicate(tasks: list[Record], manifest: dict[str, Any], rng: random.Random) -> None:
    """A task duplicated under another task's id, or appended under a new id."""
    src = copy.deepcopy(rng.choice(tasks)) if tasks else None
    if src is None:
        return
    if rng.random() < 0.5 and len(tasks) > 1:
        j = rng.randrange(len(tasks))
        src["id"] = tasks[j]["id"]
        tasks[j] = src
    else:
        src["id"] = f"lights-lite-7-{len(tasks):04d}"
        tasks.append(src)


def _sub_rename(tasks: list[Record], manifest: dict[str, Any], rng: random.Random) -> None:
    """A task renamed: another seed or index in its id, or its seed path edited to match."""
    if not tasks:
        return
    task = rng.choice(tasks)
    what = rng.random()
    if what < 0.4:
        task["id"] = rng.choice(["lights-lite-99-0000", "lights-lite-7-0009",
                                 "lights-challenge-7-0000", "lights-lite-7-0000"])
    else:
        path = list(task["seed_path"])
        pos = rng.randrange(len(path))
        path[pos] = rng.choice([0, 1, 2, 7, 99, path[pos] + 1])
        task["seed_path"] = path


def _sub_drop(tasks: list[Record], manifest: dict[str, Any], rng: random.Random) -> None:
    """A (hard) task dropped, the counts, build facts and calibration recomputed."""
    from arena_gen.suite.build import env_build_facts, suite_calibration

    if not tasks:
        return
    del tasks[-1 if rng.random() < 0.6 else rng.randrange(len(tasks))]
    objs = _task_objs(tasks)
    if objs is not None and rng.random() < 0.8:
        try:  # an earlier structural edit can leave facts no recomputation takes: keep the old
            manifest.setdefault("build", {})["lights"] = env_build_facts(
                [(t, {"min_steps": int(t.seed_path[4])} if int(t.seed_path[4]) else {})
                 for t in objs])
            manifest["calibration"] = suite_calibration("lite", SUITE_VERSIONS,
                                                        {"lights": objs})
        except Exception:  # noqa: BLE001 - the forger's own step, not arena-gen's reading
            pass


def _sub_reorder(tasks: list[Record], manifest: dict[str, Any], rng: random.Random) -> None:
    """Task lines reordered."""
    if len(tasks) > 1:
        i, j = rng.sample(range(len(tasks)), 2)
        tasks[i], tasks[j] = tasks[j], tasks[i]


def _sub_world(tasks: list[Record], manifest: dict[str, Any], rng: random.Random) -> None:
    """Two tasks sharing a world, or a world swapped for another task's."""
    if len(tasks) > 1:
        i, j = rng.sample(range(len(tasks)), 2)
        tasks[i]["world"] = copy.deepcopy(tasks[j]["world"])
        if rng.random() < 0.5:
            tasks[i]["certificate"] = copy.deepcopy(tasks[j]["certificate"])


def _sub_task_structural(tasks: list[Record], manifest: dict[str, Any],
                         rng: random.Random) -> None:
    """A random structural edit of one task (re-hashed by the forger)."""
    from fuzz_surfaces import mutate_one

    mutate_one(tasks, rng)


def _sub_manifest(tasks: list[Record], manifest: dict[str, Any], rng: random.Random) -> None:
    """A manifest field edited: suite name, versions, build stats, calibration, seed."""
    what = rng.choice(["suite", "suite_version", "env_versions", "arena_gen_version", "build",
                       "calibration", "seed", "presets", "schema_version"])
    if what == "suite":
        manifest["suite"] = rng.choice(["challenge", "odyssey-lite", "lite2", "core"])
    elif what == "suite_version":
        manifest["suite_version"] = rng.choice([2, 7, 0])
    elif what == "env_versions":
        manifest["env_versions"] = {"lights": rng.choice([1, 3, 99])}
    elif what == "arena_gen_version":
        manifest["arena_gen_version"] = rng.choice(["9.9.9", "0.0.1", ""])
    elif what == "build":
        build = (manifest.get("build") or {}).get("lights")
        if isinstance(build, dict):
            build[rng.choice(["attempts", "rejections", "min_steps"])] = rng.choice(
                [3, {}, {"min_steps": 0}, {"max": 99, "min": 1}])
    elif what == "calibration":
        rung = next(iter((manifest.get("calibration") or {}).get("lights", {}).get(
            "rungs", {}).values()), None)
        if isinstance(rung, dict):
            rung["rate"] = rng.choice([0.0, 0.5, 1.0])
    elif what == "seed":
        manifest["seed"] = rng.choice([0, 8, 99])
    elif what == "presets":
        presets = (manifest.get("presets") or {}).get("lights")
        if isinstance(presets, dict):
            presets["budget"] = rng.choice([10, 500])
    else:
        manifest["schema_version"] = rng.choice([2, 0])


def _sub_manifest_structural(tasks: list[Record], manifest: dict[str, Any],
                             rng: random.Random) -> None:
    """A random structural edit of the manifest."""
    from fuzz_surfaces import mutate_tree

    tree = mutate_tree(manifest, rng)
    if isinstance(tree, dict):
        manifest.clear()
        manifest.update(tree)


SUBSTITUTIONS: list[Callable[[list[Record], dict[str, Any], random.Random], None]] = [
    _sub_reroll, _sub_duplicate, _sub_rename, _sub_drop, _sub_reorder, _sub_world,
    _sub_task_structural, _sub_task_structural, _sub_manifest, _sub_manifest,
    _sub_manifest_structural]


def _apply(op: Callable[[list[Record], dict[str, Any], random.Random], None],
           tasks: list[Record], manifest: dict[str, Any], rng: random.Random) -> None:
    """One substitution; skipped when an earlier structural edit left nothing it can edit (the
    forger's own step failing is not arena-gen's)."""
    try:
        op(tasks, manifest, rng)
    except (KeyError, TypeError, AttributeError, IndexError, ValueError,
            RecursionError):
        pass


def _write_suite_files(folder: Path, tasks: list[Record], manifest: dict[str, Any],
                       refreeze: bool) -> None:
    """The substituted suite on disk, canonical; with ``refreeze`` every hash, the task map,
    the counts and the suite hash recomputed (a careful forger), else left as they were."""
    from fuzz_surfaces import canonical_or_dumps

    from arena_gen.core.suite_io import suite_hash

    folder.mkdir(parents=True)
    if refreeze:
        for task in tasks:
            _rehash(task)
        try:
            manifest["tasks"] = {str(t.get("id")): t.get("sha256") for t in
                                 sorted(tasks, key=lambda t: str(t.get("id")))}
            manifest["counts"] = {"lights": len(tasks)}
            manifest["suite_sha256"] = suite_hash(manifest["tasks"])
        except (ValueError, TypeError, AttributeError):
            pass
    (folder / "lights.jsonl").write_bytes(b"".join(canonical_or_dumps(t) + b"\n"
                                                   for t in tasks))
    (folder / "manifest.json").write_bytes(canonical_or_dumps(manifest) + b"\n")


def _byte_edit(folder: Path, rng: random.Random) -> None:
    """A duplicate JSON key or non-canonical bytes in a task line or the manifest."""
    name = rng.choice(["lights.jsonl", "manifest.json"])
    path = folder / name
    lines = path.read_bytes().splitlines(keepends=True)
    if not lines:
        return
    i = rng.randrange(len(lines))
    how = rng.choice(["duplicate key", "nested duplicate", "spaces", "crlf", "blank line",
                      "no final newline", "escaped", "reordered keys"])
    line = lines[i]
    if how == "duplicate key" and line.startswith(b"{"):
        lines[i] = rng.choice([b'{"budget":999999,', b'{"id":"lights-lite-7-0000",',
                               b'{"suite":"challenge",']) + line[1:]
    elif how == "nested duplicate":
        lines[i] = line.replace(b'"counts":{', b'"counts":{"lights":9,', 1).replace(
            b'"world":{', b'"world":{"n":2,', 1)
    elif how == "spaces":
        try:
            lines[i] = (json.dumps(json.loads(line), sort_keys=True) + "\n").encode()
        except ValueError:
            return
    elif how == "crlf":
        lines[i] = line.rstrip(b"\n") + b"\r\n"
    elif how == "blank line":
        lines.insert(i, b"\n")
    elif how == "no final newline":
        lines[-1] = lines[-1].rstrip(b"\n")
    elif how == "escaped":
        lines[i] = line.replace(b'"id":"lights', b'"id":"\\u006cights', 1)
    else:
        try:
            doc = json.loads(line)
            lines[i] = (json.dumps(dict(reversed(list(doc.items()))), separators=(",", ":"),
                                   ensure_ascii=False) + "\n").encode()
        except (ValueError, AttributeError):
            return
    path.write_bytes(b"".join(lines))


def _same_as_honest(folder: Path) -> bool:
    """Whether a suite's files are the honest ones' bytes, but for the manifest's
    ``arena_gen_version`` string (the one fact plain verify does not prove, by design: a suite
    built by an older arena-gen verifies; docs/tasks.md, "What plain verify proves")."""
    files = honest_suite()[1]
    names = {p.name for p in folder.iterdir() if p.is_file()} - {"manifest.json.sig"}
    if names != set(files):
        return False
    for name in names:
        data = (folder / name).read_bytes()
        if name == "manifest.json" and data != files[name]:
            try:
                doc = json.loads(data)
                doc["arena_gen_version"] = json.loads(files[name])["arena_gen_version"]
                data = (canonical_json(doc) + "\n").encode()
            except (ValueError, TypeError):
                return False
        if data != files[name]:
            return False
    return True


def _check_task_memo() -> Callable[..., Any]:
    """verify's per-task check, memoised on the task and the manifest fields a task check
    reads (not the task map, counts, build facts or calibration a forger recomputes: the
    suite-wide checks of those run in full every case). An honest task is checked once per
    process, a substituted one in full."""
    from arena_gen.suite import verify

    real = verify.check_task
    memo: dict[str, Any] = _TASK_CHECKS

    def check(task: Any, manifest: dict[str, Any] | None = None, **options: Any) -> Any:
        part = {k: v for k, v in (manifest or {}).items()
                if k not in ("tasks", "suite_sha256", "counts", "build", "calibration")}
        try:  # options (a sealed suite's tree key) are part of what the check depends on
            key = canonical_json([task.to_dict(), part, repr(sorted(options.items()))])
        except (ValueError, TypeError):
            return real(task, manifest, **options)
        if key not in memo:
            memo[key] = real(task, manifest, **options)
        return memo[key]

    return check


_TASK_CHECKS: dict[str, Any] = {}


def suite_substitution_case(work: Path, rng: random.Random) -> str:
    """A substituted copy of the honest suite (issue 26's substitutions, random structural
    edits; hashes, counts and suite hash recomputed 85 % of the time, then written canonically;
    sometimes a byte-level edit, a signature or a build cache): plain ``verify`` (with the
    trusted key when signed) must report a problem, else the bytes must be the honest ones."""
    from fuzz_surfaces import _expect_project_error

    _, _, honest_tasks, honest_manifest = honest_suite()
    roll = rng.random()
    if roll < 0.02:
        return _cache_case(work, rng)
    tasks, manifest = copy.deepcopy(honest_tasks), copy.deepcopy(honest_manifest)
    ops = [rng.choice(SUBSTITUTIONS) for _ in range(rng.randint(1, 2))] if roll < 0.9 else []
    for op in ops:
        _apply(op, tasks, manifest, rng)
    folder = work / "suite"
    _write_suite_files(folder, tasks, manifest, refreeze=rng.random() < 0.85)
    if not ops or rng.random() < 0.1:
        _byte_edit(folder, rng)
    key: dict[str, Any] = {}
    if rng.random() < 0.15:  # signed: the honest suite's signature, or one by another key
        from arena_gen.core.signing import sign_suite

        trusted, other, sig = _signing_key()
        if rng.random() < 0.6:
            (folder / "manifest.json.sig").write_bytes(sig)
        else:  # a forger signs with a key of their own (a suite sign cannot read: unsigned)
            _expect_project_error(lambda: sign_suite(folder, other))
        key["public_key"] = trusted.with_name("trusted.pub")
    outcome = judge_suite(folder, key.get("public_key"))
    if outcome != "forged":
        return outcome
    LAST_FORGED.clear()
    LAST_FORGED.update(ops=[op.__name__ for op in ops] or ["bytes"], signed=bool(key),
                       files={p.name: p.read_bytes()[:300] for p in folder.iterdir()
                              if p.is_file() and p.read_bytes() != honest_suite()[1].get(
                                  p.name)})
    return "forged"


def judge_suite(folder: Path, public_key: Path | None = None) -> str:
    """Plain ``verify`` of a (substituted) 3-task lights suite, with the trusted key when given:
    ``"error"`` when it raises the project's error or reports a problem, else ``"ok"`` when the
    bytes are the honest suite's and ``"forged"`` when they are not."""
    from fuzz_surfaces import _expect_project_error
    from small_suites import preset_counts

    from arena_gen.suite import verify

    key = {} if public_key is None else {"public_key": public_key}
    report: list[Any] = []
    with preset_counts({"lights": SUITE_COUNT}), mock.patch.object(
            verify, "check_task", _check_task_memo()):
        outcome = _expect_project_error(lambda: report.append(verify.verify_suite(folder,
                                                                                  **key)))
    if outcome == "error" or not report[0].ok or report[0].signature_problem is not None:
        return "error"
    return "ok" if _same_as_honest(folder) else "forged"


def _cache_case(work: Path, rng: random.Random) -> str:
    """A build cache holding a forged entry (a rerolled attempt, or a random edit, its checksum
    recomputed): ``build`` must write the honest suite anyway."""
    from fuzz_surfaces import _expect_project_error, mutate_tree

    from arena_gen.core.suite_io import write_suite
    from arena_gen.suite.build import build_suite

    cache = _honest_cache(work / "cache")
    entries = sorted((cache / "tasks" / "lights").glob("*.json"))
    path = rng.choice(entries)
    entry = json.loads(path.read_bytes())
    body = entry["body"]
    if rng.random() < 0.5:
        index, attempt = REROLL
        body["task"] = copy.deepcopy(_rerolled())
        body["attempts"] = attempt + 1
        body["rejections"] = {"min_steps": attempt}
    else:
        tree = mutate_tree(body, rng)
        body = tree if isinstance(tree, dict) else body
        entry["body"] = body
    try:
        entry["checksum"] = sha256_of(body)
    except (ValueError, TypeError):
        pass
    from fuzz_surfaces import canonical_or_dumps

    path.write_bytes(canonical_or_dumps(entry) + b"\n")
    out: list[Path] = []

    def build() -> None:
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            built = build_suite("lite", 7, ["lights"], counts={"lights": SUITE_COUNT},
                                versions=SUITE_VERSIONS, cache=cache)
        out.append(write_suite(work / "built", built.manifest, built.tasks))

    if _expect_project_error(build) == "error":
        return "error"
    if _same_as_honest(out[0]):
        return "ok"
    LAST_FORGED.clear()
    LAST_FORGED.update(ops=["build cache"], entry=str(body)[:300])
    return "forged"


def _honest_cache(folder: Path) -> Path:
    """A copy of an honest build cache of the honest suite (made once per process)."""
    shutil.copytree(_honest_cache_root(), folder)
    return folder


@functools.cache
def _honest_cache_root() -> Path:
    from arena_gen.suite.build import build_suite

    root = Path(tempfile.mkdtemp(prefix="fuzz-cache-"))
    atexit.register(shutil.rmtree, root, True)
    build_suite("lite", 7, ["lights"], counts={"lights": SUITE_COUNT}, versions=SUITE_VERSIONS,
                cache=root)
    return root


def _warm_suite_checks() -> None:
    """Check the honest suite once (fills the per-task memo) and make the cache and keys."""
    from small_suites import preset_counts

    from arena_gen.suite import verify

    _rerolled()
    _signing_key()
    _honest_cache_root()
    with preset_counts({"lights": SUITE_COUNT}), mock.patch.object(
            verify, "check_task", _check_task_memo()):
        report = verify.verify_suite(honest_suite()[0])
    assert report.ok, [c.problem for c in report.checks if not c.ok] + report.manifest_problems


SUBSTITUTION_SURFACES: dict[str, Callable[[Path, random.Random], str]] = {
    "suite substitution (verify)": suite_substitution_case,
}
#: What the surface makes once before its first case (the suite, its checks, keys, a cache).
SUBSTITUTION_FIXTURES: dict[str, tuple[Callable[[], Any], ...]] = {
    "suite substitution (verify)": (honest_suite, _warm_suite_checks),
}
