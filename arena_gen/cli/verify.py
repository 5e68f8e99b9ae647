"""``arena-gen verify``: re-prove a frozen suite."""

from __future__ import annotations

import click

from .options import display_option, user_errors


@click.command(name="verify")
@click.argument("suite")
@click.option("--rebuild", is_flag=True, help="Also regenerate from the seed and compare bytes.")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True)
@display_option
def command(suite: str, rebuild: bool, jobs: int, display: str | None) -> None:
    """Re-prove a suite: schemas, hashes, certificates and witness replays."""
    from ..core.suite_io import read_manifest
    from ..ui import Reporter
    from ..verifiers.suite_check import verify_suite

    ui = Reporter(display)
    with user_errors():
        total = sum(read_manifest(suite)[1]["counts"].values())
        with ui.progress(total, f"verify {suite}") as advance:
            report = verify_suite(suite, rebuild=rebuild, jobs=jobs,
                                  on_check=lambda c: advance(c.task_id))
    failures = [c for c in report.checks if not c.ok]
    # failures are printed whatever the display (to stderr under --display none)
    say = ui.line if ui.mode != "none" else (lambda text: click.echo(text, err=True))
    for check in failures:
        say(f"FAIL {check.task_id}: {check.problem}")
    for problem in report.rebuild_problems:
        say(f"FAIL rebuild: {problem}")
    rows = []
    for env, tasks in sorted(report.suite.tasks.items()):
        ids = {t.id for t in tasks}
        checks = [c for c in report.checks if c.task_id in ids]
        rows.append([env, len(tasks), sum(c.ok for c in checks),
                     f"{sum(c.seconds for c in checks):.2f}"])
    ui.table(f"Verified {report.suite.path}", ["env", "tasks", "ok", "verifier seconds"], rows)
    if not report.ok:
        raise click.ClickException(f"{len(failures)} task(s) failed"
                                   + (", rebuild differs" if report.rebuild_problems else ""))
    ui.line("all certificates hold" + (" and the rebuild is byte-identical" if rebuild else ""))
