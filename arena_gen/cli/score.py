"""``arena-gen score``: judge a run (or findings made elsewhere) and compute its metrics."""

from __future__ import annotations

import textwrap
from pathlib import Path

import click

from arena_gen.cli.options import display_option, split_list, user_errors


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
@click.option("--allow-unchained", is_flag=True, default=False,
              help="Score a run written before trajectories.jsonl was hash-chained (refused "
                   "otherwise); every output then marks it 'unchained'.")
@click.option("--public-key", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Trusted public key (KEY.pub): refuse a run that this key did not sign "
                   "(run --sign-key) over its plan, suite and every line.")
@click.option("--metrics", default=None,
              help="Comma-separated columns of the table (default: tasks, avg_at_k, pass_at_k, "
                   "avg_credit_at_k, tokens, cost, infra_errors, missing; pass_at_k is the run's "
                   "k; 'all' for every figure). summary.csv holds them all regardless.")
@click.option("--price-in", type=click.FloatRange(min=0), default=None,
              help="USD per 1M prompt tokens: show the cost (with --price-out; kept in "
                   "summary.json, so the report shows it too).")
@click.option("--price-out", type=click.FloatRange(min=0), default=None,
              help="USD per 1M completion tokens (with --price-in).")
@display_option
def command(run_dir: Path | None, suite: str | None, findings_file: Path | None,
            rubrics_file: Path | None, strict: bool, allow_unchained: bool,
            public_key: Path | None, metrics: str | None,
            price_in: float | None, price_out: float | None, display: str | None) -> None:
    """Judge a run and compute its metrics (findings.jsonl, summary.json, summary.csv)."""
    from arena_gen.core.errors import ArenaGenError
    from arena_gen.runner.rundir import RunDir
    from arena_gen.scoring.cost import prices_of
    from arena_gen.scoring.score import coverage_text, record_prices, score_findings, score_run
    from arena_gen.scoring.table import legend, resolve_metrics, score_table
    from arena_gen.ui import Reporter

    ui = Reporter(display)
    picked = split_list(metrics)
    with user_errors():
        prices = prices_of(price_in, price_out)
        k = 1 << 30  # a typo fails before judging (a pass_at_N past the run's k too)
        if run_dir is not None and findings_file is None and RunDir(run_dir).exists():
            k = int(RunDir(run_dir).read_meta().get("attempts", k))
        resolve_metrics(k, picked, prices is not None)
        if findings_file is not None:
            if public_key is not None:
                raise ArenaGenError("--public-key checks a signed run directory; findings "
                                    "given with --findings carry no signature")
            if rubrics_file is None:
                raise ArenaGenError("--findings needs --rubrics")
            summary = score_findings(findings_file, rubrics_file)
            title = f"Scores of {findings_file}, {summary.get('k', 1)} attempt(s) per task"
        elif run_dir is not None:
            summary = score_run(run_dir, suite, strict=strict, allow_unchained=allow_unchained,
                                public_key=public_key)
            if prices is not None:
                summary = record_prices(run_dir, summary, prices)
            harness = (summary.get("run") or {}).get("harness", "arena-gen")
            title = (f"Scores of {run_dir}, harness {harness}, {summary.get('k', 1)} "
                     f"attempt(s) per task (written to summary.json, summary.csv, "
                     f"findings.jsonl)")
            if not summary.get("complete", True):
                title = f"INCOMPLETE RUN: {coverage_text(summary)}. {title}"
            elif summary.get("integrity") == "unchained":
                title = f"UNCHAINED RUN: {coverage_text(summary)}. {title}"
        else:
            raise ArenaGenError("give a RUN_DIR, or --findings FILE --rubrics FILE")
        table = score_table(summary, picked, prices)
    ui.table(title, table.headers, table.rows, long_columns=table.long_headers)
    for text in legend(summary, table.keys, ui.width):
        ui.line(text)
    from arena_gen.scoring.knowledge import KNOWLEDGE_LEGEND, knowledge_table

    knows = knowledge_table(summary)
    if knows is not None:  # run --probes: what the agent knew beside what it achieved
        ui.table("Knows vs succeeds (world-model probes, graded from the replay)", *knows)
        for text in textwrap.wrap(KNOWLEDGE_LEGEND, max(ui.width, 20)):
            ui.line(text)
