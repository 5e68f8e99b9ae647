"""``arena-gen verify``: re-prove a frozen suite."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from arena_gen.cli.build import jobs_option
from arena_gen.cli.options import display_option, secret_option, user_errors

if TYPE_CHECKING:
    from arena_gen.suite.folder import SuiteFolder
    from arena_gen.suite.verify import VerifyOptions


@click.command(name="verify")
@click.argument("suite")
@click.option("--rebuild", is_flag=True, help="Also regenerate from the seed and compare bytes "
              "(never from the build cache).")
@click.option("--signature", is_flag=True, help="Also check the detached signature "
              "(manifest.json.sig) against --public-key.")
@click.option("--public-key", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The trusted public key (KEY.pub from arena-gen keygen); implies "
                   "--signature.")
@click.option("--signature-file", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="The signature to check (default: SUITE/manifest.json.sig); "
                                 "implies --signature.")
@click.option("--sources", "sources", multiple=True,
              type=click.Path(exists=True, path_type=Path),
              help="An imported suite: the released files or folders it was imported from; "
                   "every pinned file's sha256 and every task's entry are checked against "
                   "them (repeatable).")
@click.option("--allow-unpinned", is_flag=True, help="Verify an imported suite of format 1 "
              "(imported before source pins existed; its worlds are pinned to nothing) "
              "instead of refusing it.")
@secret_option("A sealed suite: the secret it was built with (its tasks re-derive from it).")
@click.option("--public", "public", type=click.Path(file_okay=False, exists=True, path_type=Path),
              default=None, help="A sealed suite: also check this public copy (arena-gen seal) "
              "against it: every line and commitment must be the one the suite gives (needs "
              "--secret).")
@click.option("--proofs", is_flag=True, help="Also check the proofs in SUITE/proofs/ (arena-gen "
              "prove): re-encode each exact minimum's claim and check its DRUP proof; a "
              "missing or refused proof fails, naming its file and task.")
@click.option("--proof-seconds", type=click.FloatRange(min=0), default=600.0,
              show_default=True, help="With --proofs: the longest one proof's check may take "
              "(a proof past it is refused).")
@jobs_option
@display_option
def command(suite: str, rebuild: bool, signature: bool, public_key: Path | None,
            signature_file: Path | None, sources: tuple[Path, ...], allow_unpinned: bool,
            secret_file: Path | None, public: Path | None, proofs: bool, proof_seconds: float,
            jobs: int | None, display: str | None) -> None:
    """Re-prove a suite: schemas, hashes, certificates and witness replays (and with
    --signature, first, that every file of it is signed by the trusted --public-key)."""
    if (signature or signature_file is not None) and public_key is None:
        raise click.UsageError("--signature needs --public-key PUB: the key you trust "
                               "(KEY.pub from arena-gen keygen), never the one in the "
                               "signature file")
    from arena_gen.core.parallel import default_jobs
    from arena_gen.suite.folder import Kind, open_suite
    from arena_gen.suite.seal import Secret
    from arena_gen.suite.verify import VerifyOptions, refused_options
    from arena_gen.ui import Reporter

    ui = Reporter(display)
    jobs = jobs or default_jobs()
    with user_errors():
        folder = open_suite(suite)  # the one read of its manifest
        options = VerifyOptions(rebuild=rebuild, jobs=jobs, public_key=public_key,
                                signature_file=signature_file, sources=sources,
                                allow_unpinned=allow_unpinned, public=public,
                                secret=None if secret_file is None else Secret.read(secret_file))
        usage = refused_options(folder.kind, options)
        if proofs and folder.kind in (Kind.SEALED_PUBLIC, Kind.STREAM):
            usage = f"SUITE is a {folder.kind.value} folder: it holds no proofs to check"
        if usage is not None:
            raise click.UsageError(usage)
        if folder.kind is Kind.SEALED_PUBLIC:
            _verify_public(folder, ui, options)
        elif folder.kind is Kind.STREAM:
            _verify_stream(folder, ui, options)
        else:
            _verify_tasks(folder, ui, options)
        if proofs:
            _verify_proofs(folder, ui, proof_seconds)


def _say(ui: Any) -> Callable[[str], None]:
    """Failures are printed whatever the display (to stderr under --display none)."""
    return ui.line if ui.mode != "none" else (lambda text: click.echo(text, err=True))


def _verify_tasks(folder: SuiteFolder, ui: Any, options: VerifyOptions) -> None:
    """Re-prove a built, imported or sealed private suite; ``Verified`` only when it holds."""
    from arena_gen.core.task import Task
    from arena_gen.suite.verify import TaskCheck, check_rebuildable, verify_folder, verify_seconds

    manifest, jobs = folder.manifest, options.jobs
    if options.rebuild:  # before reading and re-proving every task
        check_rebuildable(manifest)
    counts = {env: int(n) for env, n in sorted(manifest["counts"].items())}
    env_of: dict[str, str] = {}  # filled as tasks start, before their checks end
    per_task = {env: verify_seconds(env, manifest["env_versions"].get(env), manifest["suite"])
                for env in counts}
    with ui.work(f"verify {folder.path.name or folder.path} ({jobs} jobs)", counts, jobs=jobs,
                 reject_word="failed") as work:
        work.plan({env: per_task[env] * n for env, n in counts.items()})

        def on_start(task: Task) -> None:
            env_of[task.id] = task.env
            work.started(task.env)

        def on_check(check: TaskCheck) -> None:
            env = env_of[check.task_id]
            work.finished(env, rejected=int(not check.ok), cost=per_task[env])

        report = verify_folder(folder, options, on_start=on_start, on_check=on_check)
    failures = [c for c in report.checks if not c.ok]
    say = _say(ui)
    if report.signature_problem is not None:
        say(f"FAIL signature: {report.signature_problem}")
    for check in failures:
        say(f"FAIL {check.task_id}: {check.problem}")
    for problem in report.rebuild_problems:
        say(f"FAIL rebuild: {problem}")
    for problem in report.manifest_problems:
        say(f"FAIL manifest: {problem}")
    rows = []
    for env, tasks in sorted(report.suite.tasks.items()):
        ids = {t.id for t in tasks}
        checks = [c for c in report.checks if c.task_id in ids]
        rows.append([env, len(tasks), sum(c.ok for c in checks),
                     f"{sum(c.seconds for c in checks):.2f}"])
    if not report.ok:
        if rows:
            ui.table(f"NOT verified: {report.suite.path}", ["env", "tasks", "ok",
                                                            "verifier seconds"], rows)
        if report.signature_problem is not None:
            raise click.ClickException("the signature fails: no task was checked")
        raise click.ClickException(f"{len(failures)} task(s) failed"
                                   + (", rebuild differs" if report.rebuild_problems else "")
                                   + (", manifest differs" if report.manifest_problems
                                      else ""))
    ui.table(f"Verified {report.suite.path}", ["env", "tasks", "ok", "verifier seconds"], rows)
    ui.line(("the signature verifies against key id " + report.signed_by + "; "
             if report.signed_by else "")
            + "all certificates hold"
            + (" and the rebuild is byte-identical" if options.rebuild else "")
            + (f"; the public copy {options.public} holds its commitments"
               if options.public else ""))


def _verify_proofs(folder: SuiteFolder, ui: Any, seconds: float = 600.0) -> None:
    """Check every proof the suite needs (arena_gen.proofs.check); fail naming file and task."""
    from arena_gen.proofs.check import check_suite
    from arena_gen.proofs.drup import Limits
    from arena_gen.proofs.store import ENCODERS

    total = sum(int(n) for env, n in folder.manifest["counts"].items() if env in ENCODERS)
    with ui.progress(total, "check proofs") as advance:

        def on_task(result: Any) -> None:
            advance(result.task_id)

        report = check_suite(folder.path, limits=Limits(seconds=seconds), on_task=on_task)
    say = _say(ui)
    for problem in report.problems:
        say(f"FAIL proofs: {problem}")
    for result in report.checked:
        if not result.ok:
            say(f"FAIL {result.task_id}: {result.problem}")
    rows = []
    for env in sorted({r.env for r in report.checked}):
        mine = [r for r in report.checked if r.env == env]
        rows.append([env, len(mine), sum(r.ok for r in mine), sum(r.bytes for r in mine),
                     f"{sum(r.stats.seconds for r in mine if r.stats):.2f}"])
    title = "Proofs checked" if report.ok else "Proofs NOT checked"
    ui.table(f"{title}: {report.suite}", ["env", "tasks", "ok", "bytes xz", "check seconds"],
             rows)
    if not report.ok:
        refused = sum(not r.ok for r in report.checked) + len(report.problems)
        raise click.ClickException(f"{refused} proof problem(s)")
    others = sorted(set(folder.manifest["counts"]) - set(ENCODERS))
    ui.line(f"every proof checks: no completion shorter than the minimum exists for "
            f"{len(report.checked)} task(s) under the re-encoded rules"
            + (f"; {len(report.not_covered)} task(s) have no proof to check (no exact minimum, "
               f"or a version the encoder does not follow)" if report.not_covered else "")
            + (f"; no second encoder yet for {', '.join(others)}" if others else ""))


def _verify_public(folder: SuiteFolder, ui: Any, options: VerifyOptions) -> None:
    """Check a public copy on its own: the signature first (with --public-key), then schemas,
    canonical bytes, hashes, ids, the preset's counts, and each line's budget and intro."""
    from arena_gen.suite.verify import verify_public_copy

    report = verify_public_copy(folder, options)
    say = _say(ui)
    for problem in report.problems:
        say(f"FAIL public copy: {problem}")
    if not report.ok:
        raise click.ClickException(f"{len(report.problems)} problem(s) in the public copy")
    assert report.public is not None  # a copy that was read holds its lines
    ui.table(f"Verified public copy {folder.path}", ["env", "tasks"],
             [[env, len(lines)] for env, lines in sorted(report.public.tasks.items())])
    ui.line(("the signature verifies; " if options.public_key is not None else "")
            + "the public copy's schemas, hashes and ids hold, and so do its counts, budgets "
            "and intros; its commitments are checked against the private suite with verify "
            "PRIVATE --secret FILE --public PUBLIC")


def _verify_stream(folder: SuiteFolder, ui: Any, options: VerifyOptions) -> None:
    """Check a stream folder: the signature first (with --public-key), then draw its indices
    again (every line and the manifest must be the bytes the draw writes; ``--rebuild`` adds
    nothing)."""
    from arena_gen.core.task import Task
    from arena_gen.suite.verify import signature_first
    from arena_gen.train.stream_check import stream_of, verify_stream

    say = _say(ui)
    _, signature = signature_first(folder, options)
    if signature is not None:
        say(f"FAIL stream: signature: {signature}")
        raise click.ClickException("the signature fails: no task was drawn")
    env, _ = stream_of(folder.manifest, f"{folder.path}/manifest.json")
    count = int(folder.manifest["counts"][env])
    with ui.work(f"verify stream {folder.path.name or folder.path} ({options.jobs} jobs)",
                 {env: count}, jobs=options.jobs, reject_word="failed") as work:

        def on_check(task: Task, ok: bool) -> None:
            work.finished(task.env, rejected=int(not ok))

        report = verify_stream(folder, jobs=options.jobs, on_check=on_check)
    for problem in report.problems:
        say(f"FAIL stream: {problem}")
    if report.problems:
        raise click.ClickException(f"{len(report.problems)} problem(s): the folder is not the "
                                   f"stream its manifest names")
    ui.table(f"Verified stream {report.suite.path}", ["env", "level", "ladder", "tasks",
                                                      "drawn again"],
             [[env, report.level, "yes" if report.ladder else "no", count, report.checked]])
    ui.line(("the signature verifies; " if options.public_key is not None else "")
            + "every task is the one the stream draws at its index, byte for byte")
