"""``arena-gen prove``: write checkable proofs of a suite's exact minima beside it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from arena_gen.cli.options import display_option, user_errors

if TYPE_CHECKING:
    from arena_gen.core.task import Task
    from arena_gen.proofs.produce import Proved


@click.command(name="prove")
@click.argument("suite")
@click.option("--env", "envs", multiple=True, help="Prove only this env's tasks (repeatable); "
              "the listed proofs of the other envs are kept.")
@click.option("--check-seconds", type=click.FloatRange(min=0), default=600.0,
              show_default=True, help="The longest the check of one proof may take before it "
              "is stored (a proof past it is refused; verify --proofs has --proof-seconds).")
@click.option("--jobs", type=click.IntRange(min=1), default=None,
              help="Tasks proved at once (default: the cores this process may use); the proofs "
                   "do not depend on it.")
@display_option
def command(suite: str, envs: tuple[str, ...], check_seconds: float, jobs: int | None,
            display: str | None) -> None:
    """Prove every exact minimum of SUITE optimal: for each task with a second encoder of its
    rules (lights, repo), a DRUP proof that no completion of min_steps - 1 turns exists, checked,
    then stored xz-compressed in SUITE/proofs/ with a manifest binding it to the task's hash
    (check them with arena-gen verify SUITE --proofs)."""
    from arena_gen.core.parallel import default_jobs
    from arena_gen.core.suite_io import resolve_suite
    from arena_gen.proofs.drup import Limits
    from arena_gen.proofs.produce import prove_suite
    from arena_gen.proofs.store import ENCODERS, proofs_dir
    from arena_gen.ui import Reporter

    ui = Reporter(display)
    with user_errors():
        root = resolve_suite(suite)
        from arena_gen.core.suite_io import read_manifest

        _, manifest = read_manifest(root)
        total = sum(int(n) for env, n in manifest["counts"].items()
                    if env in ENCODERS and (not envs or env in envs))
        skipped: list[str] = []
        with ui.progress(total, f"prove {root.name}") as advance:

            def on_task(proved: Proved | None, task: Task) -> None:
                if proved is None:
                    skipped.append(task.id)
                advance(task.id)

            done = prove_suite(root, on_task=on_task, envs=set(envs) or None,
                               limits=Limits(seconds=check_seconds),
                               jobs=jobs or default_jobs())
    rows = [[p.task_id, p.entry["min_steps"], p.entry["solver"], p.entry["bytes"],
             f"{p.prove_seconds:.2f}", f"{p.check_seconds:.2f}"] for p in done]
    ui.table(f"Proofs in {proofs_dir(root)}", ["task", "min", "solver", "bytes xz",
                                               "prove s", "check s"], rows)
    ui.line(f"{len(done)} proof(s) written and checked, {sum(p.entry['bytes'] for p in done)} "
            f"bytes compressed" + (f"; {len(skipped)} task(s) without an exact minimum "
                                   f"to prove" if skipped else ""))
