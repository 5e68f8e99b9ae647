"""``arena-gen show``: print one task readably."""

from __future__ import annotations

import json
from typing import Any

import click

from .options import user_errors


@click.command(name="show")
@click.argument("task_id")
@click.option("--suite", default=None, help="Suite folder or released name to search.")
@click.option("--reveal", is_flag=True, help="Also print the hidden world and the certificate.")
@click.option("--json", "as_json", is_flag=True, help="Print the task as JSON.")
def command(task_id: str, suite: str | None, reveal: bool, as_json: bool) -> None:
    """Print a task readably: what the agent sees, and with --reveal what it must discover."""
    from ..core.task_lookup import find_task

    with user_errors():
        task = find_task(task_id, suite).task
    if as_json:
        data: dict[str, Any] = task.to_dict()
        if not reveal:
            data = {k: v for k, v in data.items() if k not in ("world", "certificate",
                                                              "rules_text")}
        click.echo(json.dumps(data, indent=2, sort_keys=True))
        return
    cert = task.certificate
    click.echo(f"{task.id}  ({task.env} v{task.env_version}, suite {task.suite}, "
               f"budget {task.budget} turns)")
    click.echo(f"params: {json.dumps(task.params, sort_keys=True)}")
    click.echo("rubric: " + "; ".join(f"{r.id}: {r.text}" for r in task.rubric))
    click.echo("\n-- what the agent is told --")
    click.echo(str(task.public.get("intro", json.dumps(task.public, indent=2))))
    if reveal:
        click.echo("\n-- hidden rules (with-rules disclosure) --")
        click.echo(task.rules_text)
        click.echo("\n-- certificate --")
        click.echo(f"solvable={cert.solvable} method={cert.method} min_steps={cert.min_steps}")
        click.echo(f"witness: {' '.join(cert.witness)}")
        if cert.facts:
            click.echo(f"facts: {json.dumps(cert.facts, sort_keys=True)}")
