"""``arena-gen verify``: re-prove a frozen suite."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from arena_gen.cli.build import jobs_option
from arena_gen.cli.options import display_option, secret_option, user_errors


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
@jobs_option
@display_option
def command(suite: str, rebuild: bool, signature: bool, public_key: Path | None,
            signature_file: Path | None, sources: tuple[Path, ...], allow_unpinned: bool,
            secret_file: Path | None, public: Path | None, jobs: int | None,
            display: str | None) -> None:
    """Re-prove a suite: schemas, hashes, certificates and witness replays (and with
    --signature, that its manifest is signed by the trusted --public-key)."""
    if (signature or signature_file is not None) and public_key is None:
        raise click.UsageError("--signature needs --public-key PUB: the key you trust "
                               "(KEY.pub from arena-gen keygen), never the one in the "
                               "signature file")
    from arena_gen.core.parallel import default_jobs
    from arena_gen.core.suite_io import read_manifest
    from arena_gen.core.task import Task
    from arena_gen.suite.seal import PUBLIC, Secret, sealed_entry
    from arena_gen.suite.verify import TaskCheck, check_rebuildable, verify_seconds, verify_suite
    from arena_gen.ui import Reporter

    ui = Reporter(display)
    jobs = jobs or default_jobs()
    with user_errors():
        manifest = read_manifest(suite)[1]
        if (sealed_entry(manifest) or {}).get("role") == PUBLIC:
            if rebuild or public is not None or secret_file is not None or sources:
                raise click.UsageError("SUITE is a public copy: it verifies on its own (schemas, "
                                       "hashes, ids, a signature); check it against the "
                                       "private suite with verify PRIVATE --secret FILE "
                                       "--public PUBLIC")
            _verify_public(suite, ui, public_key, signature_file)
            return
        from arena_gen.train.stream_check import is_stream

        if is_stream(manifest):
            if public is not None or secret_file is not None or sources or allow_unpinned:
                raise click.UsageError("SUITE is a stream folder (arena-gen stream): it is "
                                       "verified by drawing its tasks again; --sources, "
                                       "--allow-unpinned, --secret and --public do not apply")
            _verify_stream(suite, ui, jobs, public_key, signature_file)
            return
        secret = Secret.read(secret_file) if secret_file is not None else None
        if rebuild:  # before reading and re-proving every task
            check_rebuildable(manifest)
        counts = {env: int(n) for env, n in sorted(manifest["counts"].items())}
        env_of: dict[str, str] = {}  # filled as tasks start, before their checks end
        per_task = {env: verify_seconds(env, manifest["env_versions"].get(env), manifest["suite"])
                    for env in counts}
        with ui.work(f"verify {Path(suite).name or suite} ({jobs} jobs)", counts, jobs=jobs,
                     reject_word="failed") as work:
            work.plan({env: per_task[env] * n for env, n in counts.items()})

            def on_start(task: Task) -> None:
                env_of[task.id] = task.env
                work.started(task.env)

            def on_check(check: TaskCheck) -> None:
                env = env_of[check.task_id]
                work.finished(env, rejected=int(not check.ok), cost=per_task[env])

            report = verify_suite(suite, rebuild=rebuild, jobs=jobs, on_start=on_start,
                                  on_check=on_check, public_key=public_key,
                                  signature_file=signature_file,
                                  sources=list(sources) or None,
                                  allow_unpinned=allow_unpinned, secret=secret,
                                  public=public)
    failures = [c for c in report.checks if not c.ok]
    # failures are printed whatever the display (to stderr under --display none)
    say = ui.line if ui.mode != "none" else (lambda text: click.echo(text, err=True))
    for check in failures:
        say(f"FAIL {check.task_id}: {check.problem}")
    for problem in report.rebuild_problems:
        say(f"FAIL rebuild: {problem}")
    for problem in report.manifest_problems:
        say(f"FAIL manifest: {problem}")
    if report.signature_problem is not None:
        say(f"FAIL signature: {report.signature_problem}")
    rows = []
    for env, tasks in sorted(report.suite.tasks.items()):
        ids = {t.id for t in tasks}
        checks = [c for c in report.checks if c.task_id in ids]
        rows.append([env, len(tasks), sum(c.ok for c in checks),
                     f"{sum(c.seconds for c in checks):.2f}"])
    ui.table(f"Verified {report.suite.path}", ["env", "tasks", "ok", "verifier seconds"], rows)
    if not report.ok:
        raise click.ClickException(f"{len(failures)} task(s) failed"
                                   + (", rebuild differs" if report.rebuild_problems else "")
                                   + (", manifest differs" if report.manifest_problems
                                      else "")
                                   + (", signature fails" if report.signature_problem
                                      else ""))
    ui.line("all certificates hold" + (" and the rebuild is byte-identical" if rebuild else "")
            + (f"; the public copy {public} holds its commitments" if public else "")
            + (f"; the signature verifies against key id {report.signed_by}"
               if report.signed_by else ""))


def _verify_public(suite: str, ui: Any, public_key: Path | None,
                   signature_file: Path | None) -> None:
    """Check a public copy on its own: schemas, canonical bytes, hashes, ids and manifest, and
    with ``public_key`` its detached signature."""
    from arena_gen.suite.seal import public_problems, read_public

    with user_errors():
        problems = public_problems(suite)
        public = read_public(suite)
        if public_key is not None:
            from arena_gen.core.signing import check_signature

            signed = check_signature(public.path, public_key, signature_file)
            problems += [f"signature: {signed}"] if signed is not None else []
    say = ui.line if ui.mode != "none" else (lambda text: click.echo(text, err=True))
    for problem in problems:
        say(f"FAIL public copy: {problem}")
    ui.table(f"Verified public copy {public.path}", ["env", "tasks"],
             [[env, len(lines)] for env, lines in sorted(public.tasks.items())])
    if problems:
        raise click.ClickException(f"{len(problems)} problem(s) in the public copy")
    ui.line("the public copy's schemas, hashes and ids hold; its commitments are checked "
            "against the private suite with verify PRIVATE --secret FILE --public PUBLIC")


def _verify_stream(suite: str, ui: Any, jobs: int, public_key: Path | None,
                   signature_file: Path | None) -> None:
    """Check a stream folder by drawing its indices again (every line and the manifest must be
    the bytes the draw writes; ``--rebuild`` adds nothing), and with ``public_key`` its
    detached signature."""
    from arena_gen.core.suite_io import read_manifest
    from arena_gen.core.task import Task
    from arena_gen.train.stream_check import stream_of, verify_stream

    with user_errors():
        manifest = read_manifest(suite)[1]
        env, _ = stream_of(manifest, f"{suite}/manifest.json")
        count = int(manifest["counts"][env])
        with ui.work(f"verify stream {Path(suite).name or suite} ({jobs} jobs)", {env: count},
                     jobs=jobs, reject_word="failed") as work:

            def on_check(task: Task, ok: bool) -> None:
                work.finished(task.env, rejected=int(not ok))

            report = verify_stream(suite, jobs=jobs, on_check=on_check)
        signature = None
        if public_key is not None:
            from arena_gen.core.signing import check_signature

            signature = check_signature(report.suite.path, public_key, signature_file)
    problems = report.problems + ([f"signature: {signature}"] if signature else [])
    say = ui.line if ui.mode != "none" else (lambda text: click.echo(text, err=True))
    for problem in problems:
        say(f"FAIL stream: {problem}")
    ui.table(f"Verified stream {report.suite.path}", ["env", "level", "ladder", "tasks",
                                                      "drawn again"],
             [[env, report.level, "yes" if report.ladder else "no", count, report.checked]])
    if problems:
        raise click.ClickException(f"{len(problems)} problem(s): the folder is not the stream "
                                   f"its manifest names")
    ui.line("every task is the one the stream draws at its index, byte for byte"
            + (" and the signature verifies" if public_key is not None else ""))
