"""``arena-gen play``: play one task yourself; the episode is saved like any run's."""

from __future__ import annotations

import shlex
from pathlib import Path

import click

from arena_gen.cli.options import user_errors


def _read(prompt: str) -> str:
    """One line from the terminal; Ctrl-C arrives as KeyboardInterrupt (click says Abort)."""
    try:
        return str(click.prompt(prompt, default="", show_default=False, prompt_suffix=""))
    except click.Abort:
        raise KeyboardInterrupt from None


@click.command(name="play")
@click.argument("task_id")
@click.option("--suite", default=None, help="Suite folder or released name to search.")
@click.option("--mode", type=click.Choice(["inductive", "with-rules"]), default="inductive",
              show_default=True,
              help="inductive: discover the hidden rules by playing; with-rules: the task's "
                   "rules are shown before the first turn.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              default=Path("runs") / "play", show_default=True,
              help="Run directory the episode is appended to.")
def command(task_id: str, suite: str | None, mode: str, out: Path) -> None:
    """Play a task yourself in the terminal; the episode is saved like any other."""
    from arena_gen.agents.human import HumanAgent
    from arena_gen.core.task_lookup import find_task
    from arena_gen.runner.play import play_task

    with user_errors():
        found = find_task(task_id, suite)
        agent = HumanAgent(read=_read, write=click.echo)
        rundir, record = play_task(found.task, agent, manifest=found.manifest,
                                   suite_path=found.suite_path, out=out, mode=mode)
    min_steps = found.task.certificate.min_steps
    click.echo(f"\n{record['end_reason']}: {record['steps']} turns"
               + (f" (minimum {min_steps})" if min_steps is not None else "")
               + f"; saved to {rundir.trajectories} (score the folder with: arena-gen score "
               + f"{shlex.quote(str(rundir.path))})")
