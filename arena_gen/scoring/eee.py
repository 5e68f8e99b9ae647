"""A scored run as an Every Eval Ever record (its ``eval.schema.json``, schema 0.3.0), so
arena-gen results sit beside other frameworks' in that shared results schema.

One aggregate record per run: an evaluation result per metric, overall and per env. The
record is a pure function of the run (its timestamps are the run's own, from run.json), so
exporting the same run twice gives the same bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from arena_gen.core.version import __version__

SCHEMA_VERSION = "0.3.0"


@dataclass(frozen=True)
class Metric:
    """One summary figure as an evaluation result; ``{k}`` in a text is the run's k."""

    key: str  # its name in the summary (``{k}`` formatted)
    metric: str  # the metric id's suffix
    shown: str  # the display name
    what: str  # what it measures
    kind: str = "pass_rate"
    unit: str = "percent"
    top: float = 100  # its maximum (its minimum is 0)
    samples: str = ""  # the summary's count of tasks left out of it, if any
    referenced: bool = False  # scored against a per-task reference whose kind the summary names


METRICS = (
    Metric("avg_at_k", "avg_at_k", "Avg@{k}", "mean success rate over the {k} attempts per task"),
    Metric("pass_at_{k}", "pass_at_k", "Pass@{k}",
           "share of tasks solved in at least one of {k} attempts"),
    Metric("avg_credit_at_k", "avg_credit_at_k", "Credit@{k}",
           "mean partial credit of the rubric over the {k} attempts per task"),
    Metric("induction_efficiency", "induction_efficiency", "Induction efficiency",
           "mean over attempts of min(1, (reference / steps)^2), 0 for a failure",
           kind="efficiency", unit="proportion", top=1,
           samples="induction_efficiency_excluded", referenced=True),
)
#: The summary's words for what induction efficiency is scored against (one owner: score.py).
REFERENCE = "induction_efficiency_reference"


def _epoch(iso: str) -> str:
    """Unix seconds of an ISO-8601 time, as the schema's timestamps want them (a string)."""
    return str(int(datetime.fromisoformat(iso).timestamp()))


def _strings(obj: dict[str, Any]) -> dict[str, str]:
    """The schema's ``additional_details``: every value a string."""
    return {k: v if isinstance(v, str) else str(v) for k, v in sorted(obj.items())}


def model_info(meta: dict[str, Any]) -> dict[str, Any]:
    """Who played: an LLM's model name as given to ``run``, else the arena-gen baseline."""
    agent = meta.get("agent") or {}
    name, config = str(agent.get("name", "unknown")), agent.get("config") or {}
    if name == "llm" and config.get("model"):
        model = str(config["model"])
        return {"name": model, "id": model, "additional_details": {
            "deployment_type": "unknown", "model_availability": "unknown",
            "agent": "llm", "harness": str(meta.get("harness", "arena-gen"))}}
    return {"name": f"arena-gen {name} baseline", "id": f"arena-gen/{name}",
            "developer": "arena-gen", "additional_details": {
                "deployment_type": "self_deployed", "model_availability": "open_weights",
                "agent": name, "harness": str(meta.get("harness", "arena-gen"))}}


def _result(m: Metric, figures: dict[str, Any], scope: str, k: int) -> dict[str, Any] | None:
    """The metric config and score details of one figure, None when the summary has none."""
    value = figures.get(m.key.format(k=k))
    if value is None:
        return None
    se = figures.get(m.key.format(k=k) + "_se")
    score: dict[str, Any] = {"score": float(value)}
    if se is not None:
        tasks = int(figures.get("tasks", 0)) - int(figures.get(m.samples, 0) if m.samples else 0)
        score["uncertainty"] = {"standard_error": {"value": float(se), "method": "analytic"},
                                "num_samples": tasks}
    config: dict[str, Any] = {
        "evaluation_description": f"{m.what.format(k=k)} ({scope}; docs/metrics.md)",
        "metric_id": f"arena_gen.{m.metric}", "metric_name": m.shown.format(k=k),
        "metric_kind": m.kind, "metric_unit": m.unit, "metric_parameters": {"k": k},
        "lower_is_better": False, "score_type": "continuous", "min_score": 0,
        "max_score": m.top}
    if m.referenced:
        config["metric_parameters"]["reference"] = str(figures.get(REFERENCE) or "unknown")
        config["additional_details"] = _strings({
            "reference_kind": figures.get(REFERENCE) or "unknown",
            "tasks_without_reference": figures.get(m.samples, 0)})
    return {"metric_config": config, "score_details": score}


def _results(summary: dict[str, Any], scope: str, figures: dict[str, Any], suite: str,
             source: dict[str, Any], when: str) -> list[dict[str, Any]]:
    """The evaluation results of one scope (``overall`` or an env) that the summary holds."""
    k = int(summary.get("k", 1))
    out = []
    for m in METRICS:
        found = _result(m, figures, scope, k)
        if found is not None:
            out.append({"evaluation_result_id": f"{scope}.{m.metric}",
                        "evaluation_name": f"arena-gen {suite} {scope}",
                        "source_data": source, "evaluation_timestamp": when, **found})
    return out


def eee_record(summary: dict[str, Any], meta: dict[str, Any]) -> dict[str, Any]:
    """The Every Eval Ever record of a scored run (``summary``: what ``score_run`` returns,
    ``meta``: its run.json)."""
    suite = str(meta.get("suite", "unknown"))
    when = _epoch(str(meta.get("ended") or meta["started"]))
    model = model_info(meta)
    source = {"dataset_name": f"arena-gen {suite}", "source_type": "other",
              "additional_details": _strings({"suite": suite,
                                              "suite_sha256": meta.get("suite_sha256", ""),
                                              "mode": meta.get("mode", "inductive")})}
    results = _results(summary, "overall", summary["overall"], suite, source, when)
    for env in sorted(summary.get("envs") or {}):
        results += _results(summary, env, summary["envs"][env], suite, source, when)
    coverage = summary.get("coverage") or {}
    return {
        "schema_version": SCHEMA_VERSION,
        "evaluation_id": f"arena-gen-{suite}/{model['id']}/{when}",
        "evaluation_timestamp": when,
        "retrieved_timestamp": when,
        "source_metadata": {
            "source_name": "arena-gen run", "source_type": "evaluation_run",
            "source_organization_name": "arena-gen", "evaluator_relationship": "third_party",
            "additional_details": _strings({
                "complete": str(bool(summary.get("complete", True))).lower(),
                "planned_attempts": coverage.get("planned", ""),
                "scored_attempts": coverage.get("scored", ""),
                "integrity": summary.get("integrity", "chained"),
                "attempts_per_task": summary.get("k", 1),
                "seed": meta.get("seed", 0)})},
        "eval_library": {"name": "arena-gen", "version": __version__,
                         "additional_details": _strings({
                             "git_revision": meta.get("git_revision") or "unknown"})},
        "model_info": model,
        "evaluation_results": results,
    }
