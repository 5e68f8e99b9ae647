"""``arena-gen run``: play an agent over a suite and write a run directory."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import click

from arena_gen.cli.options import AgentChoice, display_option, split_list, user_errors


@click.command(name="run")
@click.option("--suite", required=True, help="Released suite name or suite folder.")
@click.option("--agent", type=AgentChoice(), required=True,
              help="Who plays: random, oracle, heuristic, llm, planner (the env's with-rules "
                   "planner of the baseline ladder; run it with --mode with-rules: it reads the "
                   "rules text), a ladder baseline by its rung name, or an agent an env offers "
                   "by name (with --env ENV; each env's page in docs/envs/ describes its own).")
@click.option("--attempts", type=click.IntRange(min=1), default=1, show_default=True,
              help="Attempts per task (k for Avg@k and Pass@k).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Run directory (run.json, trajectories.jsonl).")
@click.option("--env", "envs", default=None, help="Comma-separated envs (default: all).")
@click.option("--tasks", default=None, help="Comma-separated task ids (default: all).")
@click.option("--mode", type=click.Choice(["inductive", "with-rules"]), default="inductive",
              show_default=True)
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--executor", type=click.Choice(["local", "ray"]), default="local",
              show_default=True)
@click.option("--ray-address", default=None, envvar="RAY_ADDRESS",
              help="Ray cluster address for --executor ray (default: a local Ray instance).")
@click.option("--resume", is_flag=True, help="Continue a run: skip finished episodes.")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
              help="Run seed: agent randomness is seeded per (task, attempt) from it.")
@click.option("--model", default=None, help="llm: model name sent to the endpoint.")
@click.option("--base-url", default=None,
              help="llm: OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1 "
                   "(default: $OPENAI_BASE_URL, else the OpenAI API). Key: $OPENAI_API_KEY.")
@click.option("--temperature", type=click.FloatRange(min=0), default=0.6, show_default=True,
              help="llm: sampling temperature.")
@click.option("--max-tokens", type=click.IntRange(min=1), default=None,
              help="llm: completion token limit per turn (default: the server's).")
@click.option("--harness", type=click.Choice(["arena-gen", "odyssey"]), default="arena-gen",
              show_default=True,
              help="llm: the protocol. arena-gen: arena-gen's prompts, the last <action> tag "
                   "counts, the task's budget. odyssey: the OdysseyArena paper's harness (its "
                   "per-env history windows and step budgets, stop at </action> so the first "
                   "tag counts, no turns-left line); use it with --suite odyssey-lite to "
                   "reproduce the paper.")
@click.option("--history", type=click.IntRange(min=0), default=None,
              help="llm: past turns shown in each prompt (default: all).")
@click.option("--max-connections", type=click.IntRange(min=1), default=8, show_default=True,
              help="llm: requests in flight at once, across all episodes.")
@click.option("--max-prompt-tokens", type=click.IntRange(min=1), default=None,
              help="llm: drop the oldest history turns to keep each prompt under about this "
                   "many tokens (characters / 4); default: no limit.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=300.0,
              show_default=True, help="llm: seconds before a request is abandoned and retried.")
@click.option("--retries", type=click.IntRange(min=0), default=5, show_default=True,
              help="llm: retries per request (backoff with jitter) before infra_error.")
@click.option("--backoff", type=click.FloatRange(min=0), default=1.0, show_default=True,
              help="llm: base backoff delay in seconds (doubles per retry).")
@click.option("--abort-after-infra-errors", type=click.IntRange(min=0), default=3,
              show_default=True,
              help="Stop the run (exit 1, episodes kept) when this many episodes in a row end "
                   "in infra errors before any other finishes: an unreachable endpoint. 0: never.")
@display_option
def command(suite: str, agent: str, attempts: int, out: Path, envs: str | None,
            tasks: str | None, mode: str, jobs: int, executor: str, ray_address: str | None,
            resume: bool, seed: int, model: str | None, base_url: str | None,
            temperature: float, max_tokens: int | None, harness: str, history: int | None,
            max_connections: int, max_prompt_tokens: int | None, timeout: float, retries: int,
            backoff: float, abort_after_infra_errors: int, display: str | None) -> None:
    """Play an agent over a suite and write a run directory."""
    import os

    from arena_gen.core.suite_io import read_suite
    from arena_gen.runner.run import RunConfig, run_suite, select_tasks, summarize
    from arena_gen.ui import Reporter

    ui = Reporter(display)
    agent_config = None
    if agent == "llm":
        if not model:
            raise click.UsageError("--agent llm needs --model NAME")
        from arena_gen.agents.llm_client import DEFAULT_BASE_URL

        agent_config = {"model": model, "temperature": temperature, "max_tokens": max_tokens,
                        "history": history, "max_connections": max_connections,
                        "timeout": timeout, "retries": retries, "backoff": backoff,
                        "base_url": base_url or os.environ.get("OPENAI_BASE_URL")
                        or DEFAULT_BASE_URL}
        if max_prompt_tokens is not None:  # absent when unset: older runs still --resume
            agent_config["max_prompt_tokens"] = max_prompt_tokens
        if harness != "arena-gen":  # likewise absent for the default protocol
            if history is not None:
                raise click.UsageError("--history does not apply to --harness odyssey (its "
                                       "history windows are fixed per env)")
            agent_config["harness"] = harness
    elif harness != "arena-gen":
        raise click.UsageError("--harness applies to --agent llm only")
    cfg = RunConfig(suite=suite, agent=agent, attempts=attempts, out=str(out),
                    envs=split_list(envs), tasks=split_list(tasks), mode=mode, jobs=jobs,
                    executor=executor, resume=resume, seed=seed, agent_config=agent_config,
                    ray_address=ray_address, abort_after_infra_errors=abort_after_infra_errors)
    with user_errors():
        suite_obj = read_suite(suite)
        selected = select_tasks(suite_obj, cfg.envs, cfg.tasks)
        state = {"done": 0, "ok": 0, "turns": 0}
        start = time.perf_counter()
        with ui.progress(len(selected) * attempts, f"run {agent}") as advance:
            def on_episode(rec: dict[str, Any]) -> None:
                state["done"] += 1
                state["ok"] += bool(rec["success"])
                state["turns"] += rec["steps"]
                rate = state["turns"] / max(time.perf_counter() - start, 1e-9)
                advance(f"{state['ok']} successes, {rate:.0f} turns/s")

            rundir = run_suite(cfg, on_episode=on_episode, suite=suite_obj)
    counts = summarize(rundir.records())
    rows = [[env, c["episodes"], c["success"], f"{100 * c['success'] / c['episodes']:.1f}",
             c["infra_error"], c["turns"]]
            for env, c in sorted(counts.items())]
    ui.table(f"Run {agent} on {suite} (harness {harness}) -> {out}",
             ["env", "episodes", "successes", "success %", "infra errors", "turns"], rows)
    env_errors = sum(c["env_error"] for c in counts.values())
    if env_errors:
        ui.line(f"{env_errors} episode(s) ended in env_error (the env raised: a bug in a game "
                f"rule); they are scored as failures, their errors are in {rundir.trajectories}")
