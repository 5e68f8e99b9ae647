"""Re-prove a frozen suite: schemas, hashes, every certificate re-derived, witnesses replayed.

Tasks are re-proved longest first (repo, then by an expected verifier cost per env and suite)
so that every core stays busy to the end; the report lists them in the suite's order.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from arena_gen.core import registry
from arena_gen.core.calibration import calibration_for
from arena_gen.core.canon import sha256_of
from arena_gen.core.errors import ArenaGenError, RegistryError, VerificationError
from arena_gen.core.parallel import map_unordered
from arena_gen.core.replay import check_witness
from arena_gen.core.suite_io import Suite, jsonl_text, manifest_text, read_suite
from arena_gen.core.task import Task
from arena_gen.suite import catalog, resistance
from arena_gen.suite.attempts import earlier_attempts, task_id
from arena_gen.suite.build import env_build_facts
from arena_gen.suite.catalog import SUITE_VERSION, SUITES
from arena_gen.suite.derived import derived_problem
from arena_gen.suite.folder import Kind, SuiteFolder, open_suite
from arena_gen.suite.importer import (
    IMPORT_SUITE_VERSION,
    format_problems,
    pin_problems,
    source_problems,
)
from arena_gen.suite.ladder import climb
from arena_gen.suite.seal import (
    PublicSuite,
    Secret,
    commitment_problems,
    public_problems,
    read_public,
    tree_key_for,
)


def verify_seconds(env: str, version: Any, suite: str) -> float:
    """Verifier seconds for one task of ``env`` at ``version`` in ``suite`` (its spec's
    ``verify_seconds``, 1 s when unlisted or unknown): it orders work and sizes progress only."""
    try:
        spec = registry.get(env, None if version is None else int(version))
    except (ArenaGenError, TypeError, ValueError):  # an unknown env fails its own check later
        return 1.0
    return float(spec.verify_seconds.get(suite, 1.0))


def expected_verify_seconds(task: Task) -> float:
    """Verifier seconds for one task (see :func:`verify_seconds`)."""
    return verify_seconds(task.env, task.env_version, task.suite)


def verify_order(tasks: list[Task]) -> list[Task]:
    """The order tasks are re-proved in: envs whose spec says ``schedule_first``, then the
    longest expected first."""
    def first(t: Task) -> bool:
        try:
            return registry.for_task(t).schedule_first
        except ArenaGenError:
            return False

    return sorted(tasks, key=lambda t: (not first(t), -expected_verify_seconds(t), t.env, t.id))


@dataclass
class TaskCheck:
    """The outcome of re-proving one task."""

    task_id: str
    ok: bool
    problem: str | None = None
    seconds: float = 0.0
    #: The rejection kinds of the attempts before the task's own (re-run), for a preset task.
    rejections: dict[str, int] | None = None


@dataclass
class SuiteReport:
    """All task checks of a suite, plus rebuild comparison when asked for."""

    suite: Suite
    checks: list[TaskCheck] = field(default_factory=list)
    rebuild_problems: list[str] = field(default_factory=list)
    manifest_problems: list[str] = field(default_factory=list)
    #: The detached signature's problem when one was checked (None: it verifies).
    signature_problem: str | None = None
    #: The key id of the trusted key the signature was checked against, when it was.
    signed_by: str | None = None

    @property
    def ok(self) -> bool:
        return (all(c.ok for c in self.checks) and not self.rebuild_problems
                and not self.manifest_problems and self.signature_problem is None)


def _comparable(cert: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in cert.items() if k not in ("seconds", "ladder", "resistance")}


def ladder_problem(task: Task, spec: registry.EnvSpec) -> str | None:
    """Replay the task's baseline ladder and name the first rung that differs, or None."""
    stored = task.certificate.facts.get("ladder")
    cal = calibration_for(spec, task.suite)
    if stored is None and "resistance" in task.certificate.facts:
        return "certificate has resistance facts but no baseline ladder"
    if stored is None:
        return (f"certificate has no baseline ladder; {spec.name} v{spec.version} in suite "
                f"{task.suite!r} is calibrated") if cal is not None else None
    if cal is None:
        return (f"certificate has a baseline ladder but {spec.name} v{spec.version} has no "
                f"calibration for suite {task.suite!r}")
    fresh = climb(task, cal)
    for rung in sorted(set(stored) | set(fresh)):
        if stored.get(rung) != fresh.get(rung):
            return (f"certificate.ladder.{rung}: stored {_short(stored.get(rung))}, "
                    f"replayed {_short(fresh.get(rung))}")
    if not cal.resistant:
        if "resistance" in task.certificate.facts:
            return (f"certificate has resistance facts but the {task.suite!r} calibration of "
                    f"{spec.name} v{spec.version} does not ask for them")
        return cal.task_problem(fresh)
    resisted = resistance.record(fresh, resistance.random_bound(task))
    stored_res = task.certificate.facts.get("resistance")
    if stored_res != resisted:
        return (f"certificate.resistance: stored {_short(stored_res)}, "
                f"recomputed {_short(resisted)}")
    return cal.task_problem(fresh, resisted["random"]["bound"])


def check_task(task: Task, manifest: dict[str, Any] | None = None,
               tree_key: bytes | None = None) -> TaskCheck:
    """Re-derive a task from its seed path (in the sealed tree of ``tree_key`` when given),
    re-run the env's verifier and replay its witness; report the first broken fact."""
    try:
        spec = registry.for_task(task)
    except RegistryError as exc:
        return TaskCheck(task.id, False, str(exc))
    problem = derived_problem(task, manifest, tree_key) or seed_problem(task, manifest)
    if problem is not None:
        return TaskCheck(task.id, False, problem)
    try:
        fresh = spec.load("verifier")(task)
        stored = _comparable(task.certificate.to_dict())
        derived = _comparable(fresh.to_dict())
        for key in sorted(set(stored) | set(derived)):
            if stored.get(key) != derived.get(key):
                return TaskCheck(task.id, False,
                                 f"certificate.{key}: stored {_short(stored.get(key))}, "
                                 f"verifier says {_short(derived.get(key))}",
                                 fresh.seconds or 0.0)
        reason = spec.acceptance()(task, fresh)
        if reason is not None:
            return TaskCheck(task.id, False, f"no longer acceptable: {reason}")
        check_witness(task)
        problem = ladder_problem(task, spec)
        if problem is not None:
            return TaskCheck(task.id, False, problem)
        rejections = None
        if task.suite in SUITES:  # pin the attempt index: every earlier attempt is rejected
            problem, rejections = earlier_attempts(task, tree_key)
            if problem is not None:
                return TaskCheck(task.id, False, problem)
    except VerificationError as exc:
        return TaskCheck(task.id, False, str(exc))
    return TaskCheck(task.id, True, None, fresh.seconds or 0.0, rejections)


def seed_problem(task: Task, manifest: dict[str, Any] | None) -> str | None:
    """Whether the task's id is the one its seed path gives (suite, seed, env, index), and its
    suite and env version are the manifest's (a preset task only in that preset's suite)."""
    path = [int(v) for v in task.seed_path]
    expected = task_id(task.env, task.suite, path[0], path[3])
    if task.id != expected:
        return f"id {task.id} is not the id its seed path {path} gives ({expected})"
    if manifest is None:
        return None
    name = manifest.get("suite")
    if task.suite in SUITES and name != task.suite:
        return f"suite {task.suite!r} task in a suite whose manifest says {name!r}"
    if task.suite not in SUITES and name in SUITES:
        return (f"suite {task.suite!r} task in a suite whose manifest names the preset "
                f"{name!r}")
    listed = (manifest.get("env_versions") or {}).get(task.env)
    if listed != task.env_version:
        return (f"env_version {task.env_version} differs from the manifest's env_versions."
                f"{task.env} ({listed!r})")
    return None


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


@dataclass(frozen=True)
class VerifyOptions:
    """What ``verify`` was asked to check beyond the tasks (each applies to some kinds)."""

    rebuild: bool = False
    jobs: int = 1
    public_key: str | os.PathLike[str] | None = None
    signature_file: str | os.PathLike[str] | None = None
    sources: tuple[str | os.PathLike[str], ...] = ()
    allow_unpinned: bool = False
    secret: Secret | None = None
    public: str | os.PathLike[str] | None = None


def refused_options(kind: Kind, options: VerifyOptions) -> str | None:
    """Why ``options`` do not apply to a folder of ``kind`` (a usage error), or None."""
    if kind is Kind.SEALED_PUBLIC and (options.rebuild or options.public is not None
                                       or options.secret is not None or options.sources):
        return ("SUITE is a public copy: it verifies on its own (schemas, hashes, ids, counts, "
                "budgets, intros, a signature); check it against the private suite with verify "
                "PRIVATE --secret FILE --public PUBLIC")
    if kind is Kind.STREAM and (options.public is not None or options.secret is not None
                                or options.sources or options.allow_unpinned):
        return ("SUITE is a stream folder (arena-gen stream): it is verified by drawing its "
                "tasks again; --sources, --allow-unpinned, --secret and --public do not apply")
    return None


def signature_first(folder: SuiteFolder, options: VerifyOptions) -> tuple[str | None, str | None]:
    """``(signed_by, problem)`` of the detached signature, checked before any task is read or
    re-proved (a forged suite costs no re-proving): ``(None, None)`` without a key."""
    if options.public_key is None:
        return None, None
    from arena_gen.core.signing import check_signature, public_key_id

    signed_by = public_key_id(options.public_key)  # an unusable key raises first
    return signed_by, check_signature(folder.path, options.public_key, options.signature_file,
                                      loaded=folder.read)


def verify_built(folder: SuiteFolder, options: VerifyOptions, **events: Any) -> SuiteReport:
    """A suite built from a preset: every task re-proved, every earlier attempt re-decided,
    the preset's counts and build facts, and with ``rebuild`` the bytes of a fresh build."""
    return _reprove(folder, options, **events)


def verify_imported(folder: SuiteFolder, options: VerifyOptions, **events: Any) -> SuiteReport:
    """An imported suite: every task re-proved and re-derived from its pinned source entry,
    the pins checked against its own files (and ``sources``, the released files); it has no
    seed, so ``rebuild`` is refused."""
    return _reprove(folder, options, **events)


def verify_sealed_private(folder: SuiteFolder, options: VerifyOptions,
                          **events: Any) -> SuiteReport:
    """The private half of a sealed suite: re-proved like a built one from the tree of its
    ``secret``, and with ``public`` its public copy's lines and commitments opened."""
    if options.secret is None:
        tree_key_for(folder.manifest, None, folder.path)  # raises: the secret is needed
    return _reprove(folder, options, **events)


def verify_folder(folder: SuiteFolder, options: VerifyOptions, **events: Any) -> SuiteReport:
    """The verification of a folder's own kind (a public copy: :func:`verify_public_copy`;
    a stream: ``arena_gen.train.stream_check.verify_stream``, which draws from ``train``)."""
    by_kind = {Kind.BUILT: verify_built, Kind.IMPORTED: verify_imported,
               Kind.SEALED_PRIVATE: verify_sealed_private}
    if folder.kind not in by_kind:
        raise ArenaGenError(f"{folder.path}: a {folder.kind.value} suite is verified on its own")
    return by_kind[folder.kind](folder, options, **events)


@dataclass
class PublicReport:
    """What checking a sealed suite's public copy on its own found."""

    public: PublicSuite | None
    problems: list[str] = field(default_factory=list)
    signed_by: str | None = None

    @property
    def ok(self) -> bool:
        return not self.problems


def verify_public_copy(folder: SuiteFolder, options: VerifyOptions) -> PublicReport:
    """A sealed suite's public copy on its own: the signature first (when a key is given),
    then schemas, hashes, ids and seed paths, the preset's counts and each line's budget and
    public view re-derived from its public facts."""
    signed_by, signature = signature_first(folder, options)
    if signature is not None:
        return PublicReport(None, [f"signature: {signature}"])
    public = read_public(folder.path, loaded=folder.read)
    return PublicReport(public, public_problems(public), signed_by)


def verify_suite(path: str | os.PathLike[str] | SuiteFolder, *, rebuild: bool = False,
                 jobs: int = 1,
                 on_check: Callable[[TaskCheck], None] | None = None,
                 on_start: Callable[[Task], None] | None = None,
                 public_key: str | os.PathLike[str] | None = None,
                 signature_file: str | os.PathLike[str] | None = None,
                 sources: list[str | os.PathLike[str]] | None = None,
                 allow_unpinned: bool = False, secret: Secret | None = None,
                 public: str | os.PathLike[str] | None = None) -> SuiteReport:
    """Check a suite folder; raises on schema or hash errors, reports certificate problems
    (``on_start(task)`` as each task is handed out, ``on_check`` as each finishes). With
    ``public_key``, the detached signature (``signature_file``, else ``manifest.json.sig``)
    must verify against that trusted key, and is checked before any task is read: a signature
    that fails ends the check there. An imported suite's source
    pins are checked against its own files, and with ``sources`` (the released files or
    folders) against those files too; an imported suite of format 1 (no pins) is refused
    unless ``allow_unpinned``. A sealed suite needs its ``secret`` (its tasks re-derive from
    it); with ``public``, its public copy's lines and commitments must be the ones it gives."""
    options = VerifyOptions(rebuild=rebuild, jobs=jobs, public_key=public_key,
                            signature_file=signature_file, sources=tuple(sources or ()),
                            allow_unpinned=allow_unpinned, secret=secret, public=public)
    return _reprove(open_suite(path), options, on_check=on_check, on_start=on_start)


def _reprove(folder: SuiteFolder, options: VerifyOptions,
             on_check: Callable[[TaskCheck], None] | None = None,
             on_start: Callable[[Task], None] | None = None) -> SuiteReport:
    """Re-prove every task of a built, imported or sealed private suite (the manifest as read
    once in ``folder``), after its signature."""
    signed_by, signature = signature_first(folder, options)
    if signature is not None:  # nothing else is read: a forged suite costs no re-proving
        empty = Suite(path=folder.path, manifest=folder.manifest, tasks={}, partial=True)
        return SuiteReport(suite=empty, signature_problem=signature)
    rebuild, jobs, secret, public = options.rebuild, options.jobs, options.secret, options.public
    sources = list(options.sources) or None
    suite = read_suite(folder.path, loaded=folder.read)
    tree_key = tree_key_for(suite.manifest, secret, suite.path)  # a wrong secret fails first
    if public is not None and secret is None:
        raise ArenaGenError(f"{suite.path}: checking a public copy against it needs --secret "
                            f"(the salts of its commitments come from the secret)")
    if rebuild:  # an imported suite cannot be rebuilt: say so before minutes of re-proving
        check_rebuildable(suite.manifest)
    unverifiable = format_problems(suite.manifest, allow_unpinned=options.allow_unpinned)
    if unverifiable:  # a format this code cannot check: refuse before re-proving anything
        raise ArenaGenError(f"{os.path.join(suite.path, 'manifest.json')}: {unverifiable[0]}")
    report = SuiteReport(suite=suite, signed_by=signed_by)
    tasks = suite.all_tasks()
    checker = functools.partial(check_task, manifest=suite.manifest, tree_key=tree_key)
    for check in map_unordered(checker, verify_order(tasks), jobs=jobs,
                               on_submit=on_start):
        report.checks.append(check)
        if on_check:
            on_check(check)
    position = {t.id: n for n, t in enumerate(tasks)}
    report.checks.sort(key=lambda c: position[c.task_id])
    report.manifest_problems = (
        seed_problems(suite, report.checks) + calibration_problems(suite)
        + (source_problems(suite.manifest, suite.tasks, sources) if sources
           else pin_problems(suite.manifest, suite.tasks)))
    if public is not None and secret is not None:
        copy = read_public(public)  # read once for both checks
        report.manifest_problems += [f"public copy: {p}" for p in public_problems(copy)]
        report.manifest_problems += [f"public copy: {p}"
                                     for p in commitment_problems(suite, copy, secret)]
    if rebuild:
        report.rebuild_problems = rebuild_compare(suite, jobs=jobs, secret=secret,
                                                  manifest_bytes=folder.read.raw)
    return report


def written_problems(path: str | os.PathLike[str]) -> list[str]:
    """What plain verify rejects in a suite just written by a producer that has already run
    every task's verifier and replayed its witness (``import``): the schemas, canonical bytes
    and hashes of a read, each task's derived facts, id and acceptance, its ladder, and the
    suite's seed, calibration and pin checks. Nothing is written that verify would refuse."""
    suite = read_suite(path)
    problems = []
    for task in suite.all_tasks():
        try:
            spec = registry.for_task(task)
            problem = (derived_problem(task, suite.manifest) or seed_problem(task, suite.manifest)
                       or spec.acceptance()(task, task.certificate)
                       or ladder_problem(task, spec))
        except (RegistryError, VerificationError) as exc:
            problem = str(exc)
        if problem is not None:
            problems.append(f"{task.id}: {problem}")
    return (problems + seed_problems(suite, []) + calibration_problems(suite)
            + pin_problems(suite.manifest, suite.tasks))


def calibration_problems(suite: Suite) -> list[str]:
    """The manifest's ``calibration`` must be what the tasks' (replayed) ladders and the env
    versions' calibrations give: a forged rate or target is named."""
    from arena_gen.suite.build import suite_calibration

    manifest = suite.manifest
    try:
        expected = suite_calibration(manifest["suite"], manifest.get("env_versions") or {},
                                     suite.tasks)
    except (KeyError, RegistryError) as exc:
        return [f"manifest calibration cannot be recomputed: {exc}"]
    stored = manifest.get("calibration") or {}
    return [f"manifest calibration.{env} differs from the tasks' ladders and the "
            f"{env} calibration" for env in sorted(set(stored) | set(expected))
            if stored.get(env) != expected.get(env)]


def seed_problems(suite: Suite, checks: list[TaskCheck]) -> list[str]:
    """What the suite of a seed holds, checked across tasks: each env file's lines in index
    order 0..n-1, no two tasks sharing a world their sources do not each give and, for a
    preset suite, the preset's suite
    version and counts, the manifest's presets, env versions and build facts (re-counted
    from the tasks' seed paths and the re-run rejections of their earlier attempts)."""
    manifest = suite.manifest
    name = manifest["suite"]
    # two tasks may share a world only when each one's own source gives it: its seed path (a
    # preset suite: the sampler gave it back) or its pinned entry (an imported suite of format
    # 2, whose pins are checked apart); an unpinned imported suite has neither
    sourced = name in SUITES or manifest.get("suite_version", 1) >= IMPORT_SUITE_VERSION
    problems = []
    worlds: dict[str, str] = {}
    for env, tasks in sorted(suite.tasks.items()):
        for line, task in enumerate(tasks):
            if int(task.seed_path[3]) != line:
                problems.append(f"{env}.jsonl: line {line + 1} holds task {task.id} (index "
                                f"{task.seed_path[3]}); lines are in index order from 0")
                break
        for task in tasks:
            digest = sha256_of(task.world)
            if digest in worlds and not sourced:
                problems.append(f"task {task.id} has the same world as {worlds[digest]}")
            worlds.setdefault(digest, task.id)
    if name not in SUITES:
        return problems
    if manifest.get("suite_version") != SUITE_VERSION:
        problems.append(f"manifest suite_version {manifest.get('suite_version')!r} is not the "
                        f"{name} preset's {SUITE_VERSION}")
    counts = manifest["counts"]
    for part in ("env_versions", "presets", "build"):
        if set(manifest.get(part) or {}) != set(counts):
            problems.append(f"manifest {part} names other envs than its counts")
    rejections = {c.task_id: c.rejections for c in checks}
    for env in sorted(counts):
        tasks = suite.tasks[env]
        try:
            want = catalog.preset_count(name, env, (manifest.get("env_versions") or {}).get(env))
        except (ArenaGenError, TypeError, ValueError) as exc:
            problems.append(f"manifest counts.{env}: no {name} preset to compare with ({exc})")
            continue
        if counts[env] != want:
            problems.append(f"manifest counts.{env} is {counts[env]}, the {name} preset's is "
                            f"{want}")
        known = [(t, rejections.get(t.id)) for t in tasks]
        if all(r is not None for _, r in known):
            facts = env_build_facts([(t, r or {}) for t, r in known])
            if (manifest.get("build") or {}).get(env) != facts:
                problems.append(f"manifest build.{env} differs from what the tasks' seed paths "
                                f"and their earlier attempts give ({_short(facts)})")
    return problems


def check_rebuildable(manifest: dict[str, Any]) -> None:
    """Refuse ``--rebuild`` of a suite no preset builds (an imported one): it has no seed to
    regenerate from."""
    if manifest["suite"] not in SUITES:
        raise ArenaGenError(f"suite {manifest['suite']!r} was not built from a preset; "
                            f"--rebuild needs one of {', '.join(SUITES)}")


def rebuild_compare(suite: Suite, *, jobs: int = 1, secret: Secret | None = None,
                    manifest_bytes: bytes | None = None) -> list[str]:
    """Regenerate a suite from its recorded seed (and a sealed one's ``secret``) and list every
    built file whose bytes differ (the manifest, ``manifest_bytes`` when it was read already,
    and the env files; a detached signature is not built, so not compared)."""
    from arena_gen.suite.build import build_suite

    manifest = suite.manifest
    check_rebuildable(manifest)
    tree_key_for(manifest, secret, suite.path)  # a sealed suite rebuilds only from its secret
    envs = sorted(manifest["counts"])
    # counts come from the preset, never from the manifest: a suite with tasks dropped and its
    # counts rewritten is not the suite of its seed
    versions = manifest.get("env_versions") or {}
    counts = {env: catalog.preset_count(manifest["suite"], env, versions.get(env)) for env in envs}
    built = build_suite(manifest["suite"], manifest["seed"], envs, jobs=jobs, counts=counts,
                        versions=versions, secret=secret)
    problems = []
    for env in envs:
        fresh = jsonl_text(built.tasks[env]).encode("utf-8")
        stored = (suite.path / f"{env}.jsonl").read_bytes()
        if fresh != stored:
            fresh_ids = {t.id: t.sha256 for t in built.tasks[env]}
            bad = [t.id for t in suite.tasks[env] if fresh_ids.get(t.id) != t.sha256]
            problems.append(f"{env}.jsonl differs from a rebuild"
                            + (f" (tasks {', '.join(bad[:5])})" if bad else ""))
    stored_manifest = (manifest_bytes if manifest_bytes is not None
                       else (suite.path / "manifest.json").read_bytes())
    if manifest_text(built.manifest).encode("utf-8") != stored_manifest:
        problems.append("manifest.json differs from a rebuild")
    return problems
