"""``arena-gen stream``: draw certified tasks from a training stream into a folder."""

from __future__ import annotations

from pathlib import Path

import click

from arena_gen.cli.build import jobs_option
from arena_gen.cli.options import display_option, user_errors


@click.command(name="stream")
@click.argument("env")
@click.option("--level", required=True,
              help="The sampler preset the tasks are drawn with: lite, challenge, or one of the "
                   "env's curriculum levels L1, L2, ... (easiest first).")
@click.option("--seed", type=click.IntRange(min=0), required=True, help="The stream seed.")
@click.option("--count", type=click.IntRange(min=1), required=True, help="Tasks to draw.")
@click.option("--start", type=click.IntRange(min=0), default=0, show_default=True,
              help="The index of the first task (tasks are numbered from 0).")
@click.option("--env-version", type=click.IntRange(min=1), default=None,
              help="The env version (default: the one the level's suite builds at: the "
                   "pinned paper-scale versions for challenge, else the newest released).")
@click.option("--ladder", is_flag=True, default=False,
              help="Also climb the level's baseline ladder and reject what its calibration "
                   "rejects, as a build does (slower; other tasks).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Output folder: <env>.jsonl and a manifest in the suite format.")
@jobs_option
@click.option("--executor", type=click.Choice(["local", "ray"]), default="local",
              show_default=True, help="Where tasks are drawn; bytes do not depend on it.")
@click.option("--ray-address", default=None, envvar="RAY_ADDRESS",
              help="Ray cluster address (default: RAY_ADDRESS, else a local Ray instance).")
@click.option("--force", is_flag=True, default=False,
              help="Replace an existing output of arena-gen in --out.")
@display_option
def command(env: str, level: str, seed: int, count: int, start: int, env_version: int | None,
            ladder: bool, out: Path, jobs: int | None, executor: str, ray_address: str | None,
            force: bool, display: str | None) -> None:
    """Draw COUNT certified tasks of ENV from a training stream (never a released world)."""
    from arena_gen.core.parallel import default_jobs
    from arena_gen.core.suite_io import check_output_folder, write_suite
    from arena_gen.train.stream import Drawn, stream, stream_manifest
    from arena_gen.ui import Reporter

    ui = Reporter(display)
    jobs = jobs or default_jobs()
    with user_errors():
        check_output_folder(out, force=force)  # before any work: never replace a user's folder
        tasks = stream(env, level, seed, version=env_version, start=start, count=count,
                       jobs=jobs, ladder=ladder, executor=executor, ray_address=ray_address)
        drawn: list[Drawn] = []
        label = f"stream {env} {level} seed {seed} from {start} ({jobs} jobs)"
        with ui.work(label, {env: count}, jobs=jobs) as work:
            for d in tasks.draws():
                drawn.append(d)
                work.finished(env, rejected=sum(d.rejections.values()))
        manifest = stream_manifest(tasks, drawn)
        write_suite(out, manifest, {env: [d.task for d in drawn]}, force=force)
    rejections = dict(sorted(tasks.rejections.items()))
    ui.table(f"Stream {manifest['suite']} {env} v{tasks.version} (seed {seed}) -> {out}",
             ["env", "tasks", "first", "last", "released skipped", "rejected", "seconds"],
             [[env, len(drawn), drawn[0].task.id, drawn[-1].task.id, tasks.skipped,
               ", ".join(f"{k} {v}" for k, v in rejections.items()) or "0",
               f"{sum(d.seconds for d in drawn):.2f}"]])
    ui.line(f"stream sha256 {manifest['suite_sha256']}")
