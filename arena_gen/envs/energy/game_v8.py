"""Energy Dispatch v8 (a preview): v7's sites, questions about a fixed window of days.

v6 and v7 draw a question's days from the regime in force on the probe day, so the earliest
and latest days asked bound that hidden regime (docs/envs/energy.md, "Known weakness"). v8
draws them from a window fixed around the probe day whatever the regimes:
:data:`BEFORE` days before it, the probe day and :data:`AFTER` - 1 days after, slid to stay
inside the horizon. The answers are still read from the hidden world. The rules, action,
observation, rubric and v7's matched pairs and sets of four are v7's.
"""

from __future__ import annotations

from arena_gen.envs.energy.game_v1 import GridState
from arena_gen.envs.energy.game_v7 import EnergyGameV7

__all__ = ["AFTER", "BEFORE", "EnergyGameV8", "window"]

#: Days asked before the probe day: days just played, which a learner has seen each site
#: deliver (read off yesterday's report) and whose pattern it should hold.
BEFORE = 20
#: The probe day and the days after it asked (10 in all): shorter than any regime, so at most
#: one hidden shift per site falls inside, and few answers lie past a shift not yet seen.
AFTER = 10


def window(probe_day: int, horizon: int) -> range:
    """The days asked at ``probe_day``: ``BEFORE`` before it to ``AFTER`` - 1 after, slid to
    stay within ``[0, horizon)`` (a public function of the probe day and the horizon only)."""
    width = min(BEFORE + AFTER, horizon)
    start = min(max(0, probe_day - BEFORE), horizon - width)
    return range(start, start + width)


class EnergyGameV8(EnergyGameV7):
    """Energy Dispatch, version 8: :class:`~.game_v7.EnergyGameV7` asking about a fixed window.

    Description:
        As v7: each day set thermal, every wind and solar site and a battery command under
        hidden efficiencies; each site has its own periodic pattern and its own shifts.
    Action Space:
        As v7: a JSON object naming ``thermal``, every site and ``battery``.
    Observation:
        As v7.
    Starting State:
        As v1.
    Rewards:
        As v1: 1.0 on the final day if the task succeeds, else 0.0.
    Episode End:
        As v1.
    Information:
        As v7.
    Rubric:
        As v1: ``survived``, ``stable``, ``low_carbon``.
    Probes:
        v7's ``efficiency`` sets of four (one site) and ``dispatch_ok`` matched pairs, their
        days drawn from a window fixed around the probe day (20 days before it, the probe day
        and 9 after, slid inside the horizon), whatever the hidden regimes.
    Arguments:
        ``task``: an energy v7 or v8 task (a world with ``sites``).
    Version History:
        v8: (a preview, issue 42) v7's game; question days from a fixed window around the
        probe day (v7's regime in force bounded the hidden regime); a harder Challenge.
    """

    def site_days(self, state: GridState, site: str) -> range:
        """The days asked about ``site``: the fixed window (the same for every site)."""
        return window(self.probe_day(state), self.rules.horizon)

    def question_days(self, state: GridState) -> range:
        """The days a dispatch question may name: the fixed window."""
        return window(self.probe_day(state), self.rules.horizon)
