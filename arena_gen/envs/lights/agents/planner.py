"""With-rules lights planner: read the disclosed conditions, play a shortest plan.

It reads only ``view.public`` and ``view.rules_text`` (``B3: (B0 and not B5)``, ``B7: always
toggleable``), parses every condition with the game's own safe formula parser (no ``eval``) into
the exact world, and plays a shortest plan found by the verifier's machinery: the SAT module's
prefix search with a small deterministic conflict budget (exact when it closes, often with no
solver call at all), else the exact BFS. Should an observation ever differ from the plan's
prediction (it cannot when the rules are the game's), it re-plans by BFS from the state it sees.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from arena_gen.core.agent import TaskView
from arena_gen.core.probes import Probe
from arena_gen.envs.lights.bfs import bfs
from arena_gen.envs.lights.formula import Formula, FormulaError, parse
from arena_gen.envs.lights.game_v1 import Rules
from arena_gen.envs.lights.parts import solve_parts
from arena_gen.envs.lights.sat import solve

#: Conflicts the SAT search may spend before the planner falls back to BFS (deterministic).
SAT_CONFLICTS = 5_000
_LINE = re.compile(r"^\s*B(\d+)\s*:\s*(.+?)\s*$")
_STATE = re.compile(r"State:\s*((?:on|off)(?:\s+(?:on|off))*)")


def parse_rules(text: str, n: int) -> list[Formula]:
    """The conditions of a lights ``rules_text``, one per bulb, as the game's AST."""
    conditions: dict[int, Formula] = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        m = _LINE.match(line)
        if not m:
            raise FormulaError(f"not a rule line: {line[:60]!r}")
        bulb, body = int(m.group(1)), m.group(2)
        if bulb >= n or bulb in conditions:
            raise FormulaError(f"B{bulb} is out of range or given twice")
        conditions[bulb] = ({"const": True} if body == "always toggleable"
                            else parse(body, n))
    if sorted(conditions) != list(range(n)):
        raise FormulaError(f"rules name {len(conditions)} of {n} bulbs")
    return [conditions[b] for b in range(n)]


def shortest_plan(world: dict[str, Any], start: int = 0) -> list[int]:
    """A shortest plan from ``start`` to all-on (empty when all-on is unreachable)."""
    if start == 0 and world["n"] > 16:
        found = solve(world, max_conflicts=SAT_CONFLICTS, plan_conflicts=0)
        if found.exact:
            return [int(b) for b in found.witness]
    result = bfs(world, start=start, explore_all=False)
    return [int(b) for b in result.witness] if result.min_steps is not None else []


class LightsPlannerAgent:
    """Deductive upper bound for Turn On Lights: knows the rules, plays a shortest plan."""

    name = "planner"
    privileged = False

    def __init__(self) -> None:
        self.n = 0
        self.world: dict[str, Any] = {}
        self.rules: Rules | None = None
        self.plan: list[int] = []
        self.expect: int | None = None

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        if view.rules_text is None:
            raise ValueError("the lights planner plays with rules (mode with-rules)")
        self.n = int(view.public["n"])
        self.world = {"n": self.n, "conditions": parse_rules(view.rules_text, self.n)}
        self.rules = Rules(self.world)
        self.plan = self.shortest(0)
        self.expect = 0

    def shortest(self, start: int) -> list[int]:
        """A shortest plan from the bitmask ``start`` in the parsed world."""
        return shortest_plan(self.world, start)

    def answer_probes(self, probes: Sequence[Probe]) -> list[str]:
        """From the disclosed rules alone: ``yes`` where the bulb's condition holds."""
        assert self.rules is not None, "reset() first"
        return ["yes" if self.rules.enabled(int(p.subject["state"]), int(p.subject["bulb"]))
                else "no" for p in probes]

    def _read_state(self, observation: str) -> int | None:
        m = _STATE.search(observation)
        words = m.group(1).split() if m else []
        if len(words) != self.n:
            return None
        return sum(1 << i for i, w in enumerate(words) if w == "on")

    def act(self, observation: str) -> str:
        assert self.rules is not None, "reset() first"
        seen = self._read_state(observation)
        if seen is not None and seen != self.expect:
            self.plan = self.shortest(seen)
            self.expect = seen
        if not self.plan:
            return "0"
        bulb = self.plan.pop(0)
        if self.expect is not None:
            self.expect = self.rules.step(self.expect, bulb)
        return str(bulb)


class LightsPartsPlannerAgent(LightsPlannerAgent):
    """The planner for worlds of independent parts (lights v5): a shortest plan per part of
    the disclosed rules (exact: see :mod:`arena_gen.envs.lights.parts`), up to 24 bulbs the
    whole-world planner's."""

    def shortest(self, start: int) -> list[int]:
        if self.n <= 24:
            return shortest_plan(self.world, start)
        result = solve_parts(self.world, start)
        return result.witness if result.min_steps is not None else []
