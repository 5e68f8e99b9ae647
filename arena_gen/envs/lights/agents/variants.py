"""Ablation variants of the lights learner (benchmarks/bench_ablation_lights.py): none is a rung.

``LightsTieBreakAgent``: the v2 learner (:mod:`.learner`) fits each bulb's condition as a
decision list and, where the examples leave literals tied, takes the first in bulb order, so
after a failed toggle it guesses an arbitrary bulb the condition needs and plans a detour to
satisfy it. This variant breaks every tie toward the cheapest test of the hypothesis: a literal
over a bulb its model predicts it can flip from the current state (the next plan is one flip and
a retry, and a failure refutes the guess), then the bulb toggled most recently; it plans by exact
BFS on the model up to ``exact_max_n`` bulbs (v2: 12). ``LightsSweepExploreAgent``: the v2
learner that, where its model offers no plan, explores as the model-free sweep does (the nearest
known state with an untried toggle) instead of a random untried toggle. The
``LightsVersionSpace*`` classes vary the v3 rung (:mod:`.version_space`): its risk price of an
uncertain toggle, its prior, the literal bound it assumes. No world, no rules text.
"""

from __future__ import annotations

import numpy as np

from arena_gen.core.agent import TaskView
from arena_gen.envs.lights.agents import learner as v2
from arena_gen.envs.lights.agents.sweep import LightsSweepAgent
from arena_gen.envs.lights.agents.version_space import LightsVersionSpaceAgent
from arena_gen.envs.lights.bfs import bfs


class TestingList(v2.DecisionList):
    """A decision list whose ties go to the literal cheapest to test from the agent's state."""

    def __init__(self, bulb: int, n: int, agent: LightsTieBreakAgent) -> None:
        super().__init__(bulb, n, None, agent.controllable)
        self.agent = agent

    def _rank(self, lit: v2.Literal) -> tuple[int, int]:
        """Smaller is cheaper: (0 when the literal holds after one predicted flip, recency)."""
        v, value = lit
        agent = self.agent
        state = agent.state
        one_flip = (state >> v & 1) != value and agent.models[v].predict(state)
        return (0 if one_flip else 1, -agent.last_toggled.get(v, -1))

    def fit(self) -> None:
        """Rivest's greedy learner (as v2), ties to the cheapest test."""
        literals = sorted(((v, value) for v in range(self.n) if v != self.bulb
                           for value in (1, 0)), key=self._rank)
        self._literals = literals
        everything = (1 << len(self.labels)) - 1
        remaining = everything
        rules: list[tuple[v2.Literal, bool]] = []
        while remaining & self.positive and remaining & ~self.positive:
            best: tuple[int, v2.Literal, bool] | None = None
            for lit in literals:
                cover = self._cover(lit, remaining)
                if not cover:
                    continue
                if not cover & ~self.positive:
                    label = True
                elif not cover & self.positive:
                    label = False
                else:
                    continue
                size = v2._popcount(cover)
                if best is None or size > best[0]:
                    best = (size, lit, label)
            if best is None:
                break
            _, lit, label = best
            rules.append((lit, label))
            remaining &= ~self._cover(lit, remaining)
        default = True if not remaining else bool(remaining & self.positive)
        if not self.positive:
            rules, default = self._conjunction(literals, everything), True
        self.rules, self.default = rules, default


class LightsTieBreakAgent(v2.LightsLearnerAgent):
    """The v2 learner with ties broken toward the cheapest test (see module docstring)."""

    name = "tie-break"
    exact_max_n = 14

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        super().reset(view, mode, rng)
        self.turn = 0
        self.last_toggled: dict[int, int] = {}
        self.models = [TestingList(b, self.n, self) for b in range(self.n)]

    def act(self, observation: str) -> str:
        seen = self._read_state(observation)
        if seen is not None and self._last is not None and seen != self._last[0]:
            self.last_toggled[self._last[1]] = self.turn
        if seen is not None:
            self.state = seen  # the fit's tie-break reads the state the next plan starts from
        self.turn += 1
        return super().act(observation)

    def _replan(self) -> list[int]:
        self.replans += 1
        if self.n <= self.exact_max_n:
            result = bfs(self.world(), start=self.state, explore_all=False)
            return list(result.witness) if result.min_steps is not None else []
        return self._construct()


class LightsSweepExploreAgent(v2.LightsLearnerAgent):
    """The v2 learner exploring by the sweep's graph walk where its model has no plan."""

    name = "sweep-explore"

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        super().reset(view, mode, rng)
        self.walker = LightsSweepAgent()
        self.walker.reset(view, mode, rng)

    def act(self, observation: str) -> str:
        seen = self._read_state(observation)
        walker = self.walker
        if seen is not None and self._last is not None:
            before, bulb = self._last
            walker.edges.setdefault(before, {})[bulb] = seen
            if walker._path and seen != walker._expected:
                walker._path = []
        reply = super().act(observation)
        walker.state, walker._last = self.state, self._last
        walker._expected = walker.edges.get(self.state, {}).get(int(reply), -1)
        return reply

    def _choose(self) -> int:
        if not self._plan and self.state not in self._stalled:
            self._plan = self._replan()
            if not self._plan:
                self._stalled.add(self.state)
        if self._plan:
            self.walker._path = []
            return self._plan.pop(0)
        self.walker.state = self.state
        return self.walker._choose()


class LightsVersionSpaceRisk0Agent(LightsVersionSpaceAgent):
    """Every possible toggle costs one turn, however unlikely (pure optimism)."""

    name, risk = "vs-risk0", 0.0


class LightsVersionSpaceRiskHalfAgent(LightsVersionSpaceAgent):
    """Half the rung's price of uncertainty."""

    name, risk = "vs-risk0.5", 0.5


class LightsVersionSpaceRisk2Agent(LightsVersionSpaceAgent):
    """Twice the rung's price of uncertainty."""

    name, risk = "vs-risk2", 2.0


class LightsVersionSpaceUniformAgent(LightsVersionSpaceAgent):
    """Every chain equally likely (long chains outnumber short ones)."""

    name, uniform_prior = "vs-uniform", True


class LightsVersionSpaceK2Agent(LightsVersionSpaceAgent):
    """Assumes at most 2 literals per condition (a smaller, wrong class on 3-literal worlds)."""

    name, max_literals = "vs-k2", 2
