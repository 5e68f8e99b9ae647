"""The oracle agent: plays the certificate's witness plan; it must score 100 on every task."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from arena_gen.core import registry
from arena_gen.core.agent import TaskView
from arena_gen.core.game import WorldView
from arena_gen.core.probes import Probe, offers_probes


class OracleAgent:
    """Replays the verified witness, one action per turn (a hold/no-op text once it runs out)."""

    name = "oracle"
    privileged = True

    def __init__(self) -> None:
        self._plan: list[str] = []
        self._turn = 0
        self._game: Any = None

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        if view.witness is None:
            raise ValueError("the oracle needs a privileged task view")
        self._plan = list(view.witness)
        self._turn = 0
        game = registry.get(view.env, view.env_version).load("game")
        self._game = (game(WorldView(view.world or {}, view.public, view.budget))
                      if offers_probes(game) else None)

    def act(self, observation: str) -> str:
        action = self._plan[self._turn] if self._turn < len(self._plan) else ""
        self._turn += 1
        return action

    def answer_probes(self, probes: Sequence[Probe]) -> list[str]:
        """The game's own answers, from the world it sees (every probe kind states the
        situation it asks about, so the state the oracle is in does not matter)."""
        if self._game is None:
            return [""] * len(probes)
        return [self._game.probe_answer(self._game.initial(), p) for p in probes]
