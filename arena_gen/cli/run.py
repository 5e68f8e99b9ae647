"""``arena-gen run``: play an agent over a suite and write a run directory."""

from __future__ import annotations

import os
import shlex
import signal
import sys
import threading
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


def program_as_typed() -> str:
    """The program as the user typed it (``.venv/bin/arena-gen`` in the Quickstart), so the
    resume hint runs where it is pasted; ``arena-gen`` when it was started another way."""
    typed = sys.argv[0] if sys.argv else ""
    return typed if os.path.basename(typed) == "arena-gen" else "arena-gen"


class IgnoredToolChoice:
    """Replies without a tool call although ``--tool-choice required`` was sent: the endpoint
    ignores the setting (it answered 200 without a call). Said once, in words, at the first
    such reply, and counted over the run's turns at its end."""

    def __init__(self, say: Callable[[str], None]) -> None:
        self.say = say
        self.told = False

    def heard(self, where: str) -> None:
        """One reply without a call (``where``: its task and turn); the first one is said."""
        if not self.told:
            self.told = True
            self.say(f"warning: the endpoint ignores --tool-choice required: the reply of "
                     f"{where} made no tool call although one was required, so the turn was "
                     f"played as an invalid action and counts against the model. The server "
                     f"may not support tool_choice=required (check its tool-call settings, "
                     f"e.g. vLLM's --tool-call-parser, or run with --action-format text)")

    @staticmethod
    def summary(records: list[dict[str, Any]]) -> str | None:
        """The run's count of such turns, or None when there were none."""
        turns = [sum(bool(t.get("tool_choice_ignored")) for t in r.get("turns", []))
                 for r in records]
        if not sum(turns):
            return None
        return (f"{sum(turns)} turn(s) in {sum(n > 0 for n in turns)} episode(s) got a reply "
                f"without a tool call although --tool-choice required was sent (the endpoint "
                f"ignores it); each was played as an invalid action")


def dry_run_report(ui: Any, cfg: Any, prices: dict[str, float] | None) -> None:
    """``run --dry-run``: the run's episodes, model calls, tokens and cost, played by no one."""
    from arena_gen.runner.estimate import ASSUMED_REPLY_TOKENS, estimate
    from arena_gen.runner.run import read_run_tasks, select_tasks
    from arena_gen.runner.rundir import RunDir
    from arena_gen.runner.spend import usd

    suite_obj = read_run_tasks(cfg)
    selected = select_tasks(suite_obj, cfg.envs, cfg.tasks)
    done = RunDir(cfg.out).finished() if cfg.resume and RunDir(cfg.out).exists() else set()
    left = [sum((t.id, a) not in done for a in range(cfg.attempts)) for t in selected]
    est = estimate(selected, cfg.agent, cfg.agent_config, cfg.mode, left)

    def cost(e: Any) -> str:
        value = usd(e.prompt_tokens, e.completion_tokens, prices)
        return "-" if value is None else f"${value:,.2f}"

    rows = [[env, e.episodes, f"{e.calls:,}", f"{e.prompt_tokens / 1e6:,.2f}M",
             f"{e.completion_tokens / 1e6:,.2f}M", cost(e)] for env, e in sorted(est.envs.items())]
    rows.append(["total", est.episodes, f"{est.calls:,}", f"{est.prompt_tokens / 1e6:,.2f}M",
                 f"{est.completion_tokens / 1e6:,.2f}M", cost(est)])
    ui.table(f"Dry run of {cfg.agent} on {cfg.suite} (nothing is sent or written)",
             ["env", "episodes", "model calls (at most)", "prompt tokens (about)",
              "completion tokens", "cost"], rows)
    config = cfg.agent_config or {}
    if est.prompt_tokens:
        policy = ("the odyssey harness's per-env history windows" if config.get("harness")
                  else f"the last {config['history']} turns" if config.get("history") is not None
                  else "the whole history")
        if config.get("max_prompt_tokens"):
            policy += f", at most {config['max_prompt_tokens']} tokens a prompt"
        reply = (f"--max-tokens {config['max_tokens']} per call (a bound)"
                 if config.get("max_tokens") else
                 f"{ASSUMED_REPLY_TOKENS} per call assumed (--max-tokens bounds it)")
        ui.line(f"{est.episodes} episodes, at most {est.calls:,} model calls (the turn budgets; "
                f"an episode that succeeds early makes fewer). Prompt tokens (characters / 4): "
                f"first prompts {est.first_prompts // max(est.tasks, 1):,} on average, each past "
                f"turn shown adds its observation; context policy: {policy}. Completion tokens: "
                f"{reply}.")
    if prices is None and est.prompt_tokens:
        ui.line("give --price-in and --price-out (USD per 1M tokens) for the cost")


def resume_command(ctx: click.Context) -> str:
    """The command that continues this run: the program and options as typed, plus
    ``--resume``."""
    words = [program_as_typed(), "run"]
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
def terminate_as_interrupt() -> Iterator[None]:
    """SIGTERM (``kill``, a scheduler's stop) ends the run as Ctrl-C does: the episodes
    finished are kept and the resume command is printed (it ended silently, exit 143)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextmanager
def interrupt_note(say: Callable[[str], None], out: Path,
                   planned: dict[str, int]) -> Iterator[None]:
    """On Ctrl-C or SIGTERM, say what is saved and how to continue (as ``build`` does), then
    abort."""
    try:
        with terminate_as_interrupt():
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
              show_default=True,
              help="inductive: the agent must discover the hidden rules by acting; with-rules: "
                   "the task's rules are disclosed in the prompt (a control condition).")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Episodes played at once: worker processes for scripted agents, at least "
                   "this many open episodes for the LLM agent (with --max-connections).")
@click.option("--executor", type=click.Choice(["local", "ray"]), default="local",
              show_default=True,
              help="Where episodes run: local worker processes, or Ray tasks (pip install "
                   "'arena-gen[ray]'; see --ray-address).")
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
              help="llm: retries per request (backoff with jitter) before infra_error, on "
                   "429, 408, timeouts and 5xx but 501/505 (a 4xx, 501 or 505 is final).")
@click.option("--backoff", type=click.FloatRange(min=0), default=1.0, show_default=True,
              help="llm: base backoff delay in seconds (doubles per retry).")
@click.option("--abort-after-infra-errors", type=click.IntRange(min=0), default=3,
              show_default=True,
              help="Stop the run (exit 1, episodes kept) when this many episodes in a row end "
                   "in infra errors before any other finishes: an unreachable endpoint. 0: never.")
@click.option("--heartbeat", type=click.FloatRange(min=0), default=30.0, show_default=True,
              help="Seconds between progress lines while episodes run (turns so far, elapsed "
                   "time, turns/s), so a long LLM episode shows it is alive. 0: none.")
@click.option("--sign-key", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The evaluator's private key (arena-gen keygen): sign the run as it is "
                   "written (run.json.sig over its plan, suite and chain head), so score and "
                   "report --public-key refuse any forged or edited run.")
@click.option("--dry-run", is_flag=True,
              help="Play nothing: print the episodes, the model calls (the turn budgets) and "
                   "an estimate of the tokens (from the first prompts and the context policy) "
                   "and, with --price-in/--price-out, of the cost; then exit.")
@click.option("--price-in", type=click.FloatRange(min=0), default=None,
              help="USD per 1M prompt tokens (with --price-out): prices --dry-run and "
                   "--max-cost.")
@click.option("--price-out", type=click.FloatRange(min=0), default=None,
              help="USD per 1M completion tokens (with --price-in).")
@click.option("--max-cost", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Stop the run once its tokens cost this many USD at --price-in/--price-out "
                   "(the usage the endpoint reports, counted per turn and per --probes "
                   "milestone, over the whole run); "
                   "the finished episodes are kept, continue with --resume and a higher cap.")
@click.option("--max-total-tokens", type=click.IntRange(min=1), default=None,
              help="Stop the run once it has used this many tokens (prompt + completion, over "
                   "the whole run), as --max-cost does. (--max-tokens is the completion limit "
                   "of one call.)")
@click.option("--probes", is_flag=True,
              help="Ask world-model probes: at each milestone (after 25, 50, 75 and 100 % of "
                   "the budget, or at the end of an episode that ended before), a copy of the "
                   "agent that cannot act answers questions about the hidden world (the LLM "
                   "agent in a forked conversation without tools). They never change the "
                   "episode or its cost; their tokens are counted apart (and against "
                   "--max-cost and --max-total-tokens) and score grades them from the replay.")
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
            backoff: float, abort_after_infra_errors: int, heartbeat: float,
            sign_key: Path | None,
            dry_run: bool, price_in: float | None, price_out: float | None,
            max_cost: float | None, max_total_tokens: int | None,
            probes: bool, probes_per_milestone: int,
            display: str | None) -> None:
    """Play an agent over a suite and write a run directory."""
    import os

    from arena_gen.core.episode import turns_played
    from arena_gen.runner.run import RunConfig, read_run_tasks, run_suite, select_tasks, summarize
    from arena_gen.runner.spend import SpendStop
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
    from arena_gen.agents.llm_tools import watch_required
    from arena_gen.scoring.cost import prices_of

    with user_errors():
        prices = prices_of(price_in, price_out)
        if max_cost is not None and prices is None:
            raise click.UsageError("--max-cost needs --price-in and --price-out (USD per 1M "
                                   "prompt and completion tokens) to price the tokens")
    infra, planned, ignored = InfraReasons(say), dict[str, int](), IgnoredToolChoice(say)
    cfg = RunConfig(suite=suite, agent=agent, attempts=attempts, out=str(out),
                    envs=split_list(envs), tasks=split_list(tasks), mode=mode, jobs=jobs,
                    executor=executor, resume=resume, seed=seed, agent_config=agent_config,
                    ray_address=ray_address, abort_after_infra_errors=abort_after_infra_errors,
                    sign_key=str(sign_key) if sign_key is not None else None,
                    prices=prices, max_cost=max_cost, max_total_tokens=max_total_tokens,
                    probes=probes_per_milestone if probes else 0)
    if dry_run:
        with user_errors():
            dry_run_report(ui, cfg, prices)
        return
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

            with ui.heartbeat(beat, heartbeat), watch_required(ignored.heard):
                try:
                    rundir = run_suite(cfg, on_episode=on_episode, suite=suite_obj)
                except SpendStop as exc:
                    raise SpendStop(f"{exc}: {resume_command(click.get_current_context())}"
                                    ) from None
    for text in infra.summary():
        say(text)
    records = rundir.records()
    ignored_note = ignored.summary(records) if tool_choice == "required" else None
    if ignored_note:
        say(ignored_note)
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
