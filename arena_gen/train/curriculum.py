"""A curriculum controller: picks the next stream level so an agent's success rate holds a target.

The rule is a weighted up-down staircase (Kaernbach 1991, "Simple adaptive testing with the
weighted up-down method", Perception & Psychophysics 49): the controller stands on one level of
an ordered list, easiest first. A success reported at the current level (or a harder one) moves
it one level up with probability ``up = min(1, (1 - target) / target)``; a failure reported at
the current level (or an easier one) moves it one level down with probability
``down = min(1, target / (1 - target))``. At target 0.5 both are 1: up after every success,
down after every failure. Since the level is bounded, up and down moves balance in the long run,
``successes x up ~ failures x down``, so the success rate tends to ``target`` whatever the
agent's rate per level, as long as the agent's rate on the easiest level is at least the target
and on the hardest at most the target (otherwise the controller stays at that end). The rule
needs no model of the agent and keeps following it as it learns.

An outcome at an easier level than the current one that succeeded, or at a harder one that
failed, says nothing new about the current level and moves nothing (such reports arrive when
tasks are handed out before earlier outcomes come back). The coin flips come from a generator
of the controller's own seed tree and are drawn only when a move is possible and its
probability is below 1, so the level sequence is a function of (seed, target, levels, outcome
sequence). The controller also keeps each level's windowed success rate (the last ``window``
outcomes reported there), for inspection; the rule does not read it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from arena_gen.core.errors import ArenaGenError
from arena_gen.core.task import Task
from arena_gen.train.levels import curriculum_levels, level_preset
from arena_gen.train.stream import Stream, stream

#: The spawn key of a curriculum's coin flips below its seed (no task stream uses it).
CURRICULUM_KEY = 2**32 - 3


@dataclass(frozen=True)
class Outcome:
    """One reported outcome and the level the controller stood on after it."""

    level: str
    success: bool
    next_level: str


class Curriculum:
    """Picks stream levels of ``env`` from reported outcomes to hold ``target`` success."""

    def __init__(self, env: str, levels: Sequence[str] | None = None, target: float = 0.5,
                 seed: int = 0, *, start: int = 0, window: int = 20,
                 version: int | None = None, jobs: int = 1) -> None:
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ArenaGenError(f"seed must be a non-negative integer, got {seed!r}")
        if isinstance(target, bool) or not isinstance(target, (int, float)) \
                or not 0.0 < float(target) < 1.0:
            raise ArenaGenError(f"target must be a success rate strictly between 0 and 1, "
                                f"got {target!r}")
        chosen = list(curriculum_levels(env, version) if levels is None else levels)
        if not chosen:
            raise ArenaGenError(f"env {env!r} has no curriculum levels; pass levels=[...]")
        if len(set(chosen)) != len(chosen):
            raise ArenaGenError(f"levels repeat: {chosen}")
        for level in chosen:
            level_preset(level, env, version)  # an unknown level fails here
        if isinstance(start, bool) or not isinstance(start, int) \
                or not 0 <= start < len(chosen):
            raise ArenaGenError(f"start must be a level index in [0, {len(chosen) - 1}], "
                                f"got {start!r}")
        if isinstance(window, bool) or not isinstance(window, int) or window < 1:
            raise ArenaGenError(f"window must be a positive integer, got {window!r}")
        self.env, self.levels, self.target, self.seed = env, chosen, float(target), seed
        self.version, self.jobs = version, jobs
        self.up = min(1.0, (1.0 - self.target) / self.target)
        self.down = min(1.0, self.target / (1.0 - self.target))
        self.position = start
        self.history: list[Outcome] = []
        self._windows: dict[str, deque[bool]] = {lv: deque(maxlen=window) for lv in chosen}
        self._rng = np.random.default_rng(
            np.random.SeedSequence(entropy=seed, spawn_key=(CURRICULUM_KEY,)))
        self._streams: dict[str, Stream] = {}

    def next_level(self) -> str:
        """The level the next task should come from (reading it changes nothing)."""
        return self.levels[self.position]

    def report(self, level: str, success: bool) -> str:
        """Record one outcome at ``level`` and apply the step rule; returns the next level."""
        if level not in self._windows:
            raise ArenaGenError(f"level {level!r} is not one of this curriculum's "
                                f"{self.levels}")
        if not isinstance(success, (bool, np.bool_)):
            raise ArenaGenError(f"success must be true or false, got {success!r}")
        success = bool(success)
        self._windows[level].append(success)
        where = self.levels.index(level)
        if success and where >= self.position and self.position < len(self.levels) - 1:
            if self._coin(self.up):
                self.position += 1
        elif not success and where <= self.position and self.position > 0:
            if self._coin(self.down):
                self.position -= 1
        self.history.append(Outcome(level, success, self.next_level()))
        return self.next_level()

    def _coin(self, p: float) -> bool:
        return p >= 1.0 or bool(self._rng.random() < p)

    def next_task(self) -> tuple[str, Task]:
        """The next level and the next task of its stream (one certified stream per level, of
        this curriculum's seed, drawn on demand: the k-th task taken at a level is index k)."""
        level = self.next_level()
        if level not in self._streams:
            self._streams[level] = stream(self.env, level, self.seed, version=self.version,
                                          jobs=self.jobs)
        return level, next(self._streams[level])

    def rates(self) -> dict[str, float | None]:
        """Each level's success rate over its last ``window`` outcomes (None: none yet)."""
        return {lv: (sum(w) / len(w) if w else None) for lv, w in self._windows.items()}

    def success_rate(self, skip: int = 0) -> float | None:
        """The success rate of every outcome reported after the first ``skip`` (warm-up)."""
        kept = self.history[skip:]
        return sum(o.success for o in kept) / len(kept) if kept else None
