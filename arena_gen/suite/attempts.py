"""One rejection-sampling attempt of a task, decided as ``build`` decides it, and the re-run of
a task's earlier attempts that pins the attempt index in its seed path (``verify`` and the
build cache both re-run them: a task swapped for a later, easier attempt of its own stream is
not the suite of its seed)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena_gen.core import registry
from arena_gen.core.calibration import Calibration, calibration_for
from arena_gen.core.errors import ArenaGenError, GenerationError
from arena_gen.core.game import rubric_problem
from arena_gen.core.replay import check_witness
from arena_gen.core.seeds import attempt_seed, seed_path, task_seed
from arena_gen.core.task import Draft, Task
from arena_gen.suite.catalog import preset
from arena_gen.suite.ladder import climb
from arena_gen.suite.resistance import climb_resistant


def task_id(env: str, suite: str, suite_seed: int, index: int) -> str:
    """The stable id of a task, e.g. ``lights-lite-7-0003``."""
    return f"{env}-{suite}-{suite_seed}-{index:04d}"


def reason_kind(reason: str) -> str:
    """The kind a rejection is counted under in the manifest (its first word)."""
    return reason.split(" ")[0]


@dataclass
class Attempt:
    """The build's decision on one rejection-sampling attempt: the accepted task, or why not."""

    task: Task | None
    reason: str | None
    verify_seconds: float = 0.0


@dataclass(frozen=True)
class Origin:
    """Where a candidate comes from: the id, suite label and seed path its task records, and
    the attempt stream its sampler draws from."""

    id: str
    suite: str
    seed_path: list[int]
    seq: np.random.SeedSequence


#: A check of a sampled draft before it is verified: a rejection reason, or None to go on.
Screen = Callable[[Draft], str | None]


def try_attempt(spec: registry.EnvSpec, suite: str, suite_seed: int, index: int, attempt: int,
                config: dict[str, Any], tree_key: bytes | None = None) -> Attempt:
    """Sample, verify, witness-check and (when calibrated) climb one attempt of a task: the one
    decision ``build`` makes per attempt, which ``verify`` and the cache re-run to pin the
    attempt index in a seed path (``tree_key``: a sealed build's seed tree)."""
    root = task_seed(suite_seed, suite, spec.code, index, tree_key)
    origin = Origin(id=task_id(spec.name, suite, suite_seed, index), suite=suite,
                    seed_path=seed_path(suite_seed, suite, spec.code, index, attempt),
                    seq=attempt_seed(root, attempt))
    return decide(spec, origin, config, calibration_for(spec, suite))


def decide(spec: registry.EnvSpec, origin: Origin, config: dict[str, Any],
           cal: Calibration | None, screen: Screen | None = None) -> Attempt:
    """The decision on one candidate drawn from ``origin``: sample, ``screen`` (if any),
    verify, accept, replay the witness and climb ``cal``'s ladder (if any). Builds and
    training streams both decide here, so a stream task is certified exactly as a build's."""
    draft = spec.load("sampler")(config, origin.seq)
    problem = rubric_problem(spec.load("game"), draft.params, draft.world, draft.rubric)
    if problem is not None:  # a bug, not a rejection: the sampler must call game.rubric
        raise GenerationError(f"{origin.id}: the sampler's {problem}")
    if screen is not None:
        reason = screen(draft)
        if reason is not None:
            return Attempt(None, reason, 0.0)
    return certify(spec, origin, draft, cal)


def certify(spec: registry.EnvSpec, origin: Origin, draft: Draft,
            cal: Calibration | None) -> Attempt:
    """The decision on one drawn ``draft``: verify, accept, replay the witness and climb
    ``cal``'s ladder (if any); also what decides whether a world built otherwise (a relabelled
    one, say) is one the sampler could draw and accept."""
    cert = spec.load("verifier")(draft)
    seconds = cert.seconds or 0.0
    reason = spec.acceptance()(draft, cert)
    if reason is not None:
        return Attempt(None, reason, seconds)
    cert.seconds = None  # wall-clock time never enters a frozen file (byte-identical rebuilds)
    task = Task(id=origin.id, env=spec.name, env_version=spec.version, suite=origin.suite,
                seed_path=list(origin.seed_path), params=draft.params, budget=draft.budget,
                public=draft.public, world=draft.world, rules_text=draft.rules_text,
                rubric=draft.rubric, certificate=cert)
    check_witness(task)
    if cal is not None and cal.resistant:
        ladder, resisted, reason = climb_resistant(task, cal)
        if reason is not None:
            return Attempt(None, reason, seconds)
        task.certificate.facts["ladder"] = ladder
        task.certificate.facts["resistance"] = resisted
    elif cal is not None:
        ladder = climb(task, cal)
        reason = cal.task_problem(ladder)
        if reason is not None:
            return Attempt(None, reason, seconds)
        task.certificate.facts["ladder"] = ladder
    return Attempt(task, None, seconds)


def earlier_attempts(task: Task,
                     tree_key: bytes | None = None) -> tuple[str | None, dict[str, int]]:
    """Re-decide every attempt of ``task``'s stream (in the sealed tree of ``tree_key`` when
    given) before the one its seed path names: each must be rejected, or the seed's suite holds
    that earlier one. Returns the problem (or None) and the rejection kinds counted, as the
    manifest's build facts record them."""
    spec = registry.for_task(task)
    seed, _, _, index, attempt = (int(v) for v in task.seed_path)
    config = preset(task.suite, task.env, task.env_version)
    limit = int(config.get("max_attempts", 100))
    if attempt >= limit:
        return (f"seed_path attempt {attempt}: the {task.suite} preset stops after {limit} "
                f"attempts"), {}
    rejections: Counter[str] = Counter()
    for earlier in range(attempt):
        try:
            tried = try_attempt(spec, task.suite, seed, index, earlier, config, tree_key)
        except ArenaGenError as exc:
            return (f"seed_path attempt {attempt}: attempt {earlier} of its stream fails "
                    f"({exc}), so no build reaches attempt {attempt}"), {}
        if tried.task is not None:
            return (f"seed_path attempt {attempt}: attempt {earlier} of this task's stream is "
                    f"acceptable, so the suite of seed {seed} holds attempt {earlier} there, "
                    f"not {attempt}"), {}
        rejections[reason_kind(tried.reason or "")] += 1
    return None, dict(rejections)
