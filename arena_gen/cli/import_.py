"""``arena-gen import``: released data (OdysseyArena) as verified tasks in a suite folder.

The module is named ``import_`` because ``import`` is a Python keyword.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from arena_gen.cli.options import display_option, user_errors

if TYPE_CHECKING:
    from arena_gen.core.task import Task


@click.command(name="import")
@click.argument("source", type=click.Choice(["odyssey-arena"]))
@click.argument("paths", nargs=-1, required=True,
                type=click.Path(exists=True, path_type=Path))
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Output suite folder.")
@click.option("--env", "env", default=None, help="Force the env (default: detect per file).")
@click.option("--name", default="import", show_default=True,
              help="The suite's name in its manifest and in run records (e.g. odyssey-lite).")
@click.option("--force", is_flag=True, default=False,
              help="Replace an existing suite in --out (a folder arena-gen did not write is "
                   "never replaced).")
@display_option
def command(source: str, paths: tuple[Path, ...], out: Path, env: str | None, name: str,
            force: bool, display: str | None) -> None:
    """Import released data as verified tasks (exact minima replace the released claims).

    PATHS are released data files or folders holding them (searched recursively for .json
    files; other files are skipped and reported). Ids follow each env's files in natural name
    order and each file's entry order, so the order PATHS are given in does not matter.
    """
    from arena_gen.core import registry
    from arena_gen.core.suite_io import check_output_folder
    from arena_gen.suite.import_writer import write_import
    from arena_gen.suite.importer import import_tasks, meets_released_floor, plan_import
    from arena_gen.ui import Reporter

    ui = Reporter(display)
    with user_errors():
        check_output_folder(out, force=force)  # before any work: never replace a user's folder
        if env:
            registry.get(env)
        plan = plan_import(paths, env)
        for note in plan.skipped:
            click.echo(f"skipped {note}", err=True)
        for note in plan.warnings:
            click.echo(f"warning: {note}", err=True)
        by_env = {env_name: [str(p) for p in files] for env_name, files in plan.by_env.items()}

        def warn(note: str) -> None:
            click.echo(f"warning: {note}", err=True)

        tasks = {env_name: import_tasks(env_name, files, warn=warn)
                 for env_name, files in by_env.items()}
        written = write_import(out, tasks, by_env, force=force, name=name)
    for env_name, env_tasks in tasks.items():
        _env_table(ui, f"Imported {env_name} from {source} -> {written}", env_tasks,
                   meets_released_floor)
    for env_name, env_tasks in tasks.items():
        below = [t.id for t in env_tasks if meets_released_floor(t) is False]
        if below:
            floor = registry.for_task(env_tasks[0]).released_floor
            ui.line(f"{len(below)} {env_name} task(s) fall below the released {floor}-step "
                    f"floor: {', '.join(below)}")


def _env_table(ui: Any, title: str, tasks: list[Task],
               floor_met: Callable[[Task], bool | None]) -> None:
    """One env's imported tasks: only the columns some task has a value in (a fixed-horizon
    env has no exact minimum, N or floor), or one line when no column has any."""
    marks = {None: "-", True: "yes", False: "NO"}
    header = ["task", "source idx", "N", "exact minimum", "released floor met"]
    rows = [[t.id, t.params.get("source_idx", "-"), t.params.get("n", "-"),
             "-" if t.certificate.min_steps is None else t.certificate.min_steps,
             marks[floor_met(t)]] for t in tasks]
    keep = [0] + [c for c in range(1, len(header)) if any(r[c] != "-" for r in rows)]
    if len(keep) == 1:
        ui.line(f"{title}: {len(tasks)} task(s), {tasks[0].id} to {tasks[-1].id} (no exact "
                f"minimum or released floor: a fixed horizon)" if tasks else f"{title}: none")
        return
    ui.table(title, [header[c] for c in keep], [[r[c] for c in keep] for r in rows])
