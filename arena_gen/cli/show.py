"""``arena-gen show``: print what an agent sees of a task, or with ``--reveal`` all of it.

Without ``--reveal`` the output is exactly the agent's view in ``--mode`` (:func:`~arena_gen
.core.episode.agent_view`): intro, the rules text in with-rules mode, the first observation and the
budget; never params, seed path, world, rubric internals or certificate.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import click

from arena_gen.cli.options import user_errors
from arena_gen.core.agent import MODES
from arena_gen.core.errors import ArenaGenError

if TYPE_CHECKING:
    from arena_gen.core.task import Task
    from arena_gen.scoring.induction_efficiency import Reference


@click.command(name="show")
@click.argument("task_id")
@click.option("--suite", default=None, help="Suite folder or released name to search.")
@click.option("--mode", type=click.Choice(MODES), default="inductive", show_default=True,
              help="Whose view to print: inductive (no rules) or with-rules (rules disclosed).")
@click.option("--reveal", is_flag=True,
              help="Print everything instead: params, seed path, rubric, rules, world, "
                   "certificate and ladder.")
@click.option("--json", "as_json", is_flag=True, help="Print the task as JSON.")
def command(task_id: str, suite: str | None, mode: str, reveal: bool, as_json: bool) -> None:
    """Print what the agent sees of a task in --mode; --reveal prints the whole task."""
    from arena_gen.core.task_lookup import find_task

    with user_errors():
        task = find_task(task_id, suite).task
        view = agent_view_of(task, mode)
    if as_json:
        data = task.to_dict() if reveal else view
        click.echo(json.dumps(data, indent=2, sort_keys=True))
        return
    if not reveal:
        for line in view_lines(view):
            click.echo(line)
        return
    cert = task.certificate
    click.echo(f"{task.id}  ({task.env} v{task.env_version}, suite {task.suite}, "
               f"budget {task.budget} turns)")
    click.echo(f"params: {json.dumps(task.params, sort_keys=True)}")
    click.echo(f"seed path: {json.dumps(task.seed_path)}")
    click.echo("rubric: " + "; ".join(f"{r.id}: {r.text}" for r in task.rubric))
    for line in ["", *opening_lines(view)]:  # the intro once, as the agent's view has it
        click.echo(line)
    click.echo("\n-- hidden rules (with-rules disclosure) --")
    click.echo(task.rules_text)
    click.echo("\n-- hidden world --")
    click.echo(json.dumps(task.world, sort_keys=True))
    click.echo("\n-- certificate --")
    click.echo(f"solvable={cert.solvable} method={cert.method} min_steps={cert.min_steps}")
    click.echo(f"witness: {' '.join(cert.witness)}")
    facts = {k: v for k, v in cert.facts.items() if k != "ladder"}
    if facts:
        click.echo(f"facts: {json.dumps(facts, sort_keys=True)}")
    ladder = cert.facts.get("ladder")
    if ladder:
        from arena_gen.scoring.induction_efficiency import reference_of

        reference = reference_of(task)
        click.echo("\n-- baseline ladder (re-played by verify) --")
        for line in ladder_lines(ladder, reference):
            click.echo(line)
        if reference is not None:
            click.echo(f"price: price of discovery, mean steps of the rung's successes - "
                       f"{reference.steps:g} ({reference.kind})")
    for i, line in enumerate(hidden_change_lines(task)):
        click.echo(("\n-- hidden change: certified minimum detection day --\n" if i == 0
                    else "") + line)


def hidden_change_lines(task: Task) -> list[str]:
    """The env's certified detectability of the task's hidden change points, if it has any."""
    from arena_gen.core import registry

    spec = registry.get(task.env, task.env_version)
    return list(spec.load("hidden_change")(task)) if spec.has("hidden_change") else []


def agent_view_of(task: Task, mode: str) -> dict[str, Any]:
    """The agent's view (:func:`~arena_gen.core.episode.agent_view`); a task whose game cannot
    start is a user error naming the task, not a crash."""
    from arena_gen.core.episode import agent_view

    try:
        return agent_view(task, mode)
    except Exception as exc:  # a hand-made world the game rejects
        raise ArenaGenError(f"task {task.id}: its game could not start: "
                            f"{type(exc).__name__}: {exc}"[:2000]) from None


def intro_of(public: dict[str, Any]) -> str:
    """The task's intro text (the public record as JSON when it has none)."""
    intro = public.get("intro")
    return str(intro) if intro is not None else json.dumps(public, indent=2, sort_keys=True)


def view_lines(view: dict[str, Any]) -> list[str]:
    """The agent's view as text: budget, the mode's rules, the intro and the first observation
    (the intro once when the observation opens with it)."""
    lines = [f"{view['task_id']}  ({view['env']} v{view['env_version']}, {view['mode']} mode, "
             f"budget {view['budget']} turns)"]
    if view["rules_text"] is not None:
        lines += ["", "-- rules (disclosed in with-rules mode) --", view["rules_text"]]
    return [*lines, "", *opening_lines(view)]


def opening_lines(view: dict[str, Any]) -> list[str]:
    """The intro and the first observation, the intro once when the observation opens with
    it (most games do)."""
    intro, observation = intro_of(view["public"]), view["observation"]
    if observation.startswith(intro):
        return ["-- intro and first observation --", observation]
    return ["-- intro --", intro, "", "-- first observation --", observation]


def ladder_lines(ladder: dict[str, Any], reference: Reference | None = None) -> list[str]:
    """One line per rung: ``heuristic (inductive)  1/1 solved  steps 43  credit 1.00``, then
    with a ``reference`` its price of discovery (``price +33``, ``n/a`` without a success)."""
    from arena_gen.scoring.induction_efficiency import price_text, rung_prices

    prices = rung_prices([(ladder, reference)]) if reference is not None else {}
    lines = []
    for rung, row in ladder.items():
        results = row.get("results", [])
        steps = "/".join(str(r.get("steps")) for r in results)
        credit = sum(float(r.get("credit", 0.0)) for r in results) / max(1, len(results))
        values = [r["value"] for r in results if r.get("value") is not None]
        value = f"  value {sum(values) / len(values):.4g}" if values else ""
        price = f"  price {price_text(prices.get(rung))}" if reference is not None else ""
        lines.append(f"{rung:<12} ({row.get('mode')})  {row.get('successes')}/"
                     f"{row.get('attempts')} solved  steps {steps}  credit {credit:.2f}{value}"
                     f"{price}")
    return lines
