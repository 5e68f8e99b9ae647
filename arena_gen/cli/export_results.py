"""``arena-gen export-results``: a run's scores as an Every Eval Ever record (a shared results
schema; see docs/metrics.md#every-eval-ever-export)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from arena_gen.cli.options import display_option, user_errors


@click.command(name="export-results")
@click.argument("run_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="The JSON file to write (one Every Eval Ever aggregate record).")
@click.option("--suite", default=None, help="Suite to judge against (default: the run's).")
@click.option("--strict", is_flag=True, default=False,
              help="As in `score`: missing and infra-error attempts count as failures.")
@display_option
def command(run_dir: Path, out: Path, suite: str | None, strict: bool,
            display: str | None) -> None:
    """Score a run (as `score` does, writing its files) and export it as an Every Eval Ever
    record."""
    from arena_gen.core.paths import check_creatable
    from arena_gen.runner.rundir import RunDir
    from arena_gen.scoring.eee import eee_record
    from arena_gen.scoring.score import score_run
    from arena_gen.ui import Reporter

    ui = Reporter(display)
    with user_errors():
        check_creatable(out, "--out")
        summary = score_run(run_dir, suite, strict=strict)
        record = eee_record(summary, RunDir(run_dir).read_meta())
        out.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    ui.line(f"{len(record['evaluation_results'])} evaluation results of {run_dir} written to "
            f"{out} (Every Eval Ever schema {record['schema_version']})")
