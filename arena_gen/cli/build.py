"""``arena-gen build``: sample, verify and freeze a preset suite."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from .options import display_option, env_list, user_errors


@click.command(name="build")
@click.option("--suite", "suite", type=click.Choice(["lite", "challenge"]), required=True,
              help="Which preset to build.")
@click.option("--seed", type=click.IntRange(min=0), required=True, help="The suite seed.")
@click.option("--env", "envs", default=None, help="Comma-separated envs (default: all).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Output folder (default: ./out/<suite>-<seed>).")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Worker processes; the output bytes do not depend on it.")
@click.option("--executor", type=click.Choice(["local", "ray"]), default="local",
              show_default=True, help="Where tasks are generated; bytes do not depend on it.")
@click.option("--ray-address", default=None, envvar="RAY_ADDRESS",
              help="Ray cluster address (default: RAY_ADDRESS, else a local Ray instance).")
@click.option("--force", is_flag=True, default=False,
              help="Replace an existing suite in --out (a folder arena-gen did not write is "
                   "never replaced).")
@display_option
def command(suite: str, seed: int, envs: str | None, out: Path | None, jobs: int, executor: str,
            ray_address: str | None, force: bool, display: str | None) -> None:
    """Sample, verify and freeze a suite (JSONL per env + a hashed manifest)."""
    from ..core import registry
    from ..core.suite_io import check_output_folder, write_suite
    from ..generator.build import build_suite
    from ..generator.suites import preset
    from ..ui import Reporter

    ui = Reporter(display)
    with user_errors():
        env_names = env_list(envs) or registry.names()
        want = {e: int(preset(suite, e)["count"]) for e in env_names}
        out = out or Path("out") / f"{suite}-{seed}"
        check_output_folder(out, force=force)  # before any work: never replace a user's folder
        done = {e: 0 for e in env_names}
        rejected = {e: 0 for e in env_names}
        with ui.progress(sum(want.values()), f"build {suite} seed {seed}") as advance:
            def on_task(g: Any) -> None:
                done[g.task.env] += 1
                rejected[g.task.env] += sum(g.rejections.values())
                advance(", ".join(f"{e} {done[e]}/{want[e]} ({rejected[e]} rejected)"
                                  for e in env_names))

            result = build_suite(suite, seed, env_names, jobs=jobs, executor=executor,
                                 ray_address=ray_address, on_task=on_task)
        write_suite(out, result.manifest, result.tasks, force=force)
    rows = []
    for env in env_names:
        gens = result.generated[env]
        known = [s for s in (g.task.certificate.min_steps for g in gens) if s is not None]
        bounded = sum(1 for g in gens if g.task.certificate.min_steps is None
                      and "min_steps_bounds" in g.task.certificate.facts)
        spread = f"{min(known)}-{max(known)}" if known else ("" if bounded else "fixed horizon")
        if bounded:
            spread += f" (+{bounded} with bounds only)"
        rej = sum(sum(g.rejections.values()) for g in gens)
        rows.append([env, len(gens), spread, rej, f"{result.per_env_seconds[env]:.2f}"])
    ui.table(f"Suite {suite} (seed {seed}) -> {out}",
             ["env", "tasks", "min_steps", "rejected", "seconds"], rows)
    ui.line(f"suite sha256 {result.manifest['suite_sha256']}  ({result.seconds:.2f} s)")
