"""Typed run records: ``run.json``, trajectory lines and findings lines, as pydantic models.

The JSON Schemas in ``schemas/`` for these records are generated from the models
(``python -m arena_gen.core.records`` rewrites them; a test fails when they are stale), so the
types writers build and the schemas readers validate cannot drift apart. Every record keeps
room for extra fields (``extra="allow"``): agents add per-turn facts such as ``reasoning``,
``truncated`` or ``context``, and the env's typed facts ride in ``state`` and ``final_info``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

MODES = ("inductive", "with-rules")
#: Bounds that keep a hostile record from making the scorer allocate gigabytes.
MAX_ATTEMPTS = 10_000
MAX_TURNS = 1_000_000
#: Most world-model probes a run may ask per milestone (``run --probes-per-milestone``).
MAX_PROBES_PER_MILESTONE = 64
END_REASONS = ("success", "terminated", "budget", "infra_error", "agent_error", "env_error",
               "quit")


class _Record(BaseModel):
    model_config = ConfigDict(extra="allow")

    def to_json_dict(self) -> dict[str, Any]:
        """The record as written: the fields that were set (extras included), in JSON types."""
        return self.model_dump(mode="json", exclude_unset=True)


class Turn(_Record):
    """One agent turn: raw output, the action played, validity, feedback, reward and costs."""

    turn: int = Field(ge=0, le=MAX_TURNS)
    raw: str
    action: str | None
    valid: bool
    feedback: str
    reward: float
    tokens: dict[str, int] | None = None
    latency: float | None = None
    state: dict[str, Any] = Field(default_factory=dict,
                                  description="the game's facts after this turn")


class ErrorTurn(_Record):
    """The turn on which the env raised (``env_error``): the reply it could not play."""

    turn: int = Field(ge=1, le=MAX_TURNS)
    raw: str
    action: str | None
    latency: float | None = None


class ProbeAsked(_Record):
    """A probe as it was asked (never its answer; the judge draws it again to grade)."""

    id: str = Field(max_length=64)
    kind: str = Field(max_length=64)
    question: str
    choices: list[str] | None = None


class ProbeMilestone(_Record):
    """One milestone's probes: when they were asked, what the agent replied, what it cost."""

    index: int = Field(ge=0, le=MAX_TURNS, description="position in the probe schedule")
    turn: int = Field(ge=0, le=MAX_TURNS, description="asked after this turn")
    label: str | None = Field(None, description="the budget share (25%, ...) or end")
    probes: list[ProbeAsked] = Field(default_factory=list)
    replies: list[str | None] = Field(
        default_factory=list, description="one reply per probe, in order; null: none given")
    tokens: dict[str, int] | None = Field(
        None, description="the probe request's usage, never counted in the episode's cost")
    seconds: float | None = None
    error: str | None = Field(None, description="why the agent gave no (usable) replies")


class Trajectory(_Record):
    """One finished (task, attempt) episode: every turn and the end reason."""

    model_config = ConfigDict(extra="allow", title="arena-gen trajectory line")

    task_id: str
    env: str
    attempt: int = Field(ge=0, le=MAX_ATTEMPTS)
    agent: str
    mode: Literal["inductive", "with-rules"]
    agent_seed: list[int] | None = None
    steps: int = Field(ge=0, le=MAX_TURNS)
    success: bool = Field(description="the game's success on the final state")
    end_reason: Literal["success", "terminated", "budget", "infra_error", "agent_error",
                        "env_error", "quit"] = Field(
        description="infra_error is excluded from scores and retried by --resume; agent_error "
                    "and env_error (the env raised: a bug in a game rule) are scored as failures "
                    "on the state reached and not retried")
    final_info: dict[str, Any] = Field(default_factory=dict)
    start_state: dict[str, Any] = Field(default_factory=dict)
    turns: list[Turn]
    min_steps: int | None = Field(None, ge=0, le=MAX_TURNS)
    budget: int | None = Field(
        None, ge=0, le=MAX_TURNS,
        description="the agent steps the attempt ran under: its harness's protocol budget, else "
                    "the task's own; score replays under the budget the run's harness gives the "
                    "task and flags a trajectory recording another (older lines without it: "
                    "that budget)")
    seconds: float | None = None
    error: str | None = None
    error_turn: ErrorTurn | None = Field(
        None, description="env_error: the reply the env raised on (not in turns)")
    probes: list[ProbeMilestone] | None = Field(
        None, description="run --probes: the world-model probes asked at each milestone and "
                          "the side copy's replies (graded by score from the replay); absent "
                          "when probes were off")
    prev: str | None = Field(
        None, pattern="^[0-9a-f]{64}$",
        description="the chain link: sha256 of the previous line's exact bytes (the first "
                    "line: of the run's plan in run.json); absent in runs written before the "
                    "chain")


class Finding(BaseModel):
    """One rubric item's verdict with a one-line evidence string."""

    model_config = ConfigDict(extra="forbid")

    item: str
    status: Literal["met", "violated", "not_assessable"]
    evidence: str


class Flags(_Record):
    """Flags of a judged attempt (reported; only ``rh_zeroed`` changes the score)."""

    infra_error: bool = False
    reward_hacking_suspected: bool = False
    rh_zeroed: bool = False
    replay_mismatch: bool = Field(
        False, description="the recorded outcome disagrees with a replay of the actions, or "
                           "the recorded budget or harness with the run's (a budget finding)")


class FindingsLine(_Record):
    """The judge's verdict on one (task, attempt): one finding per rubric item plus flags."""

    model_config = ConfigDict(extra="allow", title="arena-gen findings line")

    task_id: str
    attempt: int = Field(ge=0, le=MAX_ATTEMPTS)
    env: str | None = None
    findings: list[Finding]
    flags: Flags
    knowledge: dict[str, Any] | None = Field(
        None, description="run --probes: the knowledge curve graded from the replay "
                          "(milestones: index, turn, label, asked, correct, per kind) and "
                          "final_accuracy (% right at the last milestone)")


class AgentConfig(_Record):
    """The agent of a run: its name and its recorded (secret-free) options."""

    name: str
    config: dict[str, Any] = Field(default_factory=dict)


class RunChain(_Record):
    """run.json's record of the trajectory chain: its head, and the head a write in progress
    is about to make (a kill between the two files leaves the file at one of them)."""

    model_config = ConfigDict(extra="forbid")

    head: str = Field(pattern="^[0-9a-f]{64}$",
                      description="sha256 of the last line (of the plan, with no line)")
    pending: str | None = Field(None, pattern="^[0-9a-f]{64}$")


class ProbeConfig(_Record):
    """``run --probes``: how many probes each milestone asks."""

    model_config = ConfigDict(extra="forbid")

    per_milestone: int = Field(ge=1, le=MAX_PROBES_PER_MILESTONE)


class RunMeta(_Record):
    """``run.json``: what defines a run, written by ``run`` and ``play`` alike."""

    model_config = ConfigDict(extra="allow", title="arena-gen run.json")

    suite: str
    suite_path: str
    suite_sha256: str
    agent: AgentConfig
    mode: Literal["inductive", "with-rules"]
    attempts: int = Field(ge=1, le=MAX_ATTEMPTS)
    seed: int
    envs: list[str]
    tasks: list[str]
    budgets: dict[str, int] = Field(
        description="task id -> the agent steps its attempts run under (the harness's budget, "
                    "else the task's; older odyssey runs recorded the task's own here)")
    task_attempts: dict[str, int] | None = Field(
        None, description="a play folder: task id -> the attempts played of it (its plan per "
                          "task; attempts is the most of any); absent in runs, whose every "
                          "task plans attempts")
    executor: str = "local"
    jobs: int = 1
    harness: Literal["arena-gen", "odyssey"] = Field(
        "arena-gen", description="the agent's protocol (--harness); older runs: arena-gen")
    package_versions: dict[str, str] = Field(default_factory=dict)
    git_revision: str | None = None
    started: str | None = None
    ended: str | None = None
    resumed: list[str] = Field(default_factory=list)
    chain: RunChain | None = Field(
        None, description="the head of trajectories.jsonl's hash chain; absent in runs "
                          "written before the chain (score them with --allow-unchained)")
    probes: ProbeConfig | None = Field(
        None, description="world-model probes (run --probes); absent: off")


Metric = float | None  # None: not defined for this group (shown as n/a)


class GroupMetrics(_Record):
    """The metrics of one group of attempts (an env, a level, or everything); the headline
    figures are typed, the rest (``*_se``, ``*_excluded``, trading profit figures) ride along."""

    tasks: int = Field(ge=0)
    attempts: int = Field(ge=0)
    scored: int = Field(ge=0)
    infra_errors: int = Field(ge=0)
    missing: int = Field(ge=0)
    planned: int | None = Field(None, ge=0, description="attempts + missing: the group's plan")
    complete: bool | None = Field(
        None, description="false when an attempt of the plan is missing or an infra error: the "
                          "figures then cover only part of it")
    success_rate: Metric = None
    avg_at_k: Metric = None
    avg_credit_at_k: Metric = None
    trajectory_efficiency: Metric = None
    optimality_ratio: Metric = None
    induction_efficiency: Metric = None
    induction_efficiency_reference: str | None = Field(
        None, description="what induction_efficiency is scored against: one kind (expected "
                          "induction cost; lower bound: induction cost; lower bound: with-rules "
                          "minimum), or each kind with its task count; null: no task had one")
    loop_ratio: Metric = None
    token_efficiency: Metric = None
    knowledge: dict[str, Any] | None = Field(
        None, description="run --probes: probes asked and right, accuracy per milestone "
                          "(curve) and per kind, final_accuracy, knows_vs_succeeds "
                          "(final accuracy of succeeded and failed attempts), probe tokens")


class EnvMetrics(GroupMetrics):
    """An env's metrics, and the same per difficulty level."""

    levels: dict[str, GroupMetrics] = Field(default_factory=dict)


class Curves(_Record):
    """What the report plots for one env: the evolution curve, step counts, loop ratios."""

    evolution: list[int | float] = Field(default_factory=list)
    steps: list[int | float] = Field(default_factory=list)
    loop_ratio: list[int | float] = Field(default_factory=list)


class Summary(_Record):
    """``summary.json``: metrics per env and level and overall, with their definitions."""

    model_config = ConfigDict(extra="allow", title="arena-gen summary.json")

    k: int = Field(ge=1, le=MAX_ATTEMPTS)
    overall: GroupMetrics
    envs: dict[str, EnvMetrics]
    metric_definitions: dict[str, dict[str, Any]] = Field(default_factory=dict)
    run: dict[str, Any] | None = None
    complete: bool = Field(
        True, description="false: the run misses planned attempts or has infra errors, so its "
                          "figures cover only part of its plan (see coverage)")
    coverage: dict[str, Any] | None = Field(
        None, description="planned, scored, infra_errors, missing, complete, strict, and text: "
                          "the coverage in words")
    infra_error_attempts: list[str] = Field(default_factory=list)
    curves: dict[str, Curves] = Field(default_factory=dict)


#: Schema file stem -> the model it is generated from.
MODELS: dict[str, type[BaseModel]] = {"trajectory": Trajectory, "findings": FindingsLine,
                                      "run": RunMeta, "summary": Summary}


def json_schema(name: str) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of one record kind, generated from its model."""
    schema = MODELS[name].model_json_schema()
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": f"arena-gen/{name}.schema.json", **schema}


def schema_text(name: str) -> str:
    """The schema file's text (stable: sorted keys, two-space indent)."""
    return json.dumps(json_schema(name), indent=2, sort_keys=True) + "\n"


def write_schemas(folder: Path) -> list[Path]:
    """Regenerate every record schema file in ``folder``."""
    paths = []
    for name in MODELS:
        path = folder / f"{name}.schema.json"
        path.write_text(schema_text(name), encoding="utf-8")
        paths.append(path)
    return paths


if __name__ == "__main__":  # python -m arena_gen.core.records [SCHEMA_DIR]
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("schemas")
    for written in write_schemas(target):
        print(written)
