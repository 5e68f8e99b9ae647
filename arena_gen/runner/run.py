"""Run an agent over a suite: many (task, attempt) episodes, in parallel, resumably."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena_gen.agents.registry import make_agent
from arena_gen.core.episode import run_episode
from arena_gen.core.errors import ArenaGenError
from arena_gen.core.parallel import EXECUTORS, map_unordered
from arena_gen.core.protocol import DEFAULT_HARNESS
from arena_gen.core.registry import make_env
from arena_gen.core.run_signature import RUN_SIGNATURE, RunSigner, verify_run_signature
from arena_gen.core.suite_io import Suite, read_suite
from arena_gen.core.task import Task
from arena_gen.runner.heap import long_lived_frozen
from arena_gen.runner.meta import now, run_meta
from arena_gen.runner.rundir import OPERATIONAL_KEYS, RunDir, check_run_folder, plan_digest
from arena_gen.runner.spend import Spend, SpendStop

#: Agents that read the rules text, so they play only ``--mode with-rules``.
RULES_AGENTS = ("planner",)


@dataclass
class RunConfig:
    """Everything that defines a run (recorded in run.json; secrets never included)."""

    suite: str
    agent: str
    attempts: int = 1
    out: str = "runs/run"
    envs: Sequence[str] | None = None
    tasks: Sequence[str] | None = None
    mode: str = "inductive"
    jobs: int = 1
    executor: str = "local"
    resume: bool = False
    seed: int = 0
    agent_config: dict[str, Any] | None = None
    ray_address: str | None = None
    #: World-model probes asked per milestone (0: off; ``run --probes``).
    probes: int = 0
    #: Stop when this many episodes in a row end in infra errors before any other has finished
    #: (an unreachable endpoint would otherwise spend its retries on every episode); 0: never.
    abort_after_infra_errors: int = 3
    #: The evaluator's private key (``--sign-key``): signs the run as it is written.
    sign_key: str | None = None
    #: USD per 1M prompt and completion tokens (``input_usd_per_1m``, ``output_usd_per_1m``)
    prices: dict[str, float] | None = None
    #: stop the run (resumable) once its tokens cost this many USD (needs ``prices``)
    max_cost: float | None = None
    #: stop the run (resumable) once it has used this many tokens (prompt + completion)
    max_total_tokens: int | None = None


class InfraAbort(ArenaGenError):
    """The run stopped early: its first episodes all ended in infra errors."""


def select_tasks(suite: Suite, envs: Sequence[str] | None,
                 task_ids: Sequence[str] | None) -> list[Task]:
    """The suite's tasks filtered by env and id, in suite order."""
    tasks = suite.all_tasks()
    if envs:
        known_envs = sorted(suite.manifest["counts"])
        unknown = sorted(set(envs) - set(known_envs))
        if unknown:
            raise ArenaGenError(f"suite has no env {unknown[0]!r}; it has {known_envs}")
        tasks = [t for t in tasks if t.env in envs]
    if task_ids:
        known = {t.id for t in tasks}
        missing = [t for t in task_ids if t not in known]
        if missing:
            raise ArenaGenError(f"no task {missing[0]!r} in the selection")
        tasks = [t for t in tasks if t.id in set(task_ids)]
    return tasks


def read_run_tasks(cfg: RunConfig) -> Suite:
    """The suite with only the tasks the run selects read and checked (not all of them)."""
    return read_suite(cfg.suite, envs=cfg.envs or None, task_ids=cfg.tasks or None)


def check_agent_mode(agent: str, mode: str) -> None:
    """Refuse an agent that cannot play in ``mode`` before anything is played: a with-rules
    planner in inductive mode would end every episode at turn 0 with 0 successes."""
    if agent in RULES_AGENTS and mode != "with-rules":
        raise ArenaGenError(f"--agent {agent} reads the rules text, which --mode {mode} does "
                            f"not disclose: run it with --mode with-rules")


def check_playable(tasks: Sequence[Task], suite_path: str | Path) -> None:
    """Compile every task's game before anything is written: a schema-valid task that its env
    cannot build (a lights condition reading bulb 99 of 10) fails here, naming the suite file,
    the task and the reason, instead of crashing the run and leaving a run.json behind."""
    for task in tasks:
        try:
            make_env(task).reset()  # compiles the game and renders its first observation
        except Exception as exc:  # any failure to compile the task's rules is the task's fault
            reason = str(exc) if isinstance(exc, ArenaGenError) else f"{type(exc).__name__}: {exc}"
            raise ArenaGenError(f"{Path(suite_path) / f'{task.env}.jsonl'}: task {task.id}: "
                                f"its {task.env} game cannot be built: {reason}") from None


def _play(args: tuple[Any, ...]) -> dict[str, Any]:
    task, agent_name, agent_config, mode, attempt, seed = args[:6]
    probes = int(args[6]) if len(args) > 6 else 0
    agent = make_agent(agent_name, task.env, agent_config, task.env_version)
    return run_episode(task, agent, mode=mode, attempt=attempt, run_seed=seed, probes=probes)


def run_suite(cfg: RunConfig, on_episode: Callable[[dict[str, Any]], None] | None = None, *,
              suite: Suite | None = None) -> RunDir:
    """Play every pending (task, attempt) of a run and leave a finalized run directory
    (``suite``: the already-read ``cfg.suite``, so it is not read twice)."""
    check_agent_mode(cfg.agent, cfg.mode)
    check_run_folder(cfg.out, "--out")
    signer = RunSigner(cfg.sign_key) if cfg.sign_key else None  # a bad key fails first
    rundir = RunDir(cfg.out, signer)
    with rundir.locked("--out"):  # one writer per folder: a second run or --resume is refused
        return _run_locked(cfg, rundir, on_episode, suite)


def _run_locked(cfg: RunConfig, rundir: RunDir,
                on_episode: Callable[[dict[str, Any]], None] | None,
                suite: Suite | None) -> RunDir:
    """:func:`run_suite` inside the folder's lock."""
    if rundir.exists() and not cfg.resume:  # before minutes of compiling the suite's games
        raise ArenaGenError(f"{rundir.path} already holds a run; pass --resume to continue "
                            f"it or choose another --out")
    suite = suite or read_run_tasks(cfg)
    tasks = select_tasks(suite, cfg.envs, cfg.tasks)
    meta = run_meta(suite.manifest, suite.path, tasks, agent=cfg.agent,
                    agent_config=cfg.agent_config, mode=cfg.mode, attempts=cfg.attempts,
                    seed=cfg.seed, executor=cfg.executor, jobs=cfg.jobs,
                    harness=str((cfg.agent_config or {}).get("harness", DEFAULT_HARNESS)),
                    probes=cfg.probes)
    if rundir.exists():
        old = rundir.read_meta()
        old.setdefault("harness", DEFAULT_HARNESS)
        difference = resume_difference(old, meta)
        if difference is not None:
            raise ArenaGenError(
                f"--resume refused: {difference} ({rundir.path}). A resumed run plays "
                f"what it started with (agent, model, prompts, harness, sampling, tasks); only "
                f"the endpoint settings ({', '.join(ENDPOINT_OPTIONS)}) may change. Choose "
                f"another --out for a new run")
        meta["started"] = old.get("started", now())
        meta["resumed"] = [*old.get("resumed", []), now()]
    else:
        meta["started"] = now()
    done = rundir.finished()  # reads the chain: a broken one or a malformed line is refused
    if rundir.unchained:
        raise ArenaGenError(
            f"--resume refused: {rundir.run_json} records no trajectory chain (the run was "
            f"written by an arena-gen before trajectories.jsonl was hash-chained), so its "
            f"lines cannot be continued as a chained run; score it as it is with "
            f"`arena-gen score --allow-unchained`, or start a new run with another --out")
    check_resume_signature(rundir, suite.manifest["suite_sha256"])
    spend = Spend(cfg.prices, cfg.max_cost, cfg.max_total_tokens)
    if rundir.exists() and "tokens_unrecorded" in old:
        meta["tokens_unrecorded"] = old["tokens_unrecorded"]
    if spend.capped and rundir.exists():
        spend.add_records(rundir.records())  # the cap holds over the whole run
        spend.add(meta.get("tokens_unrecorded"))  # and the turns of episodes a cap cancelled
        spend.check()
    check_playable(tasks, suite.path)  # compiles every game: after the cheap refusals
    order = [(t.id, a) for t in tasks for a in range(cfg.attempts)]
    by_id = {t.id: t for t in tasks}
    pending = [(by_id[tid], cfg.agent, dict(cfg.agent_config or {}), cfg.mode, a, cfg.seed,
                cfg.probes) for tid, a in order if (tid, a) not in done]
    # run.json is written when the first episode is recorded, not before: a run that fails
    # before playing (an agent that cannot be built, an endpoint refused) leaves nothing, so
    # the retry needs no --resume.
    # What the run read and compiled lives until it ends: out of the collector's passes.
    with long_lived_frozen():
        episodes = _execute(pending, cfg, spend) if spend.capped else _execute(pending, cfg)
        try:
            written = _record(episodes, cfg, rundir, meta, on_episode)
        except SpendStop as exc:
            episodes.close()  # cancels the episodes in flight; the finished ones are kept
            saved = len(rundir.finished()) if rundir.exists() else 0
            if rundir.exists():  # what the cancelled episodes spent counts on --resume
                recorded = Spend()
                recorded.add_records(rundir.records())
                meta["tokens_unrecorded"] = {
                    "prompt_tokens": max(0, spend.prompt - recorded.prompt),
                    "completion_tokens": max(0, spend.completion - recorded.completion)}
                rundir.write_meta(meta)
            where = (f"{saved} of {len(order)} episodes are saved in {rundir.path}; continue "
                     f"with --resume and a higher cap" if rundir.exists() else
                     f"no episode had finished, nothing was written to {rundir.path}")
            raise SpendStop(f"stopped: {exc}; {where}") from None
        if not written:  # nothing was pending (a finished run resumed): refresh its record
            rundir.write_meta(meta)
        rundir.finalize(order)
        meta["ended"] = now()
        rundir.write_meta(meta)
        return rundir


def _record(episodes: Any, cfg: RunConfig, rundir: RunDir, meta: dict[str, Any],
            on_episode: Callable[[dict[str, Any]], None] | None) -> bool:
    """Append each finished episode (run.json with the first); whether any was written."""
    written = False
    leading_infra: int | None = 0
    for record in episodes:
        if not written:
            rundir.write_meta(meta)
            rundir.repair()
            written = True
        rundir.append(record)
        if on_episode:
            on_episode(record)
        if leading_infra is not None and record["end_reason"] == "infra_error":
            leading_infra += 1
            if leading_infra >= cfg.abort_after_infra_errors > 0:
                episodes.close()  # cancels the episodes in flight; the finished ones are kept
                raise InfraAbort(
                    f"stopping the run: its first {leading_infra} episodes all ended in infra "
                    f"errors (last: {record.get('error', 'no detail')}). Check the endpoint "
                    f"(--base-url, the API key); the episodes so far are kept in {rundir.path}, "
                    f"continue with --resume")
        else:
            leading_infra = None  # something works: later infra errors are the endpoint's hiccups
    return written


def check_resume_signature(rundir: RunDir, suite_sha256: str) -> None:
    """A signed run resumes only under its own key, and only over lines that key signed (an
    edit made while it was stopped is refused, never signed over); an unsigned run with lines
    is not signed from the middle."""
    if not rundir.exists():
        return
    if rundir.signer is None:
        if rundir.signed:
            raise ArenaGenError(f"--resume refused: {rundir.path} is a signed run "
                                f"({RUN_SIGNATURE}); resume it with its --sign-key, or its "
                                f"signature would no longer cover its lines")
        return
    if not rundir.signed:
        if rundir.head is not None and rundir.head != plan_digest(rundir.read_meta()):
            raise ArenaGenError(f"--resume refused: {rundir.path} was not signed when its "
                                f"lines were written, and --sign-key would vouch for lines "
                                f"it did not see written; start a signed run with another "
                                f"--out")
        return
    meta = rundir.read_meta()
    verify_run_signature(rundir.path, rundir.signer.key.public_key(), "--sign-key",
                         plan_digest(meta), suite_sha256, rundir.head or plan_digest(meta))


def _execute(pending: list[Any], cfg: RunConfig, spend: Spend | None = None) -> Any:
    """Yield finished episode records as they complete, on the chosen executor; with
    ``spend``, raise :class:`SpendStop` once a cap is reached (per turn in the async executor,
    per finished episode on the others)."""
    if cfg.executor not in EXECUTORS:
        raise ArenaGenError(f"unknown executor {cfg.executor!r}; choose local or ray")
    if cfg.executor == "local" and cfg.agent == "llm":
        # network-bound: asyncio tasks in one process, sharing one connection limit
        from arena_gen.runner.async_exec import execute_async

        yield from execute_async(pending, cfg.jobs, spend)
        return
    for record in map_unordered(_play, pending, jobs=cfg.jobs, executor=cfg.executor,
                                ray_address=cfg.ray_address):
        yield record
        if spend is not None:  # counted once the runner has appended it
            spend.add_records([record])
            spend.check()


#: The command-line options of :data:`OPERATIONAL_KEYS`, as a refusal names them.
ENDPOINT_OPTIONS = ("--base-url", "--timeout", "--max-connections", "--retries", "--backoff")
#: How a refusal names a run setting or an agent option (else by its recorded key).
SETTING_NAMES = {
    "mode": "--mode", "attempts": "--attempts", "seed": "--seed", "harness": "--harness",
    "model": "--model", "temperature": "--temperature", "max_tokens": "--max-tokens",
    "history": "--history", "max_prompt_tokens": "--max-prompt-tokens",
    "action_format": "--action-format", "tool_choice": "--tool-choice",
}


def _shown(value: Any) -> str:
    """A setting's value as a refusal shows it (``not set`` for an absent option)."""
    if value is None:
        return "not set"
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _probes_shown(meta: dict[str, Any]) -> str:
    """A run's probe setting in words (``8 per milestone``, ``off``)."""
    probes = meta.get("probes")
    return f"{probes.get('per_milestone')} per milestone" if isinstance(probes, dict) else "off"


def _differs(setting: str, new: Any, old: Any) -> str:
    return f"{setting} differs: {_shown(new)} now, {_shown(old)} in the run"


def resume_difference(old: dict[str, Any], new: dict[str, Any]) -> str | None:
    """The first setting that decides what is played and differs between a recorded run
    (``old``) and its resumption (``new``), in words (``--model differs: b now, a in the
    run``), or None when the run may be resumed."""
    old_agent, new_agent = old.get("agent") or {}, new.get("agent") or {}
    if old_agent.get("name") != new_agent.get("name"):
        return _differs("--agent", new_agent.get("name"), old_agent.get("name"))
    if old.get("suite_sha256") != new.get("suite_sha256"):
        return (f"the suite's tasks differ (sha256 {str(new.get('suite_sha256'))[:12]} now, "
                f"{str(old.get('suite_sha256'))[:12]} in the run: another or a rebuilt suite)")
    if old.get("probes") != new.get("probes"):
        return _differs("--probes", _probes_shown(new), _probes_shown(old))
    for key in ("harness", "mode", "attempts", "seed"):
        if old.get(key) != new.get(key):
            return _differs(SETTING_NAMES[key], new.get(key), old.get(key))
    if old.get("tasks") != new.get("tasks"):
        before, after = list(old.get("tasks") or []), list(new.get("tasks") or [])
        added = [t for t in after if t not in set(before)]
        dropped = [t for t in before if t not in set(after)]
        detail = (f"{added[0]} added" if added else f"{dropped[0]} left out" if dropped
                  else "in another order")
        return (f"the selected tasks (--env, --tasks) differ: {len(after)} now, "
                f"{len(before)} in the run ({detail})")
    old_config = {k: v for k, v in (old_agent.get("config") or {}).items()
                  if k not in OPERATIONAL_KEYS}
    new_config = {k: v for k, v in (new_agent.get("config") or {}).items()
                  if k not in OPERATIONAL_KEYS}
    for key in sorted(set(old_config) | set(new_config)):
        if old_config.get(key) != new_config.get(key):
            return _differs(SETTING_NAMES.get(key, key), new_config.get(key), old_config.get(key))
    return None


def summarize(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Per-env counts for the end-of-run table. Success is the trajectory's own ``success``
    (the env's verdict); the runner never judges, ``arena-gen score`` does."""
    out: dict[str, Any] = {}
    for rec in records:
        env = out.setdefault(rec["env"], {"episodes": 0, "success": 0, "infra_error": 0,
                                          "env_error": 0, "agent_error": 0, "turns": 0,
                                          "seconds": 0.0})
        env["episodes"] += 1
        env["success"] += bool(rec["success"])
        env["infra_error"] += rec["end_reason"] == "infra_error"
        env["env_error"] += rec["end_reason"] == "env_error"
        env["agent_error"] += rec["end_reason"] == "agent_error"
        env["turns"] += rec["steps"]
        env["seconds"] += rec.get("seconds", 0.0)
    return out
