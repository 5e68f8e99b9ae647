"""``arena-gen report``: compare scored runs in one HTML page."""

from __future__ import annotations

from pathlib import Path

import click

from arena_gen.cli.options import user_errors


@click.command(name="report")
@click.argument("run_dirs", nargs=-1, required=True,
                type=click.Path(file_okay=False, exists=True, path_type=Path))
@click.option("--html", "html_out", type=click.Path(dir_okay=False, path_type=Path),
              required=True, help="Output HTML file (self-contained, opens offline).")
@click.option("--public-key", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Trusted public key (KEY.pub): refuse any run that this key did not sign "
                   "(run --sign-key) over its plan, suite and every line.")
def command(run_dirs: tuple[Path, ...], html_out: Path, public_key: Path | None) -> None:
    """Compare runs in one HTML page: metrics with their definitions, the baseline ladder,
    plots (scores, evolution curves, step histograms) and a per-task drill-down. Every figure
    is the judge's replay of the run: a run not scored yet (or resumed since) is scored first,
    as `arena-gen score` would, and a summary.json or findings.jsonl that differs from the
    replay is refused, naming the file and field."""
    from arena_gen.scoring.report import plots_notice, write_report
    from arena_gen.scoring.report_check import check_run

    with user_errors():
        checked = []
        for run_dir in run_dirs:
            checked.append(check_run(run_dir, public_key))
            if checked[-1].scored:
                click.echo(f"scored {run_dir} (its summary.json was missing or older than "
                           "its trajectories)")
        out = write_report(run_dirs, html_out, checked)
    notice = plots_notice()
    if notice is not None:  # said once, as the page says it
        click.echo(f"no plots: {notice}")
    click.echo(f"wrote {out}")
