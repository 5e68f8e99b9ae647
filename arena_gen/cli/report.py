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
    """Compare scored runs in one HTML page: metrics with their definitions, the baseline
    ladder, plots (scores, evolution curves, step histograms) and a per-task drill-down."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise click.ClickException(
            "arena-gen report draws its plots with matplotlib, an optional extra: "
            "pip install 'arena-gen[report]'") from None
    from arena_gen.scoring.report import write_report

    with user_errors():
        out = write_report(run_dirs, html_out)
    click.echo(f"wrote {out}")
