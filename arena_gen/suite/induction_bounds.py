"""Certified induction bounds of a released lights task (issue 39): the adversary's lower end and
the prior-aware learner's upper end, each world checked by the build's own acceptance.

- ``class_sample``: worlds of a task's hypothesis class H (the v4 sampler's draws at the task's
  N, each accepted as a build accepts it), from a stream of its own.
- ``adversary_for``: a pool of accepted worlds of H (the task's world, relabellings of it and
  of the hardest sampled worlds) and its adversary, whose ``lower`` every agent must pay.
- ``learner_steps``: the prior-aware learner's steps on sampled worlds of H, with its budget
  lifted to ``cap`` (its expected steps estimate the uncapped expected cost from above).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena_gen.core import registry
from arena_gen.core.calibration import calibration_for
from arena_gen.core.episode import run_episode
from arena_gen.core.induction import Adversary
from arena_gen.core.task import Draft, Task
from arena_gen.suite.attempts import Origin, certify, decide
from arena_gen.suite.catalog import preset

#: The fixed integer naming the class-sampling stream (no build's suite code uses it).
CLASS_STREAM = 39


def _origin(task: Task, seq: np.random.SeedSequence) -> Origin:
    return Origin(id=task.id, suite=task.suite, seed_path=list(task.seed_path), seq=seq)


def accepts(task: Task, world: dict[str, Any]) -> bool:
    """Whether a build would accept ``world`` at ``task``'s public view and seed path: verified,
    accepted, witness replayed, ladder climbed and resistant, as ``build`` decides."""
    spec = registry.for_task(task)
    draft = spec.load("adversary").relabelled_draft(task, world)
    cal = calibration_for(spec, task.suite)
    return certify(spec, _origin(task, np.random.SeedSequence(0)), draft, cal).task is not None


def class_sample(task: Task, count: int, seed: int, *, max_roots: int = 20_000
                 ) -> list[dict[str, Any]]:
    """``count`` worlds of ``task``'s class: the sampler's candidates (one task stream each,
    children of ``SeedSequence([CLASS_STREAM, seed])``), drawn until one is accepted, kept when
    their N is the task's (the others are screened out before verification)."""
    spec = registry.for_task(task)
    config = preset(task.suite, task.env, task.env_version)
    cal = calibration_for(spec, task.suite)
    n = int(task.public["n"])

    def screen(draft: Draft) -> str | None:
        return None if int(draft.params["n"]) == n else "other_n"

    out: list[dict[str, Any]] = []
    root = np.random.SeedSequence([CLASS_STREAM, seed, n])
    for stream in root.spawn(max_roots):
        if len(out) >= count:
            break
        for attempt in stream.spawn(int(config.get("max_attempts", 100))):
            tried = decide(spec, _origin(task, attempt), config, cal, screen)
            if tried.reason == "other_n":
                break  # N is drawn once per task stream: every attempt has it
            if tried.task is not None:
                out.append(tried.task.world)
                break
    return out


@dataclass
class Pool:
    """An adversary's pool: its accepted worlds and how many candidates acceptance refused."""

    worlds: list[dict[str, Any]]
    refused: int
    #: The env's ``adversary`` part (what builds the adversary over these worlds).
    kit: Any


def pool_for(task: Task, sample: list[dict[str, Any]], *, relabel: int, hardest: int,
             seed: int) -> Pool:
    """The task's world, ``relabel`` relabellings of it and of each of the ``hardest`` sampled
    worlds (by exact minimum), those worlds themselves; each kept only if accepted."""
    kit = registry.for_task(task).load("adversary")
    seq = np.random.SeedSequence([CLASS_STREAM, seed, 1])
    ranked = sorted(sample, key=lambda w: -kit.min_steps(w))
    bases = [task.world, *ranked[:hardest]]
    worlds, refused = [task.world], 0
    for base, child in zip(bases, seq.spawn(len(bases)), strict=True):
        candidates = ([] if base is task.world else [base]) + kit.relabellings(base, relabel,
                                                                                child)
        for w in candidates:
            if accepts(task, w):
                worlds.append(w)
            else:
                refused += 1
    return Pool(worlds=worlds, refused=refused, kit=kit)


def adversary_for(pool: Pool, horizon: int, *, seconds: float = 60.0) -> Adversary:
    """The pool's adversary (its ``lower``: the pool's exact worst-case cost)."""
    return pool.kit.build(pool.worlds, horizon, seconds=seconds)


@dataclass
class Estimate:
    """A learner's steps on sampled worlds: mean, its 95 % interval, worst, failures at cap."""

    mean: float
    low: float
    high: float
    worst: int
    failures: int
    episodes: int


def learner_steps(task: Task, agent_factory: Any, worlds: list[dict[str, Any]], cap: int,
                  seed: int) -> Estimate:
    """Steps of a fresh agent on each world (its budget lifted to ``cap``; a failure counts
    ``cap``), with a normal 95 % interval of the mean (Student's t would differ below 30)."""
    steps, fails = [], 0
    seq = np.random.SeedSequence([CLASS_STREAM, seed, 2])
    kit = registry.for_task(task).load("adversary")
    for i, world in enumerate(worlds):
        draft = kit.relabelled_draft(task, world)
        lifted = dataclasses.replace(task, world=world, rules_text=draft.rules_text,
                                     budget=cap, seed_path=[*task.seed_path[:-1], i])
        result = run_episode(lifted, agent_factory(), run_seed=int(seq.generate_state(1)[0]))
        steps.append(int(result["steps"]))
        fails += not result["success"]
    arr = np.asarray(steps, dtype=float)
    half = 1.96 * float(arr.std(ddof=1)) / math.sqrt(len(arr)) if len(arr) > 1 else math.inf
    return Estimate(mean=float(arr.mean()), low=float(arr.mean()) - half,
                    high=float(arr.mean()) + half, worst=int(arr.max()), failures=fails,
                    episodes=len(arr))
