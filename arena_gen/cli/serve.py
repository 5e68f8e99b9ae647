"""``arena-gen serve``: a suite's tasks over OpenEnv-compatible HTTP on loopback."""

from __future__ import annotations

import click

from arena_gen.cli.options import split_list, user_errors

LOOPBACK = ("127.0.0.1", "::1", "localhost")


@click.command(name="serve")
@click.argument("suite")
@click.option("--env", "envs", default=None, help="Comma-separated envs to serve (default: all).")
@click.option("--tasks", default=None, help="Comma-separated task ids to serve.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Loopback address to listen on (127.0.0.1, ::1 or localhost).")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True)
@click.option("--max-episodes", type=click.IntRange(min=1), default=1024, show_default=True,
              help="Live episodes held at once (past it the oldest finished one is dropped).")
def command(suite: str, envs: str | None, tasks: str | None, host: str, port: int,
            max_episodes: int) -> None:
    """Serve a suite's tasks over HTTP (reset/step/state, OpenEnv's shape; docs/training.md)."""
    from arena_gen.core.errors import ArenaGenError
    from arena_gen.core.suite_io import read_suite
    from arena_gen.runner.run import select_tasks

    with user_errors():
        if host not in LOOPBACK:
            raise ArenaGenError(f"--host {host}: serve listens on loopback only (it has no "
                                f"authentication); put a proxy in front to expose it")
        try:
            from aiohttp import web

            from arena_gen.train.serve import build_app
        except ModuleNotFoundError as exc:
            raise ArenaGenError(f"serve needs aiohttp ({exc}): pip install "
                                f"'arena-gen[serve]'") from None
        picked_envs, picked = split_list(envs), split_list(tasks)
        suite_obj = read_suite(suite, envs=picked_envs or None, task_ids=picked or None)
        served = select_tasks(suite_obj, picked_envs, picked)
        app = build_app(served, max_episodes)
    click.echo(f"serving {len(served)} task(s) of {suite} on http://{host}:{port} "
               f"(POST /reset, POST /step, GET /state, GET /health, WebSocket /ws)")
    web.run_app(app, host=host, port=port, print=None)
