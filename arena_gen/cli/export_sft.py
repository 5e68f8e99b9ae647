"""``arena-gen export-sft``: the LLM agent's prompts answered by the planner or the oracle."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from arena_gen.cli.build import jobs_option
from arena_gen.cli.options import display_option, split_list, user_errors


@click.command(name="export-sft")
@click.argument("suite")
@click.option("--agent", "teacher", type=click.Choice(["planner", "oracle"]), required=True,
              help="Whose actions the assistant turns hold.")
@click.option("--harness", type=click.Choice(["arena-gen", "odyssey"]), default="arena-gen",
              show_default=True,
              help="The LLM agent's protocol whose prompts are written (odyssey: the paper's).")
@click.option("--mode", type=click.Choice(["inductive", "with-rules"]), default=None,
              help="The prompts' mode (default: with-rules for the planner, inductive for the "
                   "oracle).")
@click.option("--env", "envs", default=None, help="Comma-separated envs (default: all).")
@click.option("--tasks", default=None, help="Comma-separated task ids (default: all).")
@click.option("--keep-failures", is_flag=True, default=False,
              help="Also write episodes the teacher did not win (marked success false).")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="The chat-format JSONL file to write.")
@jobs_option
@display_option
def command(suite: str, teacher: str, harness: str, mode: str | None, envs: str | None,
            tasks: str | None, keep_failures: bool, out: Path, jobs: int | None,
            display: str | None) -> None:
    """Write SFT chat records for SUITE (a released suite, a suite or a stream folder)."""
    from arena_gen.core.parallel import default_jobs
    from arena_gen.core.paths import check_creatable
    from arena_gen.core.suite_io import read_suite, resolve_suite
    from arena_gen.runner.run import select_tasks
    from arena_gen.train.sft import default_mode, export_sft, write_jsonl
    from arena_gen.ui import Reporter

    ui = Reporter(display)
    jobs = jobs or default_jobs()
    mode = mode or default_mode(teacher)
    with user_errors():
        check_creatable(out, "--out")
        env_names, ids = split_list(envs), split_list(tasks)
        found = read_suite(resolve_suite(suite), envs=env_names, task_ids=ids)
        selected = select_tasks(found, env_names, ids)
        records: list[dict[str, Any]] = []
        rows: dict[str, list[int]] = {}
        env_of = {t.id: t.env for t in selected}
        counts = {env: sum(1 for t in selected if t.env == env)
                  for env in sorted(set(env_of.values()))}
        with ui.work(f"export-sft {teacher} ({harness}, {mode})", counts, jobs=jobs) as work:
            for done in export_sft(selected, teacher, harness=harness, mode=mode,
                                   keep_failures=keep_failures, jobs=jobs):
                env = env_of[done.task_id]
                row = rows.setdefault(env, [0, 0, 0])
                row[0] += 1
                row[1] += done.success
                row[2] += len(done.records)
                records.extend(done.records)
                work.finished(env, rejected=0 if done.success else 1)
        write_jsonl(out, records)
    ui.table(f"SFT export of {suite}: {teacher}, harness {harness}, mode {mode} -> {out}",
             ["env", "tasks", "won", "lines"],
             [[env, *row] for env, row in sorted(rows.items())])
