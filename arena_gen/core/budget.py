"""The one owner of an episode's step budget: the harness's protocol, else the task's own.

Every place that needs the number of agent steps an attempt may take (the text env that
truncates the episode, the episode that records it, the judge that replays it) asks here, and
this asks :func:`~arena_gen.core.protocol.protocol_for`: a lights task with ``budget`` 60
played under the ``odyssey`` harness runs, records and is judged under that harness's 200
steps, never under 60 in one place and 200 in another.
"""

from __future__ import annotations

from typing import Any

from arena_gen.core.protocol import Protocol, protocol_for


def protocol_budget(protocol: Protocol, task: Any) -> int:
    """The steps ``protocol`` gives ``task``: its own budget, or the task's when it sets none."""
    return int(task.budget if protocol.budget is None else protocol.budget)


def harness_budget(harness: str, task: Any) -> int:
    """The steps an attempt at ``task`` under ``harness`` may take (what it runs and is judged
    under); an unknown harness raises ValueError, as ``protocol_for`` does."""
    return protocol_budget(protocol_for(harness, task), task)
