"""The ``arena-gen`` command line: build, verify and show frozen suites (more in later commands).

Every option can also be set through an ``ARENA_GEN_<OPTION>`` environment variable.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import click

from . import __version__
from .core import registry
from .core.errors import ArenaGenError
from .ui import DISPLAYS, Reporter

display_option = click.option("--display", type=click.Choice(DISPLAYS), default=None,
                              help="Output style (default: rich on a terminal, plain otherwise).")


@click.group(context_settings={"auto_envvar_prefix": "ARENA_GEN",
                               "help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="arena-gen")
def main() -> None:
    """Generate, verify, freeze, run and score hidden-rule agent benchmarks."""


def _envs_option(value: str | None) -> list[str] | None:
    if not value:
        return None
    names = [v.strip() for v in value.split(",") if v.strip()]
    for name in names:
        registry.get(name)
    return names


@main.command()
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
@display_option
def build(suite: str, seed: int, envs: str | None, out: Path | None, jobs: int, executor: str,
          ray_address: str | None, display: str | None) -> None:
    """Sample, verify and freeze a suite (JSONL per env + a hashed manifest)."""
    from .core.suite_io import write_suite
    from .generator.build import build_suite
    from .generator.suites import preset

    ui = Reporter(display)
    try:
        env_names = _envs_option(envs) or registry.names()
        total = sum(int(preset(suite, e)["count"]) for e in env_names)
        out = out or Path("out") / f"{suite}-{seed}"
        want = {e: int(preset(suite, e)["count"]) for e in env_names}
        done = {e: 0 for e in env_names}
        rejected = {e: 0 for e in env_names}
        with ui.progress(total, f"build {suite} seed {seed}") as advance:
            def on_task(g: Any) -> None:
                done[g.task.env] += 1
                rejected[g.task.env] += sum(g.rejections.values())
                advance(", ".join(f"{e} {done[e]}/{want[e]} ({rejected[e]} rejected)"
                                  for e in env_names))

            result = build_suite(suite, seed, env_names, jobs=jobs, executor=executor,
                                 ray_address=ray_address, on_task=on_task)
        write_suite(out, result.manifest, result.tasks)
    except ArenaGenError as exc:
        raise click.ClickException(str(exc)) from None
    rows = []
    for env in env_names:
        gens = result.generated[env]
        steps = [g.task.certificate.min_steps for g in gens]
        known = [s for s in steps if s is not None]
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


@main.command()
@click.argument("suite")
@click.option("--rebuild", is_flag=True, help="Also regenerate from the seed and compare bytes.")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True)
@display_option
def verify(suite: str, rebuild: bool, jobs: int, display: str | None) -> None:
    """Re-prove a suite: schemas, hashes, certificates and witness replays."""
    from .core.suite_io import read_suite
    from .verifiers.suite_check import verify_suite

    ui = Reporter(display)
    try:
        total = len(read_suite(suite).all_tasks())
        with ui.progress(total, f"verify {suite}") as advance:
            report = verify_suite(suite, rebuild=rebuild, jobs=jobs,
                                  on_check=lambda c: advance(c.task_id))
    except ArenaGenError as exc:
        raise click.ClickException(str(exc)) from None
    failures = [c for c in report.checks if not c.ok]
    for check in failures:
        ui.line(f"FAIL {check.task_id}: {check.problem}")
    for problem in report.rebuild_problems:
        ui.line(f"FAIL rebuild: {problem}")
    rows = []
    for env, tasks in sorted(report.suite.tasks.items()):
        ids = {t.id for t in tasks}
        checks = [c for c in report.checks if c.task_id in ids]
        rows.append([env, len(tasks), sum(c.ok for c in checks),
                     f"{sum(c.seconds for c in checks):.2f}"])
    ui.table(f"Verified {report.suite.path}", ["env", "tasks", "ok", "verifier seconds"], rows)
    if not report.ok:
        raise click.ClickException(f"{len(failures)} task(s) failed"
                                   + (", rebuild differs" if report.rebuild_problems else ""))
    ui.line("all certificates hold" + (" and the rebuild is byte-identical" if rebuild else ""))


@main.command()
@click.argument("task_id")
@click.option("--suite", default=None, help="Suite folder or released name to search.")
@click.option("--reveal", is_flag=True, help="Also print the hidden world and the certificate.")
@click.option("--json", "as_json", is_flag=True, help="Print the task as JSON.")
def show(task_id: str, suite: str | None, reveal: bool, as_json: bool) -> None:
    """Print a task readably: what the agent sees, and with --reveal what it must discover."""
    try:
        task = _find_task(task_id, suite)
    except ArenaGenError as exc:
        raise click.ClickException(str(exc)) from None
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
        facts = {k: v for k, v in cert.facts.items()}
        if facts:
            click.echo(f"facts: {json.dumps(facts, sort_keys=True)}")


@main.command()
@click.option("--suite", required=True, help="Released suite name or suite folder.")
@click.option("--agent", type=click.Choice(["random", "oracle", "heuristic", "llm"]),
              required=True)
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
@display_option
def run(suite: str, agent: str, attempts: int, out: Path, envs: str | None, tasks: str | None,
        mode: str, jobs: int, executor: str, ray_address: str | None, resume: bool, seed: int,
        model: str | None,
        base_url: str | None, temperature: float, max_tokens: int | None, history: int | None,
        max_connections: int, max_prompt_tokens: int | None, timeout: float, retries: int,
        backoff: float, display: str | None) -> None:
    """Play an agent over a suite and write a run directory."""
    import os

    from .core.suite_io import read_suite
    from .runner.run import RunConfig, run_suite, select_tasks, summarize

    ui = Reporter(display)
    agent_config = None
    if agent == "llm":
        if not model:
            raise click.UsageError("--agent llm needs --model NAME")
        from .agents.llm_client import DEFAULT_BASE_URL

        agent_config = {"model": model, "temperature": temperature, "max_tokens": max_tokens,
                        "history": history, "max_connections": max_connections,
                        "timeout": timeout, "retries": retries, "backoff": backoff,
                        "base_url": base_url or os.environ.get("OPENAI_BASE_URL")
                        or DEFAULT_BASE_URL}
        if max_prompt_tokens is not None:  # absent when unset: older runs still --resume
            agent_config["max_prompt_tokens"] = max_prompt_tokens
    cfg = RunConfig(suite=suite, agent=agent, attempts=attempts, out=str(out),
                    envs=_split(envs), tasks=_split(tasks), mode=mode, jobs=jobs,
                    executor=executor, resume=resume, seed=seed, agent_config=agent_config,
                    ray_address=ray_address)
    try:
        selected = select_tasks(read_suite(suite), cfg.envs, cfg.tasks)
        total = len(selected) * attempts
        state = {"done": 0, "ok": 0, "turns": 0}
        start = time.perf_counter()
        with ui.progress(total, f"run {agent}") as advance:
            def on_episode(rec: dict[str, Any]) -> None:
                state["done"] += 1
                state["ok"] += bool(rec["success"])
                state["turns"] += rec["steps"]
                rate = state["turns"] / max(time.perf_counter() - start, 1e-9)
                advance(f"{state['ok']} successes, {rate:.0f} turns/s")

            rundir = run_suite(cfg, on_episode=on_episode)
    except ArenaGenError as exc:
        raise click.ClickException(str(exc)) from None
    rows = [[env, c["episodes"], c["success"], f"{100 * c['success'] / c['episodes']:.1f}",
             c["infra_error"], c["turns"]]
            for env, c in sorted(summarize(rundir.records(),
                                           {t.id: t for t in selected}).items())]
    ui.table(f"Run {agent} on {suite} -> {out}",
             ["env", "episodes", "successes", "success %", "infra errors", "turns"], rows)


@main.command()
@click.argument("task_id")
@click.option("--suite", default=None, help="Suite folder or released name to search.")
@click.option("--mode", type=click.Choice(["inductive", "with-rules"]), default="inductive",
              show_default=True)
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              default=Path("runs") / "play", show_default=True,
              help="Run directory the episode is appended to.")
def play(task_id: str, suite: str | None, mode: str, out: Path) -> None:
    """Play a task yourself in the terminal; the episode is saved like any other."""
    from .agents.human import HumanAgent
    from .runner.episode import run_episode
    from .runner.rundir import RunDir

    try:
        task = _find_task(task_id, suite)
    except ArenaGenError as exc:
        raise click.ClickException(str(exc)) from None
    rundir = RunDir(out)
    attempt = sum(1 for r in rundir.records() if r["task_id"] == task.id)
    record = run_episode(task, HumanAgent(read=lambda p: click.prompt(p, default="",
                                                                      show_default=False),
                                          write=click.echo),
                         mode=mode, attempt=attempt)
    if not rundir.exists():
        rundir.write_meta({"suite": task.suite, "agent": {"name": "human", "config": {}},
                           "mode": mode, "tasks": [task.id]})
    rundir.append(record)
    click.echo(f"\n{record['end_reason']}: {record['steps']} turns"
               + (f" (minimum {task.certificate.min_steps})"
                  if task.certificate.min_steps is not None else "")
               + f"; saved to {rundir.trajectories}")


@main.command()
@click.argument("run_dir", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.option("--suite", default=None, help="Suite to judge against (default: the run's).")
@click.option("--findings", "findings_file", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="Score findings produced elsewhere (JSONL) instead of a run.")
@click.option("--rubrics", "rubrics_file", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="With --findings: task id -> rubric items (JSON or JSONL).")
@display_option
def score(run_dir: Path | None, suite: str | None, findings_file: Path | None,
          rubrics_file: Path | None, display: str | None) -> None:
    """Judge a run and compute its metrics (findings.jsonl, summary.json, summary.csv)."""
    from .scoring.score import score_findings, score_run, summary_rows

    ui = Reporter(display)
    try:
        if findings_file is not None:
            if rubrics_file is None:
                raise ArenaGenError("--findings needs --rubrics")
            summary = score_findings(findings_file, rubrics_file)
            title = f"Scores of {findings_file}"
        elif run_dir is not None:
            summary = score_run(run_dir, suite)
            title = f"Scores of {run_dir} (written to summary.json, summary.csv, findings.jsonl)"
        else:
            raise ArenaGenError("give a RUN_DIR, or --findings FILE --rubrics FILE")
    except ArenaGenError as exc:
        raise click.ClickException(str(exc)) from None
    cols = ["env", "level", "tasks", "attempts", "success_rate", "avg_at_k", "pass_at_1",
            "trajectory_efficiency", "loop_ratio", "infra_errors", "missing"]

    def fmt(v: Any) -> str:
        return "-" if v is None else (f"{v:.4g}" if isinstance(v, float) else str(v))

    ui.table(title, cols, [[fmt(row.get(c)) for c in cols] for row in summary_rows(summary)])


@main.command()
@click.argument("run_dirs", nargs=-1, required=True,
                type=click.Path(file_okay=False, exists=True, path_type=Path))
@click.option("--html", "html_out", type=click.Path(dir_okay=False, path_type=Path),
              required=True, help="Output HTML file (self-contained, opens offline).")
def report(run_dirs: tuple[Path, ...], html_out: Path) -> None:
    """Compare scored runs in one HTML page: scores, curves, steps, loops, tokens."""
    from .scoring.report import write_report

    try:
        out = write_report(run_dirs, html_out)
    except ArenaGenError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"wrote {out}")


def _split(value: str | None) -> list[str] | None:
    return [v.strip() for v in value.split(",") if v.strip()] if value else None


def _find_task(task_id: str, suite: str | None) -> Any:
    from .core.paths import suites_dir
    from .core.suite_io import read_suite

    if suite:
        return read_suite(suite).task(task_id)
    candidates = []
    for root in (Path("suites"), suites_dir()):
        if root.is_dir():
            candidates += sorted(p.parent for p in root.glob("*/manifest.json"))
    name = task_id.split("-")[1] if task_id.count("-") >= 3 else None
    candidates.sort(key=lambda p: p.name != name)
    for path in candidates:
        suite_obj = read_suite(path)
        if task_id in suite_obj.manifest["tasks"]:
            return suite_obj.task(task_id)
    raise ArenaGenError(f"task {task_id!r} not found in ./suites or the released suites; "
                        f"pass --suite DIR")


#: The floor the released OdysseyArena lights data claims for every task's minimum length.
RELEASED_LIGHTS_FLOOR = 10


def _detect_env(path: Path, forced: str | None) -> str:
    """The env whose importer accepts a file (each importer rejects files of other formats)."""
    if forced:
        return forced
    problems = []
    for spec in registry.specs():
        if spec.importer is None:
            continue
        try:
            spec.load("importer")(path)
        except (ArenaGenError, ValueError, KeyError, TypeError) as exc:
            problems.append(f"{spec.name}: {exc}")
            continue
        return spec.name
    raise ArenaGenError(f"{path}: no importer accepts this file ({'; '.join(problems)})")


@main.command(name="import")
@click.argument("source", type=click.Choice(["odyssey-arena"]))
@click.argument("paths", nargs=-1, required=True,
                type=click.Path(dir_okay=False, exists=True, path_type=Path))
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Output suite folder.")
@click.option("--env", "env", default=None, help="Force the env (default: detect per file).")
@display_option
def import_cmd(source: str, paths: tuple[Path, ...], out: Path, env: str | None,
               display: str | None) -> None:
    """Import released data as verified tasks (exact minima replace the released claims)."""
    from .generator.importer import import_tasks, write_import

    ui = Reporter(display)
    try:
        if env:
            registry.get(env)
        by_env: dict[str, list[str]] = {}
        for path in paths:
            by_env.setdefault(_detect_env(path, env), []).append(str(path))
        tasks = {name: import_tasks(name, files) for name, files in by_env.items()}
        written = write_import(out, tasks, by_env)
    except ArenaGenError as exc:
        raise click.ClickException(str(exc)) from None
    rows = []
    for name, env_tasks in tasks.items():
        for task in env_tasks:
            steps = task.certificate.min_steps
            floor = "-"
            if name == "lights" and steps is not None:
                floor = "yes" if steps >= RELEASED_LIGHTS_FLOOR else "NO"
            rows.append([task.id, task.params.get("source_idx", "-"), task.params.get("n", "-"),
                         "-" if steps is None else steps, floor])
    ui.table(f"Imported from {source} -> {written}",
             ["task", "source idx", "N", "exact minimum", f">= {RELEASED_LIGHTS_FLOOR} floor"],
             rows)
    below = [r[0] for r in rows if r[4] == "NO"]
    if below:
        ui.line(f"{len(below)} lights task(s) fall below the released {RELEASED_LIGHTS_FLOOR}-step "
                f"floor: {', '.join(below)}")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
