"""Score a run: judge every trajectory, apply the policy, aggregate metrics per env and level.

Writes ``findings.jsonl``, ``summary.json`` and ``summary.csv`` into the run directory. The same
aggregation serves findings produced elsewhere (``arena-gen score --findings``).
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena_gen.core.canon import canonical_json
from arena_gen.core.errors import ArenaGenError, SchemaError
from arena_gen.core.protocol import DEFAULT_HARNESS, HARNESSES
from arena_gen.core.records import FindingsLine, Summary
from arena_gen.core.schema import loads, validate_doc
from arena_gen.core.suite_io import read_suite
from arena_gen.core.task import Task
from arena_gen.runner.rundir import RunDir
from arena_gen.scoring.definitions import fmt, metric_definitions
from arena_gen.scoring.judge import judge, owned_budget
from arena_gen.scoring.metrics import (
    clustered_mean_se,
    evolution_curve,
    log_growth,
    loop_turns,
    mean_se,
    median,
    pass_at_k,
    pass_hat_k,
    task_mean_se,
)
from arena_gen.scoring.policy import attempt_score, is_perfect


def judge_record(task: Task, record: dict[str, Any], harness: str | None = None
                 ) -> dict[str, Any]:
    """One findings line for one trajectory: its actions replayed through the task's game under
    the budget ``harness`` (its run's; default: the one the trajectory records) gives the task."""
    infra = record.get("end_reason") == "infra_error"
    if harness is None:
        played = record.get("harness", DEFAULT_HARNESS)
        harness = played if played in HARNESSES else DEFAULT_HARNESS
    budget, budget_finding = owned_budget(task, record, harness)
    try:
        findings, mismatch = ([], False) if infra else judge(task, record, budget=budget)
    except Exception:  # the game raised on the replay: a bug in its rules, or forged actions
        # no finding is met (item credit 0, a failure); an env_error attempt was recorded as
        # such (its raising turn is not replayed), any other attempt claimed otherwise
        findings, mismatch = [], record.get("end_reason") != "env_error"
    if budget_finding is not None and not infra:  # a claimed budget the run's harness refutes
        findings, mismatch = [*findings, budget_finding], True
    line = FindingsLine.model_validate({
        "task_id": task.id, "attempt": int(record["attempt"]), "env": task.env,
        "findings": findings,
        "flags": {"infra_error": infra, "reward_hacking_suspected": mismatch,
                  "rh_zeroed": False, "replay_mismatch": mismatch}}).to_json_dict()
    validate_doc(line, "findings")
    return line


@dataclass
class Attempt:
    """One scored (or excluded) attempt with what metrics need."""

    task_id: str
    env: str
    level: str
    attempt: int
    score: float | None
    perfect: bool
    record: dict[str, Any] | None = None
    min_steps: int | None = None
    oracle_profit: float | None = None
    fixed_horizon: bool = False


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
    """Agent calls of a recorded attempt (None for findings scored without a trajectory)."""
    return int(a.record["steps"]) if a.record is not None else None


def _profit(a: Attempt) -> float | None:
    """The attempt's final profit rate (value / initial cash - 1), if its env has one."""
    p = (a.record or {}).get("final_info", {}).get("profit_rate")
    return float(p) if isinstance(p, (int, float)) and not isinstance(p, bool) else None


def group_metrics(group: Group, k_max: int) -> dict[str, Any]:
    """Every metric of the spec over one group of attempts (definitions: ``definitions.py``)."""
    scored = [a for a in group.attempts if a.score is not None]
    n_tasks = len({a.task_id for a in group.attempts})
    out: dict[str, Any] = {"attempts": len(group.attempts), "scored": len(scored),
                           "infra_errors": len(group.attempts) - len(scored),
                           "missing": group.missing, "tasks": n_tasks}
    success = _per_task(scored, lambda a: 100.0 * a.perfect)
    _put(out, "success_rate", clustered_mean_se(success.values()))
    _put(out, "avg_at_k", task_mean_se(success.values()))
    _put(out, "avg_credit_at_k", task_mean_se(_per_task(scored, lambda a: a.score).values()))
    out["avg_at_k_excluded"] = n_tasks - len(success)
    for k in range(1, k_max + 1):
        for name, estimator in (("pass_at", pass_at_k), ("pass_hat", pass_hat_k)):
            per_task = [estimator(len(v), sum(x > 0 for x in v), k) for v in success.values()]
            ok = bool(per_task) and all(p is not None for p in per_task)
            _put(out, f"{name}_{k}",
                 mean_se([100.0 * p for p in per_task if p is not None]) if ok else (None, None))
    records = [a.record for a in scored if a.record is not None]
    turns = [t for r in records for t in r.get("turns", [])]
    out["turns"] = len(turns)
    out["invalid_action_rate"] = (_r(sum(not t["valid"] for t in turns) / len(turns))
                                  if turns else None)
    _put(out, "steps_mean", clustered_mean_se(_per_task(scored, _steps).values()))
    out["steps_se"] = out.pop("steps_mean_se")
    # Efficiency: undefined on fixed-horizon envs, and for an attempt with no agent call.
    eff = _per_task(scored, lambda a: (a.score or 0.0) / a.record["steps"]
                    if a.record and a.record["steps"] and not a.fixed_horizon else None)
    _put(out, "trajectory_efficiency", clustered_mean_se(eff.values()), 6)
    out["trajectory_efficiency_excluded"] = n_tasks - len(eff)
    exact = {a.task_id for a in scored if a.min_steps}
    ratios = _per_task(scored, lambda a: a.min_steps / a.record["steps"]
                       if a.perfect and a.min_steps and a.record and a.record["steps"] else None)
    _put(out, "optimality_ratio", clustered_mean_se(ratios.values()))
    out["optimality_ratio_excluded"] = n_tasks - len(exact)
    looped = [a for a in scored if a.record is not None and not a.fixed_horizon]
    loop_total = sum(len(a.record.get("turns", [])) for a in looped if a.record)
    out["loop_ratio"] = (_r(sum(loop_turns(a.record) for a in looped if a.record) / loop_total)
                         if loop_total else None)
    out["loop_ratio_excluded"] = n_tasks - len({a.task_id for a in looped})
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
    tokens = sum(_turn_tokens(t) for t in turns)
    out["tokens"] = tokens
    trading = bool(profit) and len(profit) == len(success)
    out["token_efficiency_basis"] = "avg_at_k_profit" if trading else "success_rate"
    basis = out[out["token_efficiency_basis"]]
    out["token_efficiency"] = (_r(basis / (tokens / 1e6), 6)
                               if tokens and basis is not None else None)
    return out


def _turn_tokens(turn: dict[str, Any]) -> int:
    """Tokens one turn used: the reported total, else prompt + completion, else 0."""
    usage = turn.get("tokens") or {}
    if "total_tokens" in usage:
        return int(usage["total_tokens"])
    return int(usage.get("prompt_tokens", 0)) + int(usage.get("completion_tokens", 0))


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


def curves(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Per-env evolution curves and step counts (what the HTML report plots)."""
    out: dict[str, Any] = {}
    by_env: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        if r.get("end_reason") != "infra_error":
            by_env[r["env"]].append(r)
    for env, recs in sorted(by_env.items()):
        # The turns actually recorded bound the curve (a claimed budget of 1e9 must not
        # allocate a billion points): past the longest episode the curve is flat.
        horizon = max(1, min(max(int(r.get("budget") or 1) for r in recs),
                             max(len(r.get("turns") or ()) for r in recs)))
        out[env] = {"evolution": [round(x, 4) for x in evolution_curve(recs, horizon)],
                    "steps": sorted(r["steps"] for r in recs),
                    "loop_ratio": [round(loop_turns(r) / r["steps"], 4) if r["steps"] else 0.0
                                   for r in recs]}
    return out


def score_run(run_dir: str | Path, suite: str | None = None) -> dict[str, Any]:
    """Judge and score a run directory; write findings.jsonl, summary.json and summary.csv."""
    rundir = RunDir(run_dir)
    if not rundir.exists():
        raise ArenaGenError(f"{run_dir}: no run.json (not a run directory)")
    meta = rundir.read_meta()
    suite_obj = read_suite(suite or meta.get("suite_path") or meta["suite"])
    if suite_obj.manifest["suite_sha256"] != meta.get("suite_sha256", suite_obj.manifest[
            "suite_sha256"]):
        raise ArenaGenError(f"{run_dir}: the run was made on another suite (hash differs)")
    tasks = {t.id: t for t in suite_obj.all_tasks()}
    records = rundir.records()
    for lineno, rec in enumerate(records, start=1):  # trajectories may come from elsewhere
        validate_doc(rec, "trajectory", file=str(rundir.trajectories), line=lineno)
    harness = str(meta.get("harness", DEFAULT_HARNESS))  # run.json's: older runs, arena-gen
    lines, attempts, seen = [], [], set()
    for rec in records:
        task = tasks.get(rec["task_id"])
        if task is None:
            raise ArenaGenError(f"{run_dir}: trajectory for unknown task {rec['task_id']}")
        line = judge_record(task, rec, harness)
        lines.append(line)
        seen.add((task.id, int(rec["attempt"])))
        rubric = [r.id for r in task.rubric]
        attempts.append(Attempt(
            task_id=task.id, env=task.env, level=level_of(task), attempt=int(rec["attempt"]),
            score=attempt_score(line, rubric), perfect=is_perfect(line["findings"], rubric),
            record=rec, min_steps=task.certificate.min_steps,
            oracle_profit=task.certificate.facts.get("oracle_profit"),
            fixed_horizon=fixed_horizon(task)))
    expected = [(tid, a) for tid in meta.get("tasks", []) for a in range(meta.get("attempts", 1))]
    missing = [(tasks[tid].env, level_of(tasks[tid])) for tid, a in expected
               if (tid, a) not in seen and tid in tasks]
    summary = aggregate(attempts, int(meta.get("attempts", 1)), missing)
    summary["run"] = {"path": str(rundir.path), "agent": meta.get("agent"),
                      "mode": meta.get("mode"), "suite": meta.get("suite"),
                      "suite_sha256": meta.get("suite_sha256"),
                      "harness": harness}
    summary["infra_error_attempts"] = [f"{a.task_id}#{a.attempt}" for a in attempts
                                       if a.score is None]
    summary["curves"] = curves(records)
    summary = Summary.model_validate(summary).to_json_dict()  # the typed record, as written
    _write(rundir.path / "findings.jsonl", "".join(canonical_json(x) + "\n" for x in lines))
    _write(rundir.path / "summary.json", json.dumps(summary, indent=2, sort_keys=True) + "\n")
    _write(rundir.path / "summary.csv", summary_csv(summary))
    return summary


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
    try:
        return path.read_bytes()
    except OSError as exc:
        raise SchemaError(f"cannot read: {exc.strerror}", file=str(path)) from None


def _lines(path: Path, data: bytes | None = None) -> list[tuple[int, bytes]]:
    """The non-blank lines of a JSONL file with their numbers (an unreadable file is named)."""
    data = _read(path) if data is None else data
    return [(n, raw) for n, raw in enumerate(data.split(b"\n"), start=1) if raw.strip()]


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
    lines = _lines(path, raw_data)
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
               "success_rate", "success_rate_se", "avg_at_k", "avg_at_k_se", "avg_credit_at_k",
               "avg_credit_at_k_se", "avg_at_k_excluded", "trajectory_efficiency",
               "trajectory_efficiency_se", "trajectory_efficiency_excluded", "optimality_ratio",
               "optimality_ratio_se", "optimality_ratio_excluded", "loop_ratio",
               "loop_ratio_excluded", "invalid_action_rate", "steps_mean", "steps_se", "tokens",
               "token_efficiency", "token_efficiency_basis", "avg_at_k_profit",
               "avg_at_k_profit_se", "best_at_k_profit", "best_at_k_profit_se",
               "profit_rate_median", "log_growth", "log_growth_se", "log_growth_excluded",
               "normalized_profit", "normalized_profit_se", "normalized_profit_excluded",
               "profit_excluded"]

#: The terminal table: the headline figures (summary.csv and summary.json hold the rest).
#: Trading's headline is the median profit rate and the mean log growth: a 1000-day task
#: compounds to rates of 1e14 %, which the mean of rates (Avg@k and Best@k profit, still in
#: summary.csv and the report) lets one attempt dominate.
TERMINAL_COLUMNS = ["env", "level", "tasks", "attempts", "success_rate", "avg_at_k",
                    "avg_credit_at_k", "pass_at_1", "trajectory_efficiency", "optimality_ratio",
                    "loop_ratio", "token_efficiency", "profit_rate_median", "log_growth",
                    "infra_errors", "missing"]


def csv_columns(k_max: int) -> list[str]:
    """summary.csv's columns: the fixed ones with Pass@k and Pass^k (and SEs) for k = 1..k."""
    passes = [f"{name}_{k}{se}" for k in range(1, k_max + 1) for name in ("pass_at", "pass_hat")
              for se in ("", "_se")]
    at = CSV_COLUMNS.index("avg_at_k_excluded") + 1
    return [*CSV_COLUMNS[:at], *passes, *CSV_COLUMNS[at:]]


def terminal_rows(summary: dict[str, Any]) -> list[list[str]]:
    """The terminal table's cells, ``n/a`` where a metric is undefined."""
    return [[fmt(row.get(c)) if c in row else "n/a" for c in TERMINAL_COLUMNS]
            for row in summary_rows(summary)]


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
    """The summary as CSV text; an undefined metric reads ``n/a`` (pandas reads it as NaN)."""
    columns = csv_columns(int(summary.get("k", 1)))
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for row in summary_rows(summary):
        writer.writerow({k: ("n/a" if row.get(k) is None else row.get(k)) for k in columns})
    return buf.getvalue()


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    except OSError as exc:
        raise ArenaGenError(f"{path}: cannot write: {exc.strerror}") from None
