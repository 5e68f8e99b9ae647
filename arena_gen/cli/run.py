"""``arena-gen run``: play an agent over a suite and write a run directory."""

from __future__ import annotations

import shlex
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from arena_gen.cli.options import AgentChoice, display_option, split_list, user_errors
from arena_gen.core.probes import PROBES_PER_MILESTONE
from arena_gen.core.records import MAX_PROBES_PER_MILESTONE


class InfraReasons:
    """The distinct reasons episodes ended in infra errors: each printed once, as it first
    happens (the endpoint's answer would otherwise be only inside trajectories.jsonl), and
    counted for the end of the run."""

    def __init__(self, say: Callable[[str], None]) -> None:
        self.say = say
        self.counts: dict[str, int] = {}

    def saw(self, record: dict[str, Any]) -> None:
        """Note one finished episode; print its infra reason when it is a new one."""
        if record.get("end_reason") != "infra_error":
            return
        reason = str(record.get("error") or "no detail recorded")
        if reason not in self.counts:
            self.say(f"infra error ({record.get('task_id')} attempt {record.get('attempt')}): "
                     f"{reason}")
        self.counts[reason] = self.counts.get(reason, 0) + 1

    def summary(self) -> list[str]:
        """One line per distinct reason with its count, the most frequent first."""
        return [f"{n} episode(s) ended in infra error: {reason}"
                for reason, n in sorted(self.counts.items(), key=lambda kv: (-kv[1], kv[0]))]


def resume_command(ctx: click.Context) -> str:
    """The command that continues this run: the options as typed, plus ``--resume``."""
    words = ["arena-gen", "run"]
    for param in ctx.command.params:
        name = param.name or ""
        if (not isinstance(param, click.Option) or name == "resume"
                or ctx.get_parameter_source(name) is not ParameterSource.COMMANDLINE):
            continue
        value = ctx.params.get(name)
        if param.is_flag:
            if value:
                words.append(param.opts[-1])
        elif value is not None:
            words += [param.opts[-1], str(value)]
    return shlex.join([*words, "--resume"])


@contextmanager
def interrupt_note(say: Callable[[str], None], out: Path,
                   planned: dict[str, int]) -> Iterator[None]:
    """On Ctrl-C, say what is saved and how to continue (as ``build`` does), then abort."""
    try:
        yield
    except KeyboardInterrupt:
        from arena_gen.runner.rundir import RunDir

        rundir = RunDir(out)
        if not rundir.exists():
            say(f"interrupted before any episode was saved: nothing was written to {out}; "
                f"run the same command to start again")
        else:
            say(f"interrupted: {len(rundir.finished())} of {planned.get('episodes', '?')} "
                f"episodes are finished and saved in {out}; continue with: "
                f"{resume_command(click.get_current_context())}")
        raise


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
@click.option("--resume", is_flag=True,
              help="Continue a run: skip finished episodes (the endpoint settings may "
                   "change; the model, prompts, harness and sampling may not).")
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
@click.option("--action-format", type=click.Choice(["text", "tools"]), default="text",
              show_default=True,
              help="llm: how the model gives its action. text: in an <action> tag of the "
                   "reply. tools: as a tool (function) call; each env's actions are sent as "
                   "tool schemas (`tools`), the first call is played. arena-gen harness only.")
@click.option("--tool-choice", type=click.Choice(["auto", "required"]), default=None,
              help="llm, --action-format tools: the request's tool_choice. required: the model "
                   "must call a tool each turn (every turn needs an action); auto: it may answer "
                   "in text. Default: not sent (the server's default, auto).")
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
@click.option("--heartbeat", type=click.FloatRange(min=0), default=30.0, show_default=True,
              help="Seconds between progress lines while episodes run (turns so far, elapsed "
                   "time, turns/s), so a long LLM episode shows it is alive. 0: none.")
@click.option("--probes", is_flag=True,
              help="Ask world-model probes: at each milestone (after 25, 50, 75 and 100 % of "
                   "the budget, or at the end of an episode that ended before), a copy of the "
                   "agent that cannot act answers questions about the hidden world (the LLM "
                   "agent in a forked conversation without tools). They never change the "
                   "episode or its cost; their tokens are counted apart and score grades them "
                   "from the replay.")
@click.option("--probes-per-milestone", type=click.IntRange(min=1, max=MAX_PROBES_PER_MILESTONE),
              default=PROBES_PER_MILESTONE,
              show_default=True, help="With --probes: questions asked at each milestone.")
@display_option
def command(suite: str, agent: str, attempts: int, out: Path, envs: str | None,
            tasks: str | None, mode: str, jobs: int, executor: str, ray_address: str | None,
            resume: bool, seed: int, model: str | None, base_url: str | None,
            temperature: float, max_tokens: int | None, harness: str, action_format: str,
            tool_choice: str | None, history: int | None,
            max_connections: int, max_prompt_tokens: int | None, timeout: float, retries: int,
            backoff: float, abort_after_infra_errors: int, heartbeat: float, probes: bool,
            probes_per_milestone: int, display: str | None) -> None:
    """Play an agent over a suite and write a run directory."""
    import os

    from arena_gen.core.episode import turns_played
    from arena_gen.runner.run import RunConfig, read_run_tasks, run_suite, select_tasks, summarize
    from arena_gen.ui import Reporter, clock, rate

    ui = Reporter(display)
    # warnings and infra reasons are shown whatever the display (to stderr under --display none)
    say = ui.line if ui.mode != "none" else (lambda text: click.echo(text, err=True))
    agent_config = None
    if agent == "llm":
        if not model:
            raise click.UsageError("--agent llm needs --model NAME")
        from arena_gen.agents.llm_client import DEFAULT_BASE_URL, missing_key_warning

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
        if action_format != "text":  # likewise absent for the default format
            if harness != "arena-gen":
                raise click.UsageError("--action-format tools does not apply to --harness "
                                       "odyssey: the paper's harness keeps its <action> tags")
            agent_config["action_format"] = action_format
        if tool_choice is not None:  # likewise absent when not sent
            if action_format != "tools":
                raise click.UsageError("--tool-choice applies to --action-format tools only")
            agent_config["tool_choice"] = tool_choice
        warning = missing_key_warning(str(agent_config["base_url"]))
        if warning:
            say(f"warning: {warning}")
    elif harness != "arena-gen":
        raise click.UsageError("--harness applies to --agent llm only")
    elif action_format != "text":
        raise click.UsageError("--action-format applies to --agent llm only")
    elif tool_choice is not None:
        raise click.UsageError("--tool-choice applies to --agent llm only")
    from arena_gen.runner.run import check_agent_mode

    with user_errors():
        check_agent_mode(agent, mode)  # before the suite is read
    infra, planned = InfraReasons(say), dict[str, int]()
    cfg = RunConfig(suite=suite, agent=agent, attempts=attempts, out=str(out),
                    envs=split_list(envs), tasks=split_list(tasks), mode=mode, jobs=jobs,
                    executor=executor, resume=resume, seed=seed, agent_config=agent_config,
                    ray_address=ray_address, abort_after_infra_errors=abort_after_infra_errors,
                    probes=probes_per_milestone if probes else 0)
    with user_errors(), interrupt_note(say, out, planned):
        suite_obj = read_run_tasks(cfg)
        selected = select_tasks(suite_obj, cfg.envs, cfg.tasks)
        total = planned["episodes"] = len(selected) * attempts
        state = {"done": 0, "ok": 0, "turns": 0}
        start, played = time.perf_counter(), turns_played()

        def status() -> str:
            """Successes, turns (those of episodes still going included) and their rate."""
            turns = max(state["turns"], turns_played() - played)
            seconds = time.perf_counter() - start
            return (f"{state['ok']} successes, {turns} turns, {clock(seconds)} elapsed, "
                    f"{rate(turns, seconds)}")

        with ui.progress(total, f"run {agent}") as advance:
            def on_episode(rec: dict[str, Any]) -> None:
                infra.saw(rec)
                state["done"] += 1
                state["ok"] += bool(rec["success"])
                state["turns"] += rec["steps"]
                advance(status())

            def beat() -> None:
                if ui.mode == "plain":
                    ui.line(f"run {agent}: {state['done']}/{total} episodes done, {status()}")
                else:
                    advance(status(), step=0)

            with ui.heartbeat(beat, heartbeat):
                rundir = run_suite(cfg, on_episode=on_episode, suite=suite_obj)
    for text in infra.summary():
        say(text)
    records = rundir.records()
    counts = summarize(records)
    rows = [[env, c["episodes"], f"{c['success']} ({100 * c['success'] / c['episodes']:.1f} %)",
             c["turns"], c["infra_error"], c["env_error"], c["agent_error"]]
            for env, c in sorted(counts.items())]
    ui.table(f"Run {agent} on {suite} (harness {harness}) -> {out}",
             ["env", "episodes", "successes", "turns", "infra errors", "env errors",
              "agent errors"], rows)
    for reason, why in (("env_error", "the env raised: a bug in a game rule"),
                        ("agent_error", "the agent raised, e.g. a prompt over the model's "
                                        "context window or a reply it could not read")):
        n = sum(c[reason] for c in counts.values())
        if n:
            first = next(r.get("error") for r in records if r["end_reason"] == reason)
            ui.line(f"{n} episode(s) ended in {reason} ({why}); they are scored as failures, "
                    f"their errors are in {rundir.trajectories} (first: {first})")
    if counts and all(c["infra_error"] == c["episodes"] for c in counts.values()):
        raise click.ClickException(
            f"every episode ended in an infra error (reasons above); nothing was evaluated. "
            f"Fix the endpoint and continue with --resume (the run is kept in {out})")
