"""What each summary number means: a one-line definition, its unit and where it comes from.

One table serves ``summary.json`` (``metric_definitions``), the HTML report and the terminal, so
a number is never printed without the same definition behind it. Conventions shared by every
metric: ``<metric>_se`` is its standard error over tasks (a task's attempts share one world, so
they are not independent), ``<metric>_excluded`` counts the group's tasks for which the metric
is undefined (and that were left out of it), and a metric undefined for a whole group is null
(``n/a`` in tables), never 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ODYSSEY_ARENA = "OdysseyArena (arXiv 2602.05843)"
ODYSSEYS = "Odysseys evaluation recipe"
ARENA_GEN = "arena-gen"
ARC_AGI_3 = "ARC-AGI-3 action efficiency, (reference / agent actions)^2 capped at 1"
PASS_AT_K = "Chen et al. 2021, unbiased pass@k (arXiv 2107.03374)"
PASS_HAT_K = "Yao et al. 2024, tau-bench pass^k (arXiv 2406.12045)"


@dataclass(frozen=True)
class MetricDef:
    """How one summary metric is labelled, measured and sourced."""

    label: str
    unit: str
    definition: str
    source: str

    def as_json(self) -> dict[str, str]:
        """The JSON form written under ``metric_definitions``."""
        return {"label": self.label, "unit": self.unit, "definition": self.definition,
                "source": self.source}


METRICS: dict[str, MetricDef] = {
    "tasks": MetricDef("tasks", "count", "Tasks with at least one attempt or missing run.",
                       ARENA_GEN),
    "attempts": MetricDef("attempts", "count", "Finished (task, attempt) episodes, infra errors "
                          "included.", ARENA_GEN),
    "scored": MetricDef("scored", "count", "Attempts that were scored (not infra errors).",
                        ARENA_GEN),
    "infra_errors": MetricDef("infra errors", "count", "Attempts ended by an infrastructure "
                              "failure: listed and excluded from every metric, never scored 0.",
                              ARENA_GEN),
    "missing": MetricDef("missing", "count", "Expected (task, attempt) runs with no trajectory.",
                         ARENA_GEN),
    "planned": MetricDef("planned", "count", "Attempts the run's plan holds (run.json's tasks x "
                         "attempts): attempts + missing.", ARENA_GEN),
    "complete": MetricDef("complete", "", "False when a planned attempt is missing or ended in "
                          "an infra error: the figures cover only part of the plan (score "
                          "--strict counts those as failures).", ARENA_GEN),
    "success_rate": MetricDef("success", "%", "Perfect Rubrics: share of scored attempts with "
                              "every rubric item met.", ODYSSEY_ARENA),
    "avg_at_k": MetricDef("Avg@k", "%", "Binary success averaged over each task's k attempts, "
                          "then over tasks.", ODYSSEY_ARENA),
    "avg_credit_at_k": MetricDef("Avg credit@k", "%", "Attempt score (partial rubric credit, "
                                 "0-100) averaged over each task's attempts, then over tasks.",
                                 ODYSSEYS),
    "pass_at_k": MetricDef("Pass@k", "%", "Per task 1 - C(n-c, k)/C(n, k) from n attempts with "
                           "c successes, mean over tasks (pass_at_1, pass_at_2, ...); null when "
                           "a task has fewer than k scored attempts.", PASS_AT_K),
    "pass_hat_k": MetricDef("Pass^k", "%", "Per task C(c, k)/C(n, k), the chance that k "
                            "attempts all succeed, mean over tasks (pass_hat_1, ...).",
                            PASS_HAT_K),
    "trajectory_efficiency": MetricDef("traj. eff.", "% per agent call", "(1/N) sum s_i/n_i "
                                       "over attempts: score s_i in percent over agent calls "
                                       "n_i; n/a on fixed-horizon envs (trading, energy).",
                                       ODYSSEYS),
    "optimality_ratio": MetricDef("optimality", "ratio (0-1]", "Proven minimum turns / turns "
                                  "taken, over successful attempts of tasks with an exact "
                                  "min_steps (bounds-only certificates are excluded).",
                                  ARENA_GEN),
    "induction_efficiency": MetricDef("induction eff.", "ratio [0-1]", "Per attempt "
                                      "min(1, (reference / replayed steps)^2), 0 when it "
                                      "failed; mean over scored attempts. The reference is "
                                      "the certificate's induction cost (expected, else its "
                                      "lower bound), else the with-rules minimum (a lower "
                                      "bound): see induction_efficiency_reference; n/a on "
                                      "fixed-horizon envs.", ARC_AGI_3),
    "induction_efficiency_reference": MetricDef("induction eff. reference", "", "What "
                                                "induction efficiency is scored against: "
                                                "expected induction cost, lower bound: "
                                                "induction cost, or lower bound: with-rules "
                                                "minimum (each with its task count when "
                                                "tasks differ).", ARENA_GEN),
    "loop_ratio": MetricDef("loop ratio", "share of turns", "Turns repeating the previous "
                            "(state, action) pair without progress, over all turns; n/a on "
                            "fixed-horizon envs.", ARENA_GEN),
    "invalid_action_rate": MetricDef("invalid", "share of turns", "Turns whose action the env "
                                     "rejected as malformed, over all turns.", ARENA_GEN),
    "turns": MetricDef("turns", "count", "Agent turns replayed over the scored attempts.",
                       ARENA_GEN),
    "token_efficiency_basis": MetricDef("token eff. basis", "", "The numerator of "
                                        "token_efficiency: avg_at_k_profit when every scored "
                                        "task is a trading task, else success_rate.", ARENA_GEN),
    "tokens": MetricDef("tokens", "tokens", "Total tokens (prompt + completion) of all scored "
                        "attempts.", ARENA_GEN),
    "prompt_tokens": MetricDef("prompt tokens", "tokens", "Prompt (input) tokens the endpoint "
                               "reported over the scored attempts.", ARENA_GEN),
    "completion_tokens": MetricDef("completion tokens", "tokens", "Completion (output) tokens "
                                   "the endpoint reported over the scored attempts.", ARENA_GEN),
    "cost": MetricDef("cost", "USD", "Prompt tokens x --price-in + completion tokens x "
                      "--price-out (USD per 1M tokens, as given to arena-gen score and kept in "
                      "summary.json's prices); n/a without prices.", ARENA_GEN),
    "token_efficiency": MetricDef("token eff.", "% per 1M tokens", "Success rate (Avg@k profit "
                                  "rate for trading; see token_efficiency_basis) divided by "
                                  "total tokens in millions; n/a without token counts.",
                                  ODYSSEY_ARENA),
    "steps_mean": MetricDef("steps", "agent calls", "Mean agent calls per scored attempt.",
                            ARENA_GEN),
    "avg_at_k_profit": MetricDef("profit Avg@k", "%", "Trading: profit rate (final value / "
                                 "initial cash - 1) averaged over each task's attempts, then "
                                 "over tasks (the paper's figure; one compounding attempt can "
                                 "dominate it: the headline is the median and log growth).",
                                 ODYSSEY_ARENA),
    "best_at_k_profit": MetricDef("profit Best@k", "%", "Trading: each task's best profit rate "
                                  "over its k attempts, mean over tasks (a mean of rates, like "
                                  "Avg@k profit).", ODYSSEY_ARENA),
    "profit_rate_median": MetricDef("profit median", "%", "Trading: median profit rate over "
                                    "scored attempts (robust to rates compounding to huge "
                                    "values on long horizons).", ARENA_GEN),
    "log_growth": MetricDef("log growth", "nats", "Trading: log(final value / initial cash) "
                            "averaged over each task's attempts, then over tasks.", ARENA_GEN),
    "normalized_profit": MetricDef("norm. profit", "ratio", "Trading: profit rate / the "
                                   "profit rate of the certificate's witness (what the oracle "
                                   "agent plays: the perfect-foresight oracle's trades in v1 "
                                   "and v2, the W-known planner's from v3), averaged per task, "
                                   "then over tasks.", ARENA_GEN),
    "profit_excluded": MetricDef("profit excl.", "tasks", "Tasks with no profit rate (not "
                                 "trading, or only infra errors), left out of the profit "
                                 "metrics.", ARENA_GEN),
}

CONVENTIONS: dict[str, MetricDef] = {
    "<metric>_se": MetricDef("± SE", "unit of the metric", "Standard error over tasks: each "
                             "task's mean first, then the SE across tasks (pooled means use the "
                             "task-clustered SE, the same number when attempts are balanced).",
                             ARENA_GEN),
    "<metric>_excluded": MetricDef("excluded", "tasks", "Tasks of the group for which the "
                                   "metric is undefined (no exact min_steps, fixed horizon, "
                                   "no scored attempt), left out of it.", ARENA_GEN),
    "n/a": MetricDef("n/a", "", "Undefined for this group (null in JSON), not zero.", ARENA_GEN),
}


#: The baseline ladder table of the HTML report (the certificates' ``facts["ladder"]``).
LADDER: dict[str, MetricDef] = {
    "rung": MetricDef("rung", "", "Who played: the seeded random agent, the env's scripted "
                      "inductive heuristic (and other scripted inductive baselines), the "
                      "with-rules planner (reads only the rules text), or this run's agent.",
                      ARENA_GEN),
    "mode": MetricDef("mode", "", "inductive (rules hidden, learned from feedback) or "
                      "with-rules (the task's rules_text disclosed).", ODYSSEY_ARENA),
    "tasks_solved": MetricDef("tasks solved", "tasks", "Tasks with at least one successful "
                              "attempt, of the tasks played.", ARENA_GEN),
    "ladder_successes": MetricDef("successes", "attempts", "Successful attempts (every rubric "
                                  "check met) of all attempts, over the tasks played.",
                                  ARENA_GEN),
    "ladder_rate": MetricDef("rate", "%", "Successes / attempts: the success rate over every "
                             "attempt of every task shown.", ARENA_GEN),
    "price": MetricDef("price of discovery", "agent calls", "Mean over the rung's (or run's) "
                       "successful attempts of steps - the task's reference (its certified "
                       "induction cost, else its with-rules minimum: a lower bound, so the "
                       "price is an upper estimate); n/a without successes or references.",
                       ARENA_GEN),
    "ci95": MetricDef("95 % CI", "%", "Wilson score interval of the rate at 95 % (sensible at "
                      "0 % and 100 % and for few attempts); the bar spans it, the mark is the "
                      "rate.", "Wilson 1927, J. Am. Stat. Assoc. 22:209"),
}

#: The task drill-down of the HTML report (one row per attempt of a task).
ATTEMPT: dict[str, MetricDef] = {
    "steps": MetricDef("steps", "agent calls", "Agent turns the attempt took (one turn = one "
                       "agent call), of the task's budget.", ODYSSEYS),
    "min_steps": MetricDef("min", "agent calls", "The certificate's proven minimum turns to "
                           "success; n/a where the env has a fixed horizon (trading, energy) "
                           "and the certificate holds bounds instead.", ARENA_GEN),
    "score": MetricDef("score", "0-100", "Item credit by the score policy: 100 x rubric items "
                       "met / all items; a perfect attempt scores 100; excluded (n/a) on an "
                       "infra error.", ODYSSEYS),
    "end": MetricDef("end", "", "Why the episode ended: success, terminated (the game "
                     "ended unsolved), budget (turns ran out), quit (a human player), "
                     "agent_error or infra_error (excluded).", ARENA_GEN),
    "efficiency": MetricDef("ind.eff", "ratio [0-1]", "Induction efficiency of the attempt: "
                            "min(1, (reference / steps)^2) against the task's reference "
                            "(its value and kind on the task's line), 0 when it failed; n/a "
                            "without a reference or on an infra error.", ARC_AGI_3),
    "findings": MetricDef("findings", "", "The judge's verdict per rubric item (met, violated, "
                          "not_assessable) with its one-line evidence.", ODYSSEYS),
}


def metric_definitions() -> dict[str, dict[str, str]]:
    """Every metric and convention as JSON, for ``summary.json``'s ``metric_definitions``."""
    return {key: d.as_json() for key, d in {**METRICS, **CONVENTIONS}.items()}


def definition_of(key: str) -> MetricDef | None:
    """The definition behind a summary key, with ``pass_at_3`` read as ``pass_at_k``."""
    for prefix in ("pass_at_", "pass_hat_"):
        if key.startswith(prefix) and key[len(prefix):].isdigit():
            return METRICS[prefix + "k"]
    return METRICS.get(key)


def heading(key: str) -> str:
    """A table header: the metric's label and unit, e.g. ``Avg@k (%)``."""
    d = definition_of(key)
    if d is None:
        return key
    label = d.label
    if key.startswith(("pass_at_", "pass_hat_")) and key[-1:].isdigit():
        label = label[:-1] + key.rsplit("_", 1)[-1]
    return f"{label} ({d.unit})" if d.unit and d.unit != "count" else label


def fmt(value: Any) -> str:
    """A table cell: ``n/a`` for an undefined metric, 4 significant digits for floats."""
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)
