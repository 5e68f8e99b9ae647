"""The scorer: arena-gen's judge and score policy over the trajectory a solver recorded.

The task is looked up by the sample's id in the suite the sample names (read once per process
and hash-checked against the sample's ``suite_sha256``), never read from the sample, which
carries only the agent's view. The trajectory's actions are replayed through the task's game
(:func:`~arena_gen.scoring.judge.judge`, via the same findings line ``arena-gen score``
writes), and the score policy turns the findings into the attempt's credit. A sample's score
value is a dict: ``success`` (1 when every rubric item is met: the Perfect Rubrics criterion),
``credit`` (the policy's item credit, 0-100), ``steps`` (agent turns),
``induction_efficiency`` (:mod:`arena_gen.scoring.induction_efficiency` over the replay's steps;
NaN, so left out, where the task has no reference) and, per end reason the
runner's table counts besides infra errors (:data:`END_COUNTS`), 1 when the attempt ended so:
their ``mean`` is the share of attempts (inspect counts the runner's infra errors itself, as
samples in error). Findings, flags, the
end reason, the certified minimum and the budget the episode ran under (checked against the
harness's, and replayed under) are in the score's metadata. Over epochs, the ``mean`` reducer
gives the success rate and Avg@k, and ``max`` of ``success`` is Pass@k at k = epochs (the
unbiased estimator 1 - C(n-c, k)/C(n, k) is 1 exactly when some attempt succeeded and 0
otherwise when k = n): :func:`epochs_reducer` does both in one reducer, ``pass_at_k`` its own
key, so inspect's panel labels every block.

:func:`knowledge_scorer` (added by the tasks when ``probes`` is set) grades the world-model
probes the solver asked, from the replay as ``arena-gen score`` does: its value is the accuracy
(%) at the attempt's last milestone, with the knowledge curve and the attempt's success in its
metadata; the mean over samples is the eval's knowledge, and ``arena-gen score`` over a run
gives the knows-vs-succeeds table.
"""

from __future__ import annotations

from inspect_ai.scorer import (
    Score,
    Scorer,
    ScoreReducer,
    Target,
    max_score,
    mean,
    mean_score,
    score_reducer,
    scorer,
    stderr,
)
from inspect_ai.solver import TaskState

from arena_gen.core.errors import ArenaGenError
from arena_gen.core.protocol import check_harness
from arena_gen.inspect.dataset import sample_task
from arena_gen.inspect.solver import TRAJECTORY
from arena_gen.scoring.induction_efficiency import efficiency, reference_of
from arena_gen.scoring.policy import attempt_score, is_perfect
from arena_gen.scoring.score import judge_record

#: End reasons the run table counts that end a recorded attempt (an infra error errs the sample).
END_COUNTS = ("agent_error", "env_error")
#: The score key whose epochs reduce by max: Pass@k at k = epochs (one attempt: its success).
PASS = "pass_at_k"
#: Induction efficiency of a sample whose task has no reference (fixed-horizon envs): NaN,
#: which inspect leaves out of that key's metrics and reducers as unscored.
UNDEFINED = float("nan")
METRICS = {"success": [mean(), stderr()], "credit": [mean(), stderr()], "steps": [mean()],
           PASS: [mean(), stderr()], "induction_efficiency": [mean(), stderr()],
           **{reason: [mean()] for reason in END_COUNTS}}


@score_reducer(name="epochs")
def epochs_reducer() -> ScoreReducer:
    """One reducer, so inspect's panel shows one labelled block per figure (two reducers gave
    two blocks named alike, "success" twice): every key's mean (the success rate, Avg@k of
    ``credit``, mean steps, end shares) and :data:`PASS`, the max of ``success``."""
    averaged, best = mean_score(), max_score()

    def reduce(scores: list[Score]) -> Score:
        out = averaged(scores)
        top = best(scores)
        if isinstance(out.value, dict) and isinstance(top.value, dict):
            value = {**out.value, PASS: top.value.get("success")}
            return out.model_copy(update={"value": value})
        return out

    return reduce


@scorer(metrics=METRICS)  # type: ignore[arg-type]
def judge_scorer(harness: str | None = None) -> Scorer:
    """Judge each sample's recorded episode by replay and score it with arena-gen's policy,
    under the budget ``harness`` (the eval task's; None: the one the trajectory records) gives
    the sample's task."""
    if harness is not None:
        check_harness(harness)

    async def score(state: TaskState, target: Target) -> Score:
        task = sample_task(state.metadata)
        record = state.store.get(TRAJECTORY)
        if not isinstance(record, dict):
            raise ArenaGenError("no arena-gen trajectory in this sample: use an arena_gen solver")
        line = judge_record(task, record, harness)
        rubric = [item.id for item in task.rubric]
        credit = attempt_score(line, rubric)
        if credit is None:  # only an infra-error record; a model agent raises instead
            raise ArenaGenError(f"infra error in {task.id}: {record.get('error')}")
        perfect = is_perfect(line["findings"], rubric)
        turns = record.get("turns") or []
        reference = reference_of(task)
        replayed = int((line.get("replay") or {}).get("steps") or 0)  # the judge's count
        induction = (UNDEFINED if reference is None
                     else efficiency(reference.steps, replayed, perfect))
        return Score(
            value={"success": 1.0 if perfect else 0.0, "credit": credit,
                   "steps": float(record["steps"]), PASS: 1.0 if perfect else 0.0,
                   "induction_efficiency": induction,
                   **{r: float(record["end_reason"] == r) for r in END_COUNTS}},
            answer=str(turns[-1]["action"]) if turns else "",
            explanation="; ".join(f"{f['item']}: {f['status']} ({f['evidence']})"
                                  for f in line["findings"]),
            metadata={"findings": line["findings"], "flags": line["flags"],
                      "end_reason": record["end_reason"], "min_steps": record["min_steps"],
                      "budget": record.get("budget"), "replayed_steps": replayed,
                      "induction_reference": None if reference is None else {
                          "steps": reference.steps, "kind": reference.kind}})

    return score


@scorer(metrics=[mean(), stderr()])  # type: ignore[arg-type]
def knowledge_scorer(probes: int, harness: str | None = None) -> Scorer:
    """The accuracy (%) of the sample's probe replies at its last milestone, graded from the
    replay (``probes``: per milestone, as the solver asked them)."""
    if harness is not None:
        check_harness(harness)

    async def score(state: TaskState, target: Target) -> Score:
        task = sample_task(state.metadata)
        record = state.store.get(TRAJECTORY)
        if not isinstance(record, dict):
            raise ArenaGenError("no arena-gen trajectory in this sample: use an arena_gen solver")
        line = judge_record(task, record, harness, probes)
        knowledge = line.get("knowledge") or {}
        final = knowledge.get("final_accuracy")
        perfect = is_perfect(line["findings"], [item.id for item in task.rubric])
        return Score(value=0.0 if final is None else float(final),
                     explanation=f"{final} % of the probes right at the last milestone",
                     metadata={"milestones": knowledge.get("milestones"), "success": perfect})

    return score
