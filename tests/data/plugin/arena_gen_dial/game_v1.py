"""The rules of Dial v1 (frozen once released)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena_gen.core.game import ActionError, Check, Event, Facts, Game
from arena_gen.core.task import RubricItem

#: The one rubric item: ``rubric`` and ``checks`` both build it from this constant.
AT_TARGET = "at_target"
MOVES = {"left": -1, "right": 1}


@dataclass(frozen=True)
class DialFacts(Facts):
    """What judges and logs know of a state."""

    position: int
    target: int


def distance(a: int, b: int, size: int) -> int:
    """Steps between two positions on a dial that wraps around."""
    d = abs(a - b) % size
    return min(d, size - d)


class DialGame(Game[int, int, DialFacts]):
    """Dial.

    Description:
        A dial of ``size`` positions starts at 0; a hidden target position must be reached.
    Action Space:
        ``left`` or ``right`` (one position, wrapping around).
    Observation:
        ``Position: P``, after the first turn with ``warmer`` or ``colder`` as feedback.
    Starting State:
        Position 0.
    Rewards:
        1.0 on reaching the target, else 0.
    Episode End:
        Terminated at the target; truncated at the turn budget.
    Information:
        ``position`` and ``target``.
    Rubric:
        ``at_target``: the dial shows the target. Success: it is met.
    Arguments:
        ``task``: a dial task or Draft (``world`` holds ``size`` and ``target``).
    Version History:
        v1: initial release.
    """

    def parse(self, text: str) -> int:
        word = text.strip().lower()
        if word not in MOVES:
            raise ActionError(f"{word[:20]!r} is not left or right")
        return MOVES[word]

    def initial(self) -> int:
        return 0

    def step(self, state: int, action: int) -> tuple[int, Event]:
        size, target = int(self.task.world["size"]), int(self.task.world["target"])
        after = (state + action) % size
        closer = distance(after, target, size) < distance(state, target, size)
        return after, Event("warmer" if closer else "colder", reward=float(after == target))

    def done(self, state: int) -> bool:
        return state == int(self.task.world["target"])

    def facts(self, state: int) -> DialFacts:
        return DialFacts(position=state, target=int(self.task.world["target"]))

    @classmethod
    def rubric(cls, params: Mapping[str, Any], world: Mapping[str, Any]) -> list[RubricItem]:
        return [RubricItem(AT_TARGET, "The dial shows the hidden target.")]

    def checks(self, facts: DialFacts) -> list[Check]:
        return [Check(AT_TARGET, facts.position == facts.target, f"position {facts.position}")]

    def render(self, state: int) -> str:
        return f"Position: {state}"

    @staticmethod
    def random_action(public: dict[str, Any], rng: np.random.Generator) -> str:
        return "left" if rng.random() < 0.5 else "right"
