"""Exact distances to success of a repo v6 world of independent groups, group by group.

The paper-scale Challenge's worlds (95-125 packages) are far beyond the BMC search of
:mod:`.potential` (one released task: no answer in minutes), but they split into closed groups
(:func:`~.groups.groups`: no rule crosses a group, no Requires-Python bound). For a state that
has not yet run successfully, with ``D_g`` the fewest install and uninstall commands moving
group ``g``'s configuration to one that passes ``g``'s checks, the exact distance is
``sum(D_g) + 1`` (the run) ``+ 1`` when no Python is selected. Why it is exact, as
:mod:`.groups` argues for the minimum from nothing installed (nothing there reads the start):
a command moves the packages of one group at most, and its effect reads that group's packages
only (no rule reads the Python), so the package commands of any completion, kept group by
group, move each group to a passing configuration (at least ``D_g`` of them per group), and a
run and, with none selected, a Python selection come besides; the groups' shortest moves played
one after another, then the run, take exactly that.

``D_g`` comes from one backward breadth-first search over the group's configurations reachable
from nothing installed (:func:`~.groups.explored`, the verifier's own exploration, through the
game's install and uninstall rules): every state an episode reaches projects onto one of them.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from arena_gen.core.errors import VerificationError
from arena_gen.envs.repo.common import ABSENT
from arena_gen.envs.repo.game_v2 import RepoV2
from arena_gen.envs.repo.groups import GroupSpace, explored, sub_world


def to_goal(space: GroupSpace) -> dict[tuple[int, ...], int]:
    """Per configuration of ``space``, the fewest commands to a passing one (those that cannot
    reach one are left out)."""
    back: list[list[int]] = [[] for _ in space.states]
    for at, out in enumerate(space.moves):
        for _, j in out:
            back[j].append(at)
    depth = [-1] * len(space.states)
    queue = deque(i for i, ok in enumerate(space.goal) if ok)
    for i in queue:
        depth[i] = 0
    while queue:
        at = queue.popleft()
        for i in back[at]:
            if depth[i] < 0:
                depth[i] = depth[at] + 1
                queue.append(i)
    return {s: d for s, d in zip(space.states, depth, strict=True) if d >= 0}


class GroupDistance:
    """Exact distances to success of one world's states (see the module docstring)."""

    def __init__(self, world: dict[str, Any], found: list[list[int]]) -> None:
        self.groups = found
        self.tables = [to_goal(explored(sub_world(world, group))) for group in found]
        names = world["package_order"]
        for group, table in zip(found, self.tables, strict=True):
            if not table:
                raise VerificationError(f"the group of {', '.join(names[q] for q in group)} "
                                        f"never passes its checks: the world is not solvable")
        self.names = names

    def __call__(self, state: RepoV2) -> int:
        if state.run_ok:
            return 0
        total = 1 + (state.python == ABSENT)
        for group, table in zip(self.groups, self.tables, strict=True):
            found = table.get(tuple(state.installed[q] for q in group))
            if found is None:
                listed = ", ".join(self.names[q] for q in group)
                raise VerificationError(f"the configuration of {listed} is not reachable from "
                                        f"nothing installed, so it has no certified distance")
            total += found
        return total
