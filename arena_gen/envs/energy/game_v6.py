"""Energy Dispatch v6 (a preview): v5's game asking its questions about the regime in force.

v5 draws its questions' days from the whole horizon. On a world whose patterns shift (v3's
Challenge: two shifts; v6's: four to seven) that includes days of regimes that have not begun
at the milestone, whose patterns nobody can induce from what has been seen: a learner's
Challenge curve stays flat near chance (issue 38's remaining energy flaw). v6 draws them only
from the regime in force on the probe day (its days past and future), so each answer follows
from a pattern the agent has been playing in. A world without shifts has one regime, the whole
horizon, so v6's questions on it are v5's, byte for byte. The rules, observation, rubric and
matched-pair and sets-of-four balancing are v5's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena_gen.envs.energy.game_v1 import GridState
from arena_gen.envs.energy.game_v5 import EnergyGameV5

__all__ = ["EnergyGameV6", "regime_starts"]


def regime_starts(world: Mapping[str, Any]) -> list[int]:
    """The first day of every regime of a world, in order (0 first): v3's ``shifts`` and v1's
    single ``shift``, whichever the world records."""
    days = {int(s["day"]) for s in world.get("shifts") or []}
    if world.get("shift"):
        days.add(int(world["shift"]["day"]))
    return [0, *sorted(d for d in days if d > 0)]


class EnergyGameV6(EnergyGameV5):
    """Energy Dispatch, version 6: :class:`~.game_v5.EnergyGameV5` asking about the regime in
    force.

    Description:
        As v1: each day set thermal, wind and solar rated outputs and a battery command under
        hidden efficiencies; reach the horizon with average stability and thermal share on
        the right side of their targets. v6's Challenge worlds run 1,000 days and shift their
        patterns four to seven times.
    Action Space:
        As v1: a JSON object ``{"thermal": x, "wind": x, "solar": x, "battery": x}``.
    Observation:
        As v1.
    Starting State:
        As v1.
    Rewards:
        As v1: 1.0 on the final day if the task succeeds, else 0.0.
    Episode End:
        As v1.
    Information:
        As v1.
    Rubric:
        As v1: ``survived``, ``stable``, ``low_carbon``.
    Probes:
        v5's ``efficiency`` sets of four and ``dispatch_ok`` matched pairs, their days drawn
        only from the regime in force on the probe day (the next day to dispatch, the last
        once the episode is over): from the last shift on or before it to the day before the
        next shift (or the horizon's end). Without shifts that is the whole horizon, as v5.
    Arguments:
        ``task``: an energy task (a v3-v5 world plays the same).
    Version History:
        v6: (a preview) v5's game; questions about the regime in force only (issue 38: on
        Challenge v5 asked about regimes not yet begun). Challenge: 1,000 days, 4-7 shifts.
    """

    def __init__(self, task: Any) -> None:
        super().__init__(task)
        self._starts = [d for d in regime_starts(self.task.world) if d < self.rules.horizon]

    def question_days(self, state: GridState) -> range:
        """The days of the regime in force on the probe day."""
        day = self.probe_day(state)
        ends = [*self._starts[1:], self.rules.horizon]
        start, end = next((s, e) for s, e in zip(self._starts, ends, strict=True) if day < e)
        return range(start, end)
