"""The certified shaping potential of a repo world (v2 and later): minus the exact number of
commands from a state to a successful ``python run.py``.

A state is (Python, installed packages, whether ``run.py`` has succeeded); its distance is 0
once ``run.py`` has succeeded. Otherwise a plan ends with ``python run.py`` and needs a Python
selected. By the v2 verifier's reduction (every Requires-Python bound is ``>=``, so the newest
Python allows every install any Python allows), a plan that selects a Python may as well select
the newest, first; so with ``B(c, py)`` the fewest state-changing package commands from the
configuration ``c`` with ``py`` selected to one where every entrypoint passes:

- no Python selected: ``2 + B(c, newest)``;
- the newest selected: ``1 + B(c, newest)``;
- another one selected: ``1 + min(B(c, it), 1 + B(c, newest))``.

``B`` is the v2 verifier's bounded model checking (its moves and success clauses, built from
the game's own install plans and run-time rule) with layer 0 left free and fixed per query by
assumptions, so one incremental solver per world and Python answers every query; it is asked
for 0, 1, 2, ... commands and the first satisfiable bound is exact (idle steps make bounds
monotone). No state is a dead end: uninstalling every package returns to the empty
configuration, from which the world is certified solvable, so the search ends by the installed
count plus the certified minimum. Answers are memoised per (Python, configuration), and the
searcher is kept per world (the 16 most recent a process), so re-made envs of one world share it.

A v6 world of two or more independent groups (the paper-scale Challenge: 95-125 packages, where
this search does not finish) is measured group by group instead (:mod:`.potential_groups`: the
same exact distances, a lookup per group).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from arena_gen.core.canon import sha256_of
from arena_gen.core.errors import VerificationError
from arena_gen.core.game import Game
from arena_gen.envs.repo.common import ABSENT
from arena_gen.envs.repo.game_v2 import RepoGameV2, RepoV2
from arena_gen.envs.repo.groups import MAX_GROUP_STATES, groups
from arena_gen.envs.repo.potential_groups import GroupDistance
from arena_gen.envs.repo.verify_v2 import Bmc, newest_python

#: Worlds whose searchers (solvers and memo) a process keeps.
CACHE_WORLDS = 16


class RepoDistance:
    """Exact distances to success of one world's states (see the module docstring)."""

    def __init__(self, game: RepoGameV2) -> None:
        self.game = game
        self.newest = newest_python(game)
        self.engines: dict[int, Bmc] = {}
        self.goals: dict[tuple[int, int], int] = {}
        self.memo: dict[tuple[int, tuple[int, ...]], int] = {}
        #: Package commands the search may need: every install undone, then the empty start's.
        self.limit = game.rules.n + self._commands(self.newest, (ABSENT,) * game.rules.n,
                                                   10 * game.rules.n + 10)

    def _commands(self, python: int, installed: tuple[int, ...], limit: int) -> int:
        """B(installed, python): the fewest package commands to a passing configuration, or
        ``limit + 1`` when none is found within ``limit``."""
        engine = self.engines.get(python)
        if engine is None:
            engine = self.engines[python] = Bmc(self.game, python, empty_start=False)
        start = engine.start_literals(installed)
        for t in range(limit + 1):
            while engine.layers < t:
                engine.extend()
            goal = self.goals.get((python, t))
            if goal is None:
                goal = self.goals[(python, t)] = engine.goal_literal(t)
            if engine.solver.solve(assumptions=[*start, goal]):
                return t
        return limit + 1

    def __call__(self, state: RepoV2) -> int:
        if state.run_ok:
            return 0
        key = (state.python, state.installed)
        known = self.memo.get(key)
        if known is not None:
            return known
        newest = self._commands(self.newest, state.installed, self.limit)
        if newest > self.limit:
            raise VerificationError("a repo state has no plan within the uninstall-all bound: "
                                    "the world is not solvable")
        if state.python == ABSENT:
            distance = 2 + newest
        elif state.python == self.newest:
            distance = 1 + newest
        else:
            distance = 1 + min(self._commands(state.python, state.installed, newest), 1 + newest)
        self.memo[key] = distance
        return distance


_KEPT: OrderedDict[str, RepoDistance | GroupDistance] = OrderedDict()


def _searcher(game: RepoGameV2) -> RepoDistance | GroupDistance:
    """Group by group for a v6 world of independent groups each small enough for the group
    search, else the BMC search."""
    from arena_gen.envs.repo.game_v6 import RepoGameV6  # the game the group search is about

    if isinstance(game, RepoGameV6):
        world = game.task.world
        found = groups(world)
        if len(found) >= 2 and all(_configurations(world, g) <= MAX_GROUP_STATES
                                   for g in found):
            return GroupDistance(world, found)
    return RepoDistance(game)


def _configurations(world: dict[str, Any], group: list[int]) -> int:
    """How many configurations a group has (each package absent or at one of its versions)."""
    out = 1
    for q in group:
        out *= len(world["packages"][world["package_order"][q]]["versions"]) + 1
    return out


def distance_of(game: RepoGameV2) -> RepoDistance | GroupDistance:
    """The searcher of ``game``'s world: the kept one if the world was seen (same rules, the
    same distances), else a new one."""
    key = sha256_of(game.task.world)
    found = _KEPT.pop(key, None) or _searcher(game)
    _KEPT[key] = found
    while len(_KEPT) > CACHE_WORLDS:
        _KEPT.popitem(last=False)
    return found


def potential(game: Game[Any, Any, Any]) -> Callable[[RepoV2], float]:
    """The env's ``potential`` part: Phi of a repo (v2+) game's state."""
    if not isinstance(game, RepoGameV2):
        raise TypeError(f"the repo potential reads the v2 rules, not {type(game).__name__}")
    distance = distance_of(game)

    def phi(state: RepoV2) -> float:
        return -float(distance(state))

    return phi
