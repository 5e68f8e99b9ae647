"""Score a run: judge every trajectory, apply the policy, aggregate metrics per env and level.

Writes ``findings.jsonl``, ``summary.json`` and ``summary.csv`` into the run directory. The same
aggregation serves findings produced elsewhere (``arena-gen score --findings``).

Every figure comes from the suite and the replay of the recorded actions under the run's plan
(run.json's tasks, attempts, agent, mode and harness), never from a field a line claims: steps,
success, validity, loops and profit are the replay's (:class:`~.judge.Replay`). Lines outside
the plan are refused (:class:`~arena_gen.core.errors.PlanError`, naming file and line); a run
with missing or infra-error attempts is marked incomplete with its coverage, and ``strict``
counts those attempts as failures. Token counts are the one recorded input: what the endpoint
reported using, which no replay can recompute.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena_gen.core.bounded_io import iter_lines, read_bounded
from arena_gen.core.canon import canonical_json
from arena_gen.core.errors import ArenaGenError, PlanError, SchemaError
from arena_gen.core.protocol import DEFAULT_HARNESS, HARNESSES
from arena_gen.core.records import MAX_PROBES_PER_MILESTONE, FindingsLine, Summary
from arena_gen.core.run_signature import check_run_signature
from arena_gen.core.schema import loads, validate_doc
from arena_gen.core.suite_io import Suite, read_suite
from arena_gen.core.task import Task
from arena_gen.core.usage import USAGE_KEYS, turn_tokens
from arena_gen.runner.rundir import RunDir, plan_digest, planned_attempts
from arena_gen.scoring.cost import token_counts
from arena_gen.scoring.definitions import fmt, metric_definitions
from arena_gen.scoring.induction_efficiency import (
    Reference,
    episode_efficiency,
    reference_of,
    reference_text,
)
from arena_gen.scoring.judge import Replay, owned_budget, replay_trajectory
from arena_gen.scoring.knowledge import final_accuracy, judge_knowledge, knowledge_metrics
from arena_gen.scoring.metrics import (
    clustered_mean_se,
    evolution_of,
    log_growth,
    loop_turns,
    mean_se,
    median,
    pass_at_k,
    pass_hat_k,
    task_mean_se,
)
from arena_gen.scoring.policy import attempt_score, is_perfect


def judge_record(task: Task, record: dict[str, Any], harness: str | None = None,
                 probes: int | None = None) -> dict[str, Any]:
    """One findings line for one trajectory: its actions replayed through the task's game under
    the budget ``harness`` (its run's; default: the one the trajectory records) gives the task
    (``probes``: the run's probes per milestone, graded into ``knowledge``)."""
    return judge_attempt(task, record, harness, probes)[0]


def judge_attempt(task: Task, record: dict[str, Any], harness: str | None = None,
                  probes: int | None = None) -> tuple[dict[str, Any], Replay | None]:
    """:func:`judge_record` and the replay's figures (None for an infra error: not played
    again); the findings line records them under ``replay``, and with ``probes`` (the run's
    probes per milestone) the knowledge curve graded from the replay under ``knowledge``."""
    infra = record.get("end_reason") == "infra_error"
    if harness is None:
        played = record.get("harness", DEFAULT_HARNESS)
        harness = played if played in HARNESSES else DEFAULT_HARNESS
    budget, budget_finding = owned_budget(task, record, harness)
    replay: Replay | None = None
    findings: list[dict[str, Any]] = []
    mismatch = False
    if not infra:
        findings, mismatch, replay = replay_trajectory(task, record, budget=budget)
    if budget_finding is not None and not infra:  # a claimed budget the run's harness refutes
        findings, mismatch = [*findings, budget_finding], True
    data: dict[str, Any] = {
        "task_id": task.id, "attempt": int(record["attempt"]), "env": task.env,
        "findings": findings,
        "flags": {"infra_error": infra, "reward_hacking_suspected": mismatch,
                  "rh_zeroed": False, "replay_mismatch": mismatch}}
    if replay is not None:
        data["replay"] = replay.to_json_dict()
    if probes and not infra:
        curve = judge_knowledge(task, record, budget, probes)
        if curve is not None:
            data["knowledge"] = {"milestones": curve, "final_accuracy": final_accuracy(curve)}
    line = FindingsLine.model_validate(data).to_json_dict()
    validate_doc(line, "findings")
    return line, replay


@dataclass
class Attempt:
    """One scored (or excluded) attempt with what metrics need."""

    task_id: str
    env: str
    level: str
    attempt: int
    score: float | None
    perfect: bool
    record: dict[str, Any] | None = None  # read for its tokens only (a cost, not replayable)
    min_steps: int | None = None
    #: The profit rate of the certificate's witness (see :func:`witness_profit`).
    oracle_profit: float | None = None
    fixed_horizon: bool = False
    replay: Replay | None = None  # the source of steps, validity, loops and profit
    #: ``played``; ``infra_error`` (excluded, or a failure under strict); ``missing`` (a
    #: planned attempt with no line: only under strict, as a failure)
    kind: str = "played"
    #: the knowledge curve graded from the replay (run --probes), else None
    knowledge: list[dict[str, Any]] | None = None
    #: what induction efficiency scores the attempt against (None: no reference, excluded)
    reference: Reference | None = None


@dataclass
class Group:
    """Attempts of one env/level (or all), plus the keys that never ran."""

    attempts: list[Attempt] = field(default_factory=list)
    missing: int = 0


def level_of(task: Task) -> str:
    """A task's difficulty level: its ``level`` knob, else its size ``n`` (bulbs, packages),
    else its suite (fixed-size presets)."""
    level = task.params.get("level")
    if level is not None:
        return str(level)
    if isinstance(task.params.get("n"), int):
        return f"n={task.params['n']}"
    return task.suite


def _r(x: float | None, nd: int = 4) -> float | None:
    return None if x is None else round(x, nd)


def fixed_horizon(task: Task) -> bool:
    """An episode that always runs its horizon (trading, energy): no minimum, so no efficiency."""
    return task.certificate.min_steps is None and "horizon" in task.params


def _per_task(attempts: Iterable[Attempt], value: Callable[[Attempt], float | None]
              ) -> dict[str, list[float]]:
    """Each task's defined values, in attempt order; tasks with none are left out."""
    out: dict[str, list[float]] = defaultdict(list)
    for a in attempts:
        v = value(a)
        if v is not None:
            out[a.task_id].append(v)
    return dict(out)


def _put(out: dict[str, Any], key: str, mean_and_se: tuple[float | None, float | None],
         nd: int = 4) -> None:
    """Store a metric and its ``_se``, rounded."""
    out[key], out[f"{key}_se"] = (_r(x, nd) for x in mean_and_se)


def _steps(a: Attempt) -> int | None:
    """Agent calls of a replayed attempt (None for findings scored without a trajectory)."""
    return a.replay.steps if a.replay is not None else None


def _profit(a: Attempt) -> float | None:
    """The replayed final profit rate (value / initial cash - 1), if the env's facts have one."""
    p = a.replay.facts.get("profit_rate") if a.replay is not None else None
    return float(p) if isinstance(p, (int, float)) and not isinstance(p, bool) else None


def _induction(a: Attempt) -> float | None:
    """The attempt's induction efficiency (:mod:`.induction_efficiency`): 0 when it failed,
    else from the replay's steps; None without a reference or, for a success, a replay."""
    return episode_efficiency(a.reference, a.perfect, a.replay.steps if a.replay else None)


def group_metrics(group: Group, k_max: int) -> dict[str, Any]:
    """Every metric of the spec over one group of attempts (definitions: ``definitions.py``)."""
    scored = [a for a in group.attempts if a.score is not None]
    n_tasks = len({a.task_id for a in group.attempts})
    recorded = [a for a in group.attempts if a.kind != "missing"]
    infra = sum(1 for a in recorded if a.kind == "infra_error" or a.score is None)
    missing = group.missing + len(group.attempts) - len(recorded)
    out: dict[str, Any] = {"attempts": len(recorded), "scored": len(scored),
                           "infra_errors": infra, "missing": missing, "tasks": n_tasks,
                           "planned": len(recorded) + missing,
                           "complete": infra == 0 and missing == 0}
    success = _per_task(scored, lambda a: 100.0 * a.perfect)
    _put(out, "success_rate", clustered_mean_se(success.values()))
    _put(out, "avg_at_k", task_mean_se(success.values()))
    _put(out, "avg_credit_at_k", task_mean_se(_per_task(scored, lambda a: a.score).values()))
    out["avg_at_k_excluded"] = n_tasks - len(success)
    # each task's (attempts, successes) once, not once per k: with k up to run.json's attempts
    # (10,000 at most) a per-k recount was quadratic (9 s for 3 tasks at 2,000 under --strict)
    counts = [(len(v), sum(x > 0 for x in v)) for v in success.values()]
    for k in range(1, k_max + 1):
        for name, estimator in (("pass_at", pass_at_k), ("pass_hat", pass_hat_k)):
            per_task = [estimator(n, c, k) for n, c in counts]
            ok = bool(per_task) and all(p is not None for p in per_task)
            _put(out, f"{name}_{k}",
                 mean_se([100.0 * p for p in per_task if p is not None]) if ok else (None, None))
    # Steps, validity and loops: the replay's (a recorded ``steps`` or ``valid`` is a claim).
    replays = [a.replay for a in scored if a.replay is not None]
    turns = sum(r.steps for r in replays)
    out["turns"] = turns
    out["invalid_action_rate"] = (_r(sum(r.invalid for r in replays) / turns)
                                  if turns else None)
    _put(out, "steps_mean", clustered_mean_se(_per_task(scored, _steps).values()))
    out["steps_se"] = out.pop("steps_mean_se")
    # Efficiency: undefined on fixed-horizon envs, and for an attempt with no agent call.
    eff = _per_task(scored, lambda a: (a.score or 0.0) / a.replay.steps
                    if a.replay and a.replay.steps and not a.fixed_horizon else None)
    _put(out, "trajectory_efficiency", clustered_mean_se(eff.values()), 6)
    out["trajectory_efficiency_excluded"] = n_tasks - len(eff)
    exact = {a.task_id for a in scored if a.min_steps}
    ratios = _per_task(scored, lambda a: a.min_steps / a.replay.steps
                       if a.perfect and a.min_steps and a.replay and a.replay.steps else None)
    _put(out, "optimality_ratio", clustered_mean_se(ratios.values()))
    out["optimality_ratio_excluded"] = n_tasks - len(exact)
    induction = _per_task(scored, _induction)
    _put(out, "induction_efficiency", clustered_mean_se(induction.values()))
    out["induction_efficiency_excluded"] = n_tasks - len(induction)
    kinds = {a.task_id: a.reference.kind for a in scored if a.reference is not None}
    out["induction_efficiency_reference"] = reference_text(kinds[t] for t in induction)
    looped = [a.replay for a in scored if a.replay is not None and not a.fixed_horizon]
    loop_total = sum(r.steps for r in looped)
    out["loop_ratio"] = (_r(sum(r.loops for r in looped) / loop_total) if loop_total else None)
    out["loop_ratio_excluded"] = n_tasks - len({a.task_id for a in scored
                                                if a.replay is not None and not a.fixed_horizon})
    profit = _per_task(scored, _profit)
    _put(out, "avg_at_k_profit", task_mean_se([[100 * p for p in v] for v in profit.values()]),
         6)
    _put(out, "best_at_k_profit", mean_se([100 * max(v) for v in profit.values()]), 6)
    out["profit_rate_median"] = _r(median([100 * p for v in profit.values() for p in v]), 6)
    growth = {t: [g for p in v if (g := log_growth(p)) is not None] for t, v in profit.items()}
    _put(out, "log_growth", task_mean_se(growth.values()), 6)
    out["log_growth_excluded"] = n_tasks - sum(1 for v in growth.values() if v)
    norm = _per_task(scored, lambda a: p / a.oracle_profit
                     if (p := _profit(a)) is not None and a.oracle_profit else None)
    _put(out, "normalized_profit", task_mean_se(norm.values()), 6)
    out["normalized_profit_excluded"] = n_tasks - len(norm)
    out["profit_excluded"] = n_tasks - len(profit)
    reported = [t for a in scored if a.record is not None
                for t in (a.record.get("turns") or []) if isinstance(t, dict)]
    tokens = sum(_turn_tokens(t) for t in reported)
    out["tokens"] = tokens
    out.update(token_counts(reported))  # prompt and completion apart: what a cost is priced on
    trading = bool(profit) and len(profit) == len(success)
    out["token_efficiency_basis"] = "avg_at_k_profit" if trading else "success_rate"
    basis = out[out["token_efficiency_basis"]]
    out["token_efficiency"] = (_r(basis / (tokens / 1e6), 6)
                               if tokens and basis is not None else None)
    know = knowledge_metrics((a.perfect, a.knowledge) for a in scored if a.knowledge is not None)
    if know is not None:  # run --probes: what the agent knew, apart from what it achieved
        know["tokens"] = sum(_probe_tokens(a.record) for a in scored if a.record is not None)
        out["knowledge"] = know
    return out


def _probe_tokens(record: dict[str, Any]) -> int:
    """Tokens the probe requests of one attempt used (never part of ``tokens`` or a cost)."""
    milestones = record.get("probes")
    return sum(turn_tokens(m.get("tokens")) for m in
               (milestones if isinstance(milestones, list) else []) if isinstance(m, dict))


def _turn_tokens(turn: dict[str, Any]) -> int:
    """Tokens one turn used: the reported total, else prompt + completion, else 0; a value
    that is no token count (negative, fractional, absurd: an edited or older line) counts 0."""
    return turn_tokens(turn.get("tokens"))


def aggregate(attempts: Sequence[Attempt], k_max: int, missing: Iterable[tuple[str, str]] = ()
              ) -> dict[str, Any]:
    """Metrics per env, per (env, level) and overall."""
    groups: dict[tuple[str, str], Group] = defaultdict(Group)
    for a in attempts:
        for key in ((a.env, "*"), (a.env, a.level), ("*", "*")):
            groups[key].attempts.append(a)
    for env, level in missing:
        for key in ((env, "*"), (env, level), ("*", "*")):
            groups[key].missing += 1
    summary: dict[str, Any] = {"k": k_max, "overall": group_metrics(groups[("*", "*")], k_max),
                               "envs": {}, "metric_definitions": metric_definitions()}
    for (env, level), group in sorted(groups.items()):
        if env == "*":
            continue
        entry = summary["envs"].setdefault(env, {"levels": {}})
        if level == "*":
            entry.update(group_metrics(group, k_max))
        else:
            entry["levels"][level] = group_metrics(group, k_max)
    return summary


def _curve_entry(outcomes: Sequence[tuple[bool, int, int]]) -> dict[str, Any]:
    """One env's curves from (success, steps, loop turns) per attempt."""
    # Past the longest episode the curve is flat: the steps played bound it (a claimed budget
    # of 1e9 must not allocate a billion points).
    horizon = max(1, max(steps for _, steps, _ in outcomes))
    return {"evolution": [round(x, 4) for x in evolution_of(
                ((ok, steps) for ok, steps, _ in outcomes), horizon)],
            "steps": sorted(steps for _, steps, _ in outcomes),
            "loop_ratio": [round(loops / steps, 4) if steps else 0.0
                           for _, steps, loops in outcomes]}


def replay_curves(attempts: Sequence[Attempt]) -> dict[str, Any]:
    """Per-env evolution curves, step counts and loop ratios of the replayed attempts (what
    the HTML report plots): success, steps and loops are the replay's."""
    by_env: dict[str, list[tuple[bool, int, int]]] = defaultdict(list)
    for a in attempts:
        if a.replay is not None and a.score is not None:
            by_env[a.env].append((a.replay.success, a.replay.steps, a.replay.loops))
    return {env: _curve_entry(out) for env, out in sorted(by_env.items())}


def curves(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """:func:`replay_curves` over record-shaped dicts (``env``, ``success``, ``steps`` and
    ``turns``, bounded by ``budget``), for callers holding records, not replays."""
    by_env: dict[str, list[tuple[bool, int, int]]] = defaultdict(list)
    for r in records:
        if r.get("end_reason") != "infra_error":
            steps = min(int(r["steps"]), int(r.get("budget") or r["steps"]),
                        len(r.get("turns") or ()))
            by_env[r["env"]].append((bool(r.get("success")), steps, loop_turns(r)))
    return {env: _curve_entry(out) for env, out in sorted(by_env.items())}


def _agent_names(agent: str, task: Task, cache: dict[tuple[str, str, int], set[str]]
                 ) -> set[str]:
    """The names a trajectory of ``agent`` (run.json's) on ``task`` may record: the run's name,
    and the name the agent it builds carries (``--agent conservative`` plays as
    ``trading-conservative``); model and person agents are not built (they carry their name)."""
    key = (agent, task.env, int(task.env_version))
    if key not in cache:
        names = {agent}
        if agent not in ("llm", "human", "random"):
            from arena_gen.agents.registry import make_agent

            try:
                built = make_agent(agent, task.env, None, task.env_version)
                names.add(str(getattr(built, "name", type(built).__name__)))
            except Exception:  # an agent this install cannot build: only its run name
                pass
        cache[key] = names
    return cache[key]


class PlanCheck:
    """Admits the lines of a run's plan one at a time (see :func:`planned_records`), keeping per
    (task, attempt) key only the line number and end reason of the line it admitted."""

    def __init__(self, meta: dict[str, Any], tasks: dict[str, Task], file: str) -> None:
        plan = [str(t) for t in meta.get("tasks", [])]
        self.planned = set(plan)
        for tid in plan:
            if tid not in tasks:
                raise PlanError("run.json plans a task the suite does not have", file=file,
                                task_id=tid, json_path="$.tasks")
        self.tasks, self.file = tasks, file
        self.attempts, self.meta = int(meta.get("attempts", 1)), meta
        self.agent = str((meta.get("agent") or {}).get("name", ""))
        self.mode = meta.get("mode")
        self.names: dict[tuple[str, str, int], set[str]] = {}
        self.kept: dict[tuple[str, int], tuple[int, Any]] = {}

    def admit(self, lineno: int, rec: dict[str, Any]) -> tuple[str, int]:
        """The line's key, or a :class:`PlanError` naming file and line when it is not a line of
        this run; a later line for a key replaces an ``infra_error`` one (its retry)."""
        tid, attempt = str(rec["task_id"]), int(rec["attempt"])

        def refuse(why: str, path: str) -> PlanError:
            return PlanError(f"{why}: not a line of this run (refused, not scored)",
                             file=self.file, line=lineno, task_id=tid, json_path=path)

        if tid not in self.planned:
            raise refuse("the task is not in the run's plan (run.json tasks)", "$.task_id")
        task = self.tasks[tid]
        planned = planned_attempts(self.meta, tid)
        if not 0 <= attempt < planned:
            raise refuse(f"attempt {attempt} is outside the run's {planned} attempt(s)",
                         "$.attempt")
        if rec.get("env") != task.env:
            raise refuse(f"env {rec.get('env')!r} is not the task's {task.env!r}", "$.env")
        if rec.get("agent") not in _agent_names(self.agent, task, self.names):
            raise refuse(f"agent {rec.get('agent')!r} is not the run's {self.agent!r}",
                         "$.agent")
        if rec.get("mode") != self.mode:
            raise refuse(f"mode {rec.get('mode')!r} is not the run's {self.mode!r}", "$.mode")
        earlier = self.kept.get((tid, attempt))
        if earlier is not None and earlier[1] != "infra_error":
            raise refuse(f"a second line for attempt {attempt} (the first is line "
                         f"{earlier[0]})", "$.attempt")
        self.kept[(tid, attempt)] = (lineno, rec.get("end_reason"))
        return tid, attempt


def witness_profit(task: Task) -> float | None:
    """The profit rate of the certificate's witness, what the ``oracle`` agent plays: the
    normalized profit's denominator. Trading v1 and v2 witnesses are the perfect-foresight
    oracle's trades (``oracle_profit``); from v3 on the witness is the W-known planner's
    (``planner_profit``; the oracle, which chases the noise, stays as ``oracle_profit``)."""
    facts = task.certificate.facts
    value = facts.get("planner_profit" if task.env_version >= 3 else "oracle_profit")
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) \
        else None


def planned_records(meta: dict[str, Any], numbered: Iterable[tuple[int, dict[str, Any]]],
                    tasks: dict[str, Task], file: str) -> list[tuple[int, dict[str, Any]]]:
    """The lines of the run's plan, one per (task, attempt) key, in file order: a line of a task
    outside run.json's ``tasks`` (or the suite), an attempt index outside ``attempts``, another
    env, agent or mode than the run's, or a second line for a key is refused with a
    :class:`PlanError` naming file and line. The one duplicate a run leaves is kept: an
    ``infra_error`` line followed by its retry (``--resume`` appends, ``finalize`` drops it)."""
    check = PlanCheck(meta, tasks, file)
    kept = {check.admit(lineno, rec): (lineno, rec) for lineno, rec in numbered}
    return sorted(kept.values(), key=lambda x: x[0])


def _usage_only(record: dict[str, Any]) -> dict[str, Any]:
    """The part of a record :func:`aggregate` reads (each turn's token counts): ``score`` keeps
    this instead of the record, so its memory does not grow with what the lines carry."""
    turns = record.get("turns") or []
    out: dict[str, Any] = {"turns": [{"tokens": {k: u[k] for k in USAGE_KEYS if k in u}
                                      if isinstance(u := t.get("tokens"), dict) else None}
                                     for t in turns if isinstance(t, dict)]}
    milestones = record.get("probes")
    if isinstance(milestones, list):  # the probe tokens, counted apart
        out["probes"] = [{"tokens": m.get("tokens")} for m in milestones if isinstance(m, dict)]
    return out


def coverage_text(summary: dict[str, Any]) -> str:
    """How much of its plan a scored run covers, in words (``incomplete: 36.7 % over 11 of 30
    planned attempts ...``): what every output shows beside an incomplete run's figures."""
    cov = summary.get("coverage") or {}
    planned, scored = cov.get("planned", 0), cov.get("scored", 0)
    rate = fmt(summary["overall"].get("success_rate"))
    unchained = (" (unchained: trajectories.jsonl has no hash chain, deleted or reordered lines "
                 "are not detected)" if summary.get("integrity") == "unchained" else "")
    return _coverage_words(cov, rate, planned, scored) + unchained


def _coverage_words(cov: dict[str, Any], rate: str, planned: int, scored: int) -> str:
    """:func:`coverage_text` without the integrity note."""
    if cov.get("complete", True):
        return f"complete: {rate} % success over {scored} of {planned} planned attempts"
    gaps = f"{cov.get('infra_errors', 0)} infra error(s), {cov.get('missing', 0)} missing"
    if cov.get("strict"):
        return (f"incomplete ({gaps}, counted as failures by --strict): {rate} % success "
                f"over {planned} planned attempts, {scored} of them played")
    return (f"incomplete ({gaps}; --strict counts them as failures): {rate} % success over "
            f"{scored} of {planned} planned attempts")


def run_probes(meta: dict[str, Any]) -> int | None:
    """The run's probes per milestone (run.json's ``probes``), or None when they were off."""
    probes = meta.get("probes")
    count = probes.get("per_milestone") if isinstance(probes, dict) else None
    return count if type(count) is int and 1 <= count <= MAX_PROBES_PER_MILESTONE else None


def score_run(run_dir: str | Path, suite: str | None = None, *, strict: bool = False,
              allow_unchained: bool = False,
              public_key: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """Judge and score a run directory; write findings.jsonl, summary.json and summary.csv.
    ``strict`` scores the planned attempts that are missing or ended in an infra error as
    failures (0) instead of excluding them. A run whose trajectories.jsonl is not hash-chained
    (written before the chain) is refused unless ``allow_unchained``: then it is scored and
    marked ``unchained`` (its deletions and reorderings cannot be detected). With
    ``public_key``, a run not signed by that key over its plan, suite and chain head
    (``run --sign-key``) is refused before anything is written."""
    summary, lines = judge_run(run_dir, suite, strict=strict, allow_unchained=allow_unchained,
                               public_key=public_key)
    write_scores(run_dir, summary, lines)
    return summary


def write_scores(run_dir: str | Path, summary: dict[str, Any],
                 lines: Sequence[dict[str, Any]]) -> None:
    """Write a judged run's findings.jsonl, summary.json and summary.csv."""
    path = Path(run_dir)
    _write(path / "findings.jsonl", findings_text(lines))
    _write(path / "summary.json", summary_text(summary))
    _write(path / "summary.csv", summary_csv(summary))


def check_signed(rundir: RunDir, meta: dict[str, Any], suite_sha256: str,
                 public_key: str | os.PathLike[str]) -> None:
    """Refuse a run (its lines read to the end) that the key in ``public_key`` did not sign
    over its plan, this suite and its last line (:mod:`arena_gen.core.run_signature`)."""
    if rundir.unchained:
        raise ArenaGenError(f"{rundir.run_json}: an unchained run cannot be signed; refused "
                            f"under --public-key")
    check_run_signature(rundir.path, public_key, plan_digest(meta), suite_sha256,
                        rundir.head or plan_digest(meta))


def findings_text(lines: Sequence[dict[str, Any]]) -> str:
    """findings.jsonl's exact text: one canonical line per judged attempt."""
    return "".join(canonical_json(x) + "\n" for x in lines)


def summary_text(summary: dict[str, Any]) -> str:
    """summary.json's exact text."""
    return json.dumps(summary, indent=2, sort_keys=True) + "\n"


def judge_run(run_dir: str | Path, suite: str | None = None, *, strict: bool = False,
              allow_unchained: bool = False, public_key: str | os.PathLike[str] | None = None,
              read: dict[str, Suite] | None = None
              ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The summary and findings lines :func:`score_run` writes, computed from the replay and
    written nowhere (``report`` compares them with the files on disk; ``read``, when given,
    receives the suite read, under ``"suite"``, so it is not read again)."""
    rundir = RunDir(run_dir)
    if not rundir.exists():
        raise ArenaGenError(f"{run_dir}: no run.json (not a run directory)")
    meta = rundir.read_meta()
    suite_obj = read_suite(suite or meta.get("suite_path") or meta["suite"])
    if read is not None:
        read["suite"] = suite_obj
    if suite_obj.manifest["suite_sha256"] != meta.get("suite_sha256", suite_obj.manifest[
            "suite_sha256"]):
        raise ArenaGenError(f"{run_dir}: the run was made on another suite (hash differs)")
    tasks = {t.id: t for t in suite_obj.all_tasks()}
    file = str(rundir.trajectories)
    plan = PlanCheck(meta, tasks, file)
    harness = str(meta.get("harness", DEFAULT_HARNESS))  # run.json's: older runs, arena-gen
    probes = run_probes(meta)
    # one line at a time: each is judged as it is read and only its finding and figures are
    # kept, so score's memory does not grow with the size of the lines; the chain (checked
    # as the lines are read, its head after the last) refuses the run before anything is
    # written
    judged: dict[tuple[str, int], tuple[int, dict[str, Any], Attempt]] = {}
    for lineno, rec in rundir.iter_numbered_records():
        if rundir.unchained:  # a chained run's lines were checked as they were read
            if not allow_unchained:
                raise ArenaGenError(
                    f"{rundir.run_json}: the run records no trajectory chain (written by an "
                    f"arena-gen before trajectories.jsonl was hash-chained), so a deleted, "
                    f"reordered or inserted line in {file} cannot be detected; pass "
                    f"--allow-unchained to score it anyway (every output then says "
                    f"'unchained')")
            validate_doc(rec, "trajectory", file=file, line=lineno)
        key = plan.admit(lineno, rec)
        task = tasks[key[0]]
        line, replay = judge_attempt(task, rec, harness, probes)
        rubric = [r.id for r in task.rubric]
        score = attempt_score(line, rubric)
        kind = "infra_error" if score is None else "played"
        judged[key] = (lineno, line, Attempt(
            task_id=task.id, env=task.env, level=level_of(task), attempt=key[1],
            score=0.0 if strict and score is None else score,
            perfect=is_perfect(line["findings"], rubric) and score is not None,
            record=_usage_only(rec), min_steps=task.certificate.min_steps,
            oracle_profit=witness_profit(task),
            fixed_horizon=fixed_horizon(task), replay=replay, kind=kind,
            knowledge=(line.get("knowledge") or {}).get("milestones"),
            reference=reference_of(task)))
        del rec
    if public_key is not None:
        check_signed(rundir, meta, suite_obj.manifest["suite_sha256"], public_key)
    in_order = sorted(judged.values(), key=lambda x: x[0])
    lines = [line for _, line, _ in in_order]
    attempts = [attempt for _, _, attempt in in_order]
    seen = set(judged)
    expected = [(tid, a) for tid in meta.get("tasks", [])
                for a in range(planned_attempts(meta, tid))]
    absent = [tasks[tid] for tid, a in expected if (tid, a) not in seen]
    if strict:  # a planned attempt with no line is a failure, not a gap
        attempts.extend(Attempt(task_id=t.id, env=t.env, level=level_of(t), attempt=-1,
                                score=0.0, perfect=False, min_steps=t.certificate.min_steps,
                                fixed_horizon=fixed_horizon(t), kind="missing",
                                reference=reference_of(t))
                        for t in absent)
        missing: list[tuple[str, str]] = []
    else:
        missing = [(t.env, level_of(t)) for t in absent]
    summary = aggregate(attempts, int(meta.get("attempts", 1)), missing)
    summary["run"] = {"path": str(rundir.path), "agent": meta.get("agent"),
                      "mode": meta.get("mode"), "suite": meta.get("suite"),
                      "suite_sha256": meta.get("suite_sha256"),
                      "harness": harness}
    if probes:
        summary["run"]["probes"] = {"per_milestone": probes}
    summary["infra_error_attempts"] = [f"{a.task_id}#{a.attempt}" for a in attempts
                                       if a.kind == "infra_error"]
    overall = summary["overall"]
    summary["complete"] = bool(overall["complete"])
    summary["coverage"] = {"planned": len(expected), "scored": len(seen) - overall[
        "infra_errors"], "infra_errors": overall["infra_errors"], "missing": overall["missing"],
        "complete": summary["complete"], "strict": strict}
    summary["integrity"] = "unchained" if rundir.unchained else "chained"
    summary["coverage"]["text"] = coverage_text(summary)
    summary["curves"] = replay_curves(attempts)
    summary = Summary.model_validate(summary).to_json_dict()  # the typed record, as written
    return summary, lines


def score_findings(findings_file: str | Path, rubrics_file: str | Path) -> dict[str, Any]:
    """Apply the policy to findings produced elsewhere; rubrics map task id -> item ids.
    Both files are untrusted: any problem is a :class:`SchemaError` naming file and line."""
    rubrics = load_rubrics(Path(rubrics_file))
    attempts = []
    for lineno, raw in _lines(Path(findings_file)):
        line = loads(raw, file=str(findings_file), line=lineno)
        validate_doc(line, "findings", file=str(findings_file), line=lineno)
        rubric = rubrics.get(line["task_id"])
        if rubric is None:
            raise SchemaError(f"no rubric for task {line['task_id']!r} in {rubrics_file}",
                              file=str(findings_file), line=lineno, task_id=line["task_id"],
                              json_path="$.task_id")
        env = line.get("env")
        attempts.append(Attempt(task_id=line["task_id"],
                                env=env if isinstance(env, str) else "all",
                                level=str(line.get("level", "all")),
                                attempt=int(line["attempt"]),
                                score=attempt_score(line, rubric),
                                perfect=is_perfect(line["findings"], rubric)))
    k = max((a.attempt + 1 for a in attempts), default=1)
    return aggregate(attempts, k)


def _read(path: Path) -> bytes:
    """A whole small file (at most the per-line cap), regular files only."""
    try:
        return read_bounded(path)
    except OSError as exc:
        raise SchemaError(f"cannot read: {exc.strerror}", file=str(path)) from None


def _lines(path: Path, data: bytes | None = None) -> Iterator[tuple[int, bytes]]:
    """The non-blank lines of a JSONL file with their numbers (an unreadable file is named),
    streamed with the per-line and per-file caps when ``data`` is not given."""
    if data is not None:
        yield from ((n, raw) for n, raw in enumerate(data.split(b"\n"), start=1) if raw.strip())
        return
    try:
        for n, raw in iter_lines(path):
            if raw.strip():
                yield n, raw
    except OSError as exc:
        raise SchemaError(f"cannot read: {exc.strerror}", file=str(path)) from None


def _rubric_items(items: Any, file: str, line: int | None, where: str) -> list[str]:
    """A rubric's item ids: a list of ids, or of ``{"id": ...}`` objects."""
    if not isinstance(items, list):
        raise SchemaError("a rubric must be a list of item ids or {id, text} objects",
                          file=file, line=line, json_path=where)
    out = []
    for i, item in enumerate(items):
        item_id = item.get("id") if isinstance(item, dict) else item
        if not isinstance(item_id, str):
            raise SchemaError("a rubric item must be an id string or an object with a string "
                              "id", file=file, line=line, json_path=f"{where}[{i}]")
        out.append(item_id)
    return out


def load_rubrics(path: Path) -> dict[str, list[str]]:
    """Read ``{task_id: [item ids]}`` (JSON) or task lines with a ``rubric`` list (JSONL)."""
    file = str(path)
    raw_data = _read(path)
    lines = list(_lines(path, raw_data))
    rows: list[tuple[int | None, Any]]
    try:
        data = loads(raw_data, file=file)
        if isinstance(data, dict) and not ("rubric" in data and ("id" in data
                                                                 or "task_id" in data)):
            return {str(tid): _rubric_items(items, file, None, f"$[{json.dumps(tid)}]")
                    for tid, items in data.items()}
        rows = [(None, row) for row in data] if isinstance(data, list) else [(1, data)]
    except SchemaError:
        if len(lines) < 2:
            raise
        rows = [(n, loads(raw, file=file, line=n)) for n, raw in lines]
    out: dict[str, list[str]] = {}
    for n, row in rows:
        task_id = row.get("id", row.get("task_id")) if isinstance(row, dict) else None
        if not isinstance(task_id, str):
            raise SchemaError("a rubric row must be an object with a string id (or task_id)",
                              file=file, line=n)
        out[task_id] = _rubric_items(row.get("rubric"), file, n, "$.rubric")
    return out


CSV_COLUMNS = ["env", "level", "tasks", "attempts", "scored", "infra_errors", "missing",
               "planned", "complete",
               "success_rate", "success_rate_se", "avg_at_k", "avg_at_k_se", "avg_credit_at_k",
               "avg_credit_at_k_se", "avg_at_k_excluded", "trajectory_efficiency",
               "trajectory_efficiency_se", "trajectory_efficiency_excluded", "optimality_ratio",
               "optimality_ratio_se", "optimality_ratio_excluded", "induction_efficiency",
               "induction_efficiency_se", "induction_efficiency_excluded",
               "induction_efficiency_reference", "loop_ratio",
               "loop_ratio_excluded", "invalid_action_rate", "steps_mean", "steps_se", "tokens",
               "token_efficiency", "token_efficiency_basis", "avg_at_k_profit",
               "avg_at_k_profit_se", "best_at_k_profit", "best_at_k_profit_se",
               "profit_rate_median", "log_growth", "log_growth_se", "log_growth_excluded",
               "normalized_profit", "normalized_profit_se", "normalized_profit_excluded",
               "profit_excluded"]

def csv_columns(k_max: int) -> list[str]:
    """summary.csv's columns: the fixed ones with Pass@k and Pass^k (and SEs) for k = 1..k."""
    passes = [f"{name}_{k}{se}" for k in range(1, k_max + 1) for name in ("pass_at", "pass_hat")
              for se in ("", "_se")]
    at = CSV_COLUMNS.index("avg_at_k_excluded") + 1
    return [*CSV_COLUMNS[:at], *passes, *CSV_COLUMNS[at:]]


def summary_rows(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """Flatten a summary into one row per env, per (env, level), and overall."""
    rows = []
    for env, entry in sorted(summary["envs"].items()):
        rows.append({"env": env, "level": "*", **entry})
        for level, metrics in sorted(entry["levels"].items(), key=lambda kv: _natural(kv[0])):
            rows.append({"env": env, "level": level, **metrics})
    rows.append({"env": "*", "level": "*", **summary["overall"]})
    return rows


def _natural(text: str) -> list[Any]:
    """Sort key that orders ``n=9`` before ``n=10``."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text)]


def summary_csv(summary: dict[str, Any]) -> str:
    """The summary as CSV text; an undefined metric reads ``n/a`` (pandas reads it as NaN).
    A summary with ``prices`` (``score --price-in/--price-out``) gains a ``cost_usd`` column."""
    from arena_gen.scoring.cost import cost_usd

    columns = csv_columns(int(summary.get("k", 1)))
    prices = summary.get("prices")
    if prices:
        columns.append("cost_usd")
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for row in summary_rows(summary):
        if prices:
            cost = cost_usd(row, prices)
            row = {**row, "cost_usd": None if cost is None else round(cost, 6)}
        writer.writerow({k: ("n/a" if row.get(k) is None else row.get(k)) for k in columns})
    return buf.getvalue()


def _write(path: Path, text: str) -> None:
    """Replace ``path`` by ``text`` atomically; a failed write (a full disk) leaves the old
    file and no temporary beside it."""
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise ArenaGenError(f"{path}: cannot write: {exc.strerror}") from None


def record_prices(run_dir: str | Path, summary: dict[str, Any],
                  prices: dict[str, float]) -> dict[str, Any]:
    """Add ``prices`` to the run's just-written summary.json (and the cost column to
    summary.csv) and return the summary, so ``report`` shows the cost ``score`` printed (a
    later score without prices drops them)."""
    summary = {**summary, "prices": prices}
    for name, text in (("summary.json", summary_text(summary)),
                       ("summary.csv", summary_csv(summary))):
        _write(Path(run_dir) / name, text)
    return summary
