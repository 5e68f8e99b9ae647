"""Energy Dispatch v6 sampler (a preview): v5's Lite worlds and a paper-scale Challenge.

Lite is v3's Lite (the same knobs and child seeds, so a v6 Lite task is the v5 task of the
same seed path but for its version). Challenge runs 1,000 days (1,100 turns: the paper's
1,000+ steps) and its patterns shift 4-7 times, every regime at least 120 days long: the
number of shifts is drawn from the attempt's own child stream :data:`COUNT_CHILD` (beside the
seven components v3 draws, which are unchanged), then the world is v3's draw with that many
shifts. Each regime draws a new period (35-60 days) and base pattern, so a learner must
notice each change and learn again five to eight times. The with-rules disclosure is v3's
(every shift's day, periods and base pattern).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena_gen.core.calibration import Calibration
from arena_gen.core.presets import PresetError, knob
from arena_gen.core.seeds import child, rng
from arena_gen.core.task import Draft
from arena_gen.envs.energy.sampler_v3 import PRESETS as PRESETS_V3
from arena_gen.envs.energy.sampler_v3 import EnergyPresetV3, accept
from arena_gen.envs.energy.sampler_v3 import sample as sample_v3
from arena_gen.envs.energy.sampler_v4 import CALIBRATION as CALIBRATION_V4

__all__ = ["CALIBRATION", "COUNT_CHILD", "PRESETS", "EnergyPresetV6", "accept", "from_v3",
           "sample"]

#: The spawn key (below an attempt's seed) the number of shifts is drawn from: v3's seven
#: world components use 0-6.
COUNT_CHILD = 7


@dataclass(frozen=True)
class EnergyPresetV6(EnergyPresetV3):
    """v3's knobs plus ``shift_counts``: the [lo, hi] number of shifts drawn per world (v3's
    ``shifts`` when lo is hi)."""

    shift_counts: tuple[int, int] = knob(0, 10, kind=tuple)

    def validate(self) -> None:
        super().validate()
        hi = self.shift_counts[1]  # the knob refuses lo > hi
        if self.shift and (hi + 1) * self.min_regime > self.horizon:
            raise PresetError(f"EnergyPresetV6: {hi + 1} regimes of at least "
                              f"{self.min_regime} days exceed the horizon {self.horizon}")


def from_v3(preset: EnergyPresetV3) -> EnergyPresetV6:
    """A v3 preset as a v6 one drawing exactly its number of shifts."""
    count = int(preset.shifts)
    return EnergyPresetV6(**{**preset.to_dict(), "shift_counts": (count, count)})


#: Lite: v3's (v5's worlds). Challenge: 1,000 days, 4-7 shifts, regimes of at least 120 days,
#: v3 Challenge's periods (35-60) and swing (1.6).
PRESETS: dict[str, EnergyPresetV6] = {
    "lite": from_v3(PRESETS_V3["lite"]),
    "challenge": from_v3(PRESETS_V3["challenge"]).replace(
        horizon=1000, shifts=4, shift_counts=(4, 7), min_regime=120),
}


def sample(config: EnergyPresetV6 | Mapping[str, Any], seq: np.random.SeedSequence) -> Draft:
    """Draw one candidate world: the number of shifts from :data:`COUNT_CHILD` (none drawn
    when the range is one number), then v3's draw with that many."""
    preset = EnergyPresetV6.of(config)
    lo, hi = (int(x) for x in preset.shift_counts)
    count = lo if lo == hi else int(rng(child(seq, COUNT_CHILD)).integers(lo, hi + 1))
    v3 = {k: v for k, v in preset.to_dict().items() if k != "shift_counts"}
    draft = sample_v3({**v3, "shifts": count}, seq)
    if lo != hi:
        draft.params["shift_counts"] = [lo, hi]
    return draft


#: v4's ladder targets and per-task resistance (a task persistence solves, or whose random
#: bound exceeds 5 %, is rejected; the planner must solve every task).
CALIBRATION: dict[str, Calibration] = dict(CALIBRATION_V4)
