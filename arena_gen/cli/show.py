"""``arena-gen show``: print one task readably."""

from __future__ import annotations

import json
from typing import Any

import click

from arena_gen.cli.options import user_errors


@click.command(name="show")
@click.argument("task_id")
@click.option("--suite", default=None, help="Suite folder or released name to search.")
@click.option("--reveal", is_flag=True, help="Also print the hidden world and the certificate.")
@click.option("--json", "as_json", is_flag=True, help="Print the task as JSON.")
def command(task_id: str, suite: str | None, reveal: bool, as_json: bool) -> None:
    """Print a task readably: what the agent sees, and with --reveal what it must discover."""
    from arena_gen.core.task_lookup import find_task

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
        facts = {k: v for k, v in cert.facts.items() if k != "ladder"}
        if facts:
            click.echo(f"facts: {json.dumps(facts, sort_keys=True)}")
        ladder = cert.facts.get("ladder")
        if ladder:
            click.echo("\n-- baseline ladder (re-played by verify) --")
            for line in ladder_lines(ladder):
                click.echo(line)


def ladder_lines(ladder: dict[str, Any]) -> list[str]:
    """One line per rung: ``heuristic (inductive)  1/1 solved  steps 43  credit 1.00``."""
    lines = []
    for rung, row in ladder.items():
        results = row.get("results", [])
        steps = "/".join(str(r.get("steps")) for r in results)
        credit = sum(float(r.get("credit", 0.0)) for r in results) / max(1, len(results))
        values = [r["value"] for r in results if r.get("value") is not None]
        value = f"  value {sum(values) / len(values):.4g}" if values else ""
        lines.append(f"{rung:<12} ({row.get('mode')})  {row.get('successes')}/"
                     f"{row.get('attempts')} solved  steps {steps}  credit {credit:.2f}{value}")
    return lines
