"""The energy v3 with-rules planner: v2's planner reading every shift a v3 rules text discloses.

v2's rules text discloses at most one shift ("the patterns shift once"); v3's Challenge has
several, each disclosed as "On day D the patterns shift: ..." followed by its base pattern.
"""

from __future__ import annotations

import re

import numpy as np

from arena_gen.core.agent import TaskView
from arena_gen.envs.energy.agents.planner import EnergyPlanner, Regime, _floats, parse_patterns

_SHIFTS = re.compile(r"On day (\d+) the patterns shift: from that day on, wind repeats every "
                     r"(\d+) days and solar every (\d+) days")
_BASES = re.compile(r"Base pattern from day (\d+) on: wind \[([^\]]*)\]; solar \[([^\]]*)\]")


def parse_patterns_v3(text: str | None) -> list[Regime]:
    """Every regime a v3 rules text discloses, in day order (empty without base patterns)."""
    regimes = parse_patterns(text)[:1]
    if not regimes:
        return []
    bases = {int(m.group(1)): {"wind": _floats(m.group(2)), "solar": _floats(m.group(3))}
             for m in _BASES.finditer(text or "")}
    for m in _SHIFTS.finditer(text or ""):
        day = int(m.group(1))
        if day in bases:
            regimes.append((day, {"wind": int(m.group(2)), "solar": int(m.group(3))},
                            bases[day]))
    return sorted(regimes, key=lambda r: r[0])


class EnergyPlannerV3(EnergyPlanner):
    """The with-rules receding-horizon dispatcher on v3 rules texts (any number of shifts)."""

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        super().reset(view, mode, rng)
        if self.uses_rules:
            self.regimes = parse_patterns_v3(view.rules_text)
