"""The with-rules planner for repo v3: read the disclosed rules, plan with SAT, play the plan.

It reads only ``view.rules_text`` (never ``view.world``, never the certificate): the text is
parsed back into a world (:func:`~arena_gen.envs.repo.sampler_v3.parse_rules`), compiled into the
game's rules (:class:`~arena_gen.envs.repo.game_v2.RepoGameV2`), and the project's bounded model
checker (:mod:`arena_gen.envs.repo.verify_v3`) finds a shortest command sequence from the empty
state (from the cover bound up, each SAT call capped, jumping to a longer horizon where a call
runs out); the agent selects the newest Python, sends the plan, then ``python run.py``. It is the
ladder's deductive upper bound: the best an agent can do once it knows the rules. Planning is
deterministic (no randomness; the SAT solver is deterministic).

If the text cannot be read or no plan fits the budget, it falls back to the inductive repair
loop (so a with-rules failure means the disclosure was not enough, never a crash).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from arena_gen.core import registry
from arena_gen.core.agent import TaskView
from arena_gen.core.game import WorldView
from arena_gen.core.probes import Probe, offers_probes
from arena_gen.envs.repo.agents.heuristic_v2 import RUN, RepoV2HeuristicAgent
from arena_gen.envs.repo.agents.probe_replies import model_replies
from arena_gen.envs.repo.game_v2 import RepoGameV2
from arena_gen.envs.repo.sampler_v3 import parse_rules
from arena_gen.envs.repo.semver import version_text
from arena_gen.envs.repo.verify_v3 import some_plan

#: SAT conflicts per call before the planner settles for a longer plan (speed, not quality:
#: a plan that is not shortest still succeeds).
CONFLICTS = 20_000


class RepoPlannerAgent:
    """Plans from the rules text with SAT (see module docstring)."""

    name = "planner"
    privileged = False

    def __init__(self) -> None:
        self.queue: list[str] = []
        self.fallback: RepoV2HeuristicAgent | None = None
        self.model: Any = None

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        """Parse the rules text and plan; without a readable text or a plan, repair by errors."""
        self.queue, self.fallback, self.model = [], None, None
        try:
            if view.rules_text is None:
                raise ValueError("the planner plays with the rules disclosed")
            world = parse_rules(view.rules_text)
            game = RepoGameV2(WorldView(world, view.public, view.budget))
            model = registry.get(view.env, view.env_version).load("game")
            if offers_probes(model):  # the task's own game class, compiled from the text
                self.model = model(WorldView(world, view.public, view.budget))
            found = some_plan(game, max(0, view.budget // 4 - 2), CONFLICTS)
        except (ValueError, KeyError, IndexError):
            found = None
        if found is None or found.commands is None:
            self.fallback = RepoV2HeuristicAgent()
            self.fallback.reset(view, mode, rng)
            return
        self.queue = [f"pip install python=={version_text(game.rules.pythons[found.python])}",
                      *found.commands, RUN]

    def act(self, observation: str) -> str:
        """The next planned command (then ``python run.py`` again, should the plan fall short)."""
        if self.fallback is not None:
            return self.fallback.act(observation)
        return self.queue.pop(0) if self.queue else RUN

    def answer_probes(self, probes: Sequence[Probe]) -> list[str]:
        """From the rules it read: a v4 game compiled from the parsed world answers (the
        repair fallback, when the text could not be read, from what it has seen)."""
        if self.model is None:
            return self.fallback.answer_probes(probes) if self.fallback else [""] * len(probes)
        return model_replies(probes, self.model)
