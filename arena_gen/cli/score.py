"""``arena-gen score``: judge a run (or findings made elsewhere) and compute its metrics."""

from __future__ import annotations

from pathlib import Path

import click

from arena_gen.cli.options import display_option, user_errors


@click.command(name="score")
@click.argument("run_dir", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.option("--suite", default=None, help="Suite to judge against (default: the run's).")
@click.option("--findings", "findings_file", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="Score findings produced elsewhere (JSONL) instead of a run.")
@click.option("--rubrics", "rubrics_file", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="With --findings: task id -> rubric items (JSON or JSONL).")
@click.option("--strict", is_flag=True, default=False,
              help="Count planned attempts that are missing or ended in an infra error as "
                   "failures (default: excluded, and the run is marked incomplete).")
@display_option
def command(run_dir: Path | None, suite: str | None, findings_file: Path | None,
            rubrics_file: Path | None, strict: bool, display: str | None) -> None:
    """Judge a run and compute its metrics (findings.jsonl, summary.json, summary.csv)."""
    from arena_gen.core.errors import ArenaGenError
    from arena_gen.scoring.score import (
        TERMINAL_COLUMNS,
        coverage_text,
        score_findings,
        score_run,
        terminal_rows,
    )
    from arena_gen.ui import Reporter

    ui = Reporter(display)
    with user_errors():
        if findings_file is not None:
            if rubrics_file is None:
                raise ArenaGenError("--findings needs --rubrics")
            summary = score_findings(findings_file, rubrics_file)
            title = f"Scores of {findings_file}"
        elif run_dir is not None:
            summary = score_run(run_dir, suite, strict=strict)
            harness = (summary.get("run") or {}).get("harness", "arena-gen")
            title = (f"Scores of {run_dir}, harness {harness} (written to summary.json, "
                     f"summary.csv, findings.jsonl)")
            if not summary.get("complete", True):
                title = f"INCOMPLETE RUN: {coverage_text(summary)}. {title}"
        else:
            raise ArenaGenError("give a RUN_DIR, or --findings FILE --rubrics FILE")
    ui.table(title, TERMINAL_COLUMNS, terminal_rows(summary))
