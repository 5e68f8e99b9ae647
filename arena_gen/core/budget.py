"""The one owner of an episode's step budget: the harness's protocol, else the task's own.

Every place that needs the number of agent steps an attempt may take (the text env that
truncates the episode, the episode that records it, the judge that replays it) asks here, and
this asks :func:`protocol_for`: a lights task with ``budget`` 60
played under the ``odyssey`` harness runs, records and is judged under that harness's 200
steps, never under 60 in one place and 200 in another.
"""

from __future__ import annotations

from typing import Any

from arena_gen.core import registry
from arena_gen.core.protocol import DEFAULT_HARNESS, Protocol, check_harness, protocol_budget


def protocol_for(harness: str, task: Any) -> Protocol:
    """The protocol of ``harness`` for one task (its env's spec and world decide the odyssey
    budget): the one owner of an episode's budget under a harness."""
    if check_harness(harness) == DEFAULT_HARNESS:
        return Protocol()
    spec = registry.for_task(task)
    if spec.odyssey is None:  # an env the paper does not have: its own budget, all lines
        return Protocol(harness=harness, budget=int(task.budget), show_turns_left=False)
    profile = registry.resolve(spec.odyssey)
    steps = int(profile.steps)
    if spec.daily:
        steps = max(steps, int(task.world.get("horizon", steps)))
    return Protocol(harness=harness, budget=steps, show_turns_left=False,
                    show_feedback=profile.show_feedback)


def harness_budget(harness: str, task: Any) -> int:
    """The steps an attempt at ``task`` under ``harness`` may take (what it runs and is judged
    under); an unknown harness raises ValueError, as ``protocol_for`` does."""
    return protocol_budget(protocol_for(harness, task), task)
