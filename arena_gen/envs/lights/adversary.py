"""The lower end of a lights task's induction interval, made constructive: an adversary that
plays any agent through the game's own interface and names a world it needed many steps on.

The adversary holds a pool of worlds of the task's hypothesis class H (the caller checks each
with the sampler's acceptance: ``arena_gen.suite.induction_bounds``), answers every toggle as
some world still consistent with every earlier answer would (:class:`~arena_gen.core.induction.
Adversary`), and at the end names a world consistent with all of them: the agent's episode on
that world is exactly the one it played. The pool is the task's own world and relabellings of
worlds of H (the sampler's order is a uniform permutation, so a relabelled world is drawn with
the same probability; acceptance is checked again, since the model-free rungs read labels).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena_gen.core.agent import TaskView
from arena_gen.core.game import Event
from arena_gen.core.game_env import GameEnv
from arena_gen.core.induction import Adversary, solve
from arena_gen.core.task import Draft, Task
from arena_gen.envs.lights.bfs import bfs
from arena_gen.envs.lights.formula import Formula
from arena_gen.envs.lights.game_v1 import LightsGame
from arena_gen.envs.lights.induction import world_class
from arena_gen.envs.lights.sampler import rules_text


def _relabel_formula(node: Formula, perm: Sequence[int]) -> Formula:
    if "var" in node:
        return {"var": int(perm[int(node["var"])])}
    if "not" in node:
        return {"not": _relabel_formula(node["not"], perm)}
    if "const" in node:
        return dict(node)
    (op, args), = node.items()
    return {op: [_relabel_formula(a, perm) for a in args]}


def relabel(world: dict[str, Any], perm: Sequence[int]) -> dict[str, Any]:
    """``world`` with bulb b renamed ``perm[b]`` (the same rules under other labels)."""
    n = int(world["n"])
    conditions: list[Formula] = [{"const": True}] * n
    for b, cond in enumerate(world["conditions"]):
        conditions[int(perm[b])] = _relabel_formula(cond, perm)
    return {"n": n, "order": [int(perm[int(o)]) for o in world["order"]],
            "conditions": conditions}


def relabelled_draft(task: Task, world: dict[str, Any]) -> Draft:
    """The draft the sampler would have produced for ``world`` at ``task``'s public view."""
    return Draft(params=dict(task.params), budget=task.budget, public=dict(task.public),
                 world=world, rules_text=rules_text(world["conditions"]),
                 rubric=LightsGame.rubric(task.params, world))


def relabellings(world: dict[str, Any], count: int,
                 seq: np.random.SeedSequence) -> list[dict[str, Any]]:
    """``count`` relabellings of ``world`` by uniform permutations (one child stream each)."""
    n = int(world["n"])
    return [relabel(world, [int(v) for v in np.random.default_rng(s).permutation(n)])
            for s in seq.spawn(count)]


class AdversaryGame(LightsGame):
    """The lights game of ``task`` whose toggles the adversary answers (one episode at a time:
    :meth:`initial` starts its belief again)."""

    def __init__(self, task: Task, adversary: Adversary) -> None:
        super().__init__(task)
        self.adversary = adversary

    def initial(self) -> int:
        self.adversary.reset()
        return 0

    def step(self, state: int, action: int) -> tuple[int, Event]:
        after = self.adversary.answer(action)
        assert isinstance(after, int)  # a lights state: the bitmask of the bulbs on
        return self.moved(state, action, after)


@dataclass
class Played:
    """One agent's episode against the adversary: what it did and the world it is named on."""

    steps: int
    success: bool
    #: Indices (into the pool) of the worlds consistent with every answer.
    consistent: list[int]
    #: The agent's action texts, in order (replayed on a named world, they give this episode).
    actions: list[str]


def build(worlds: Sequence[dict[str, Any]], horizon: int, *, seconds: float = 60.0,
          max_entries: int = 2_000_000) -> Adversary:
    """The adversary of a pool of accepted worlds of one N: its ``lower`` is the pool's exact
    worst-case cost within ``horizon`` (:class:`~arena_gen.core.induction.InductionLimit`
    when the search stops at its bounds)."""
    return Adversary(world_class(worlds, [1.0] * len(worlds)), horizon, seconds=seconds,
                     max_entries=max_entries)


def play(task: Task, agent: Any, adversary: Adversary, rng: np.random.Generator, *,
         mode: str = "inductive") -> Played:
    """Play ``agent`` (reset with ``task``'s view, never its world) against ``adversary``
    through the game's own text env, up to ``task``'s budget."""
    env = GameEnv(AdversaryGame(task, adversary))
    obs, _ = env.reset()
    agent.reset(TaskView.of(task, mode, privileged=False), mode, rng)
    over, actions = False, []
    while not over:
        actions.append(str(agent.act(obs)))
        obs, _, terminated, truncated, _ = env.step(actions[-1])
        over = terminated or truncated
    return Played(steps=env.turn, success=env.success, consistent=adversary.consistent(),
                  actions=actions)


def expected_cost(worlds: Sequence[dict[str, Any]], *, seconds: float = 60.0,
                  max_nodes: int = 2_000_000) -> float:
    """The exact expected induction cost without horizon of equally likely ``worlds`` of one N
    (value iteration to its fixed point: an optimal learner never revisits a belief, so it
    finishes within as many steps as there are beliefs)."""
    cls = world_class(worlds, [1.0] * len(worlds))
    return solve(cls, 1 << 30, max_nodes=max_nodes, seconds=seconds).expected


@dataclass(frozen=True)
class AdversaryKit:
    """What ``arena_gen.suite.induction_bounds`` needs of lights (the registry's ``adversary``
    part), so that generic module names no env."""

    relabelled_draft: Any
    relabellings: Any
    build: Any
    relabel: Any
    expected_cost: Any

    @staticmethod
    def min_steps(world: dict[str, Any]) -> int:
        """The world's exact with-rules minimum (0 when none is found)."""
        return int(bfs(world, explore_all=False).min_steps or 0)


KIT = AdversaryKit(relabelled_draft=relabelled_draft, relabellings=relabellings, build=build,
                   relabel=relabel, expected_cost=expected_cost)
