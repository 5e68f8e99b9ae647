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
def command(run_dirs: tuple[Path, ...], html_out: Path) -> None:
    """Compare runs in one HTML page: metrics with their definitions, the baseline ladder,
    plots (scores, evolution curves, step histograms) and a per-task drill-down. A run not
    scored yet (or resumed since) is scored first, as `arena-gen score` would."""
    from arena_gen.scoring.report import ensure_scored, plots_notice, write_report

    with user_errors():
        for run_dir in run_dirs:
            if ensure_scored(run_dir):
                click.echo(f"scored {run_dir} (its summary.json was missing or older than "
                           "its trajectories)")
        out = write_report(run_dirs, html_out)
    notice = plots_notice()
    if notice is not None:  # said once, as the page says it
        click.echo(f"no plots: {notice}")
    click.echo(f"wrote {out}")
