"""Certified induction bounds of a released lights task (issue 39): the adversary's lower end and
the prior-aware learner's upper end, each world checked by the build's own acceptance.

- ``class_sample``: worlds of a task's hypothesis class H (the v4 sampler's draws at the task's
  N, each accepted as a build accepts it), from a stream of its own.
- ``adversary_for``: a pool of accepted worlds of H (the task's world, relabellings of it and
  of the hardest sampled worlds) and its adversary, whose ``lower`` every agent must pay.
- ``learner_steps``: the prior-aware learner's steps on sampled worlds of H, with its budget
  lifted to ``cap`` (its expected steps estimate the uncapped expected cost from above).
- ``cell`` and ``expected_cost``: the exact expected cost of a sampled world's cell (its
  accepted relabellings by a fixed group); their mean over H estimates a lower bound of the
  expected cost.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
from collections.abc import Sequence
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
    """Steps on sampled worlds (a learner's, the with-rules minima or the cells' costs): mean,
    its 95 % interval, best and worst, failures at cap."""

    mean: float
    low: float
    high: float
    worst: float
    failures: int
    episodes: int
    best: float = 0.0


def estimate(steps: Sequence[float], failures: int = 0) -> Estimate:
    """The mean of ``steps`` with a normal 95 % interval (Student's t would differ below 30)."""
    arr = np.asarray(steps, dtype=float)
    half = 1.96 * float(arr.std(ddof=1)) / math.sqrt(len(arr)) if len(arr) > 1 else math.inf
    return Estimate(mean=float(arr.mean()), low=float(arr.mean()) - half,
                    high=float(arr.mean()) + half, worst=float(arr.max()), failures=failures,
                    episodes=len(arr), best=float(arr.min()))


def learner_steps(task: Task, agent_factory: Any, worlds: list[dict[str, Any]], cap: int,
                  seed: int) -> Estimate:
    """Steps of a fresh agent on each world (its budget lifted to ``cap``; a failure counts
    ``cap``), with the 95 % interval of the mean (:func:`estimate`)."""
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
    return estimate(steps, fails)


#: The cells of the expected cost's lower end are orbits of the group generated by swapping
#: labels 0 and 1, 2 and 3, 4 and 5 (8 relabellings; every Lite N is at least 6).
CELL_SWAPS = 3


def cell_relabellings(n: int, swaps: int = CELL_SWAPS) -> list[list[int]]:
    """The group's permutations of ``n`` labels: each subset of the disjoint swaps
    (2i, 2i + 1), i < ``swaps``, applied."""
    if 2 * swaps > n:
        raise ValueError(f"{swaps} disjoint swaps need at least {2 * swaps} labels, not {n}")
    out = []
    for chosen in itertools.product((False, True), repeat=swaps):
        perm = list(range(n))
        for i, on in enumerate(chosen):
            if on:
                perm[2 * i], perm[2 * i + 1] = perm[2 * i + 1], perm[2 * i]
        out.append(perm)
    return out


def cell(task: Task, world: dict[str, Any], swaps: int = CELL_SWAPS) -> list[dict[str, Any]]:
    """The cell of ``world`` (a sampled world of ``task``'s class): its distinct relabellings
    by the group that a build would accept, ``world`` first (it was drawn accepted)."""
    kit = registry.for_task(task).load("adversary")
    perms = cell_relabellings(int(task.public["n"]), swaps)
    seen = {json.dumps(kit.relabel(world, perms[0]), sort_keys=True)}  # the identity's
    out = [world]
    for perm in perms[1:]:
        other = kit.relabel(world, perm)
        key = json.dumps(other, sort_keys=True)
        if key not in seen:
            seen.add(key)
            if accepts(task, other):
                out.append(other)
    return out


def expected_cost(task: Task, members: list[dict[str, Any]], *, seconds: float = 60.0) -> float:
    """The exact expected cost (no horizon) of a cell of ``task``'s class, its worlds equally
    likely (:class:`~arena_gen.core.induction.InductionLimit` when the solver stops)."""
    kit = registry.for_task(task).load("adversary")
    return float(kit.expected_cost(members, seconds=seconds))
