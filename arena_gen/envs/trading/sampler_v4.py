"""AI Trading v4 sampler: v3's worlds and presets, plus the switch margin of the rubric.

The worlds are v3's (the same child seeds, noise ranges, horizons and acceptance), so a v4 task
and the v3 task of the same seed path differ only in the rubric: ``switch_margin`` sets the
tolerance for money kept in place (:mod:`.game_v4`). Its choice, 0.005 on both suites (tuned
on seeds 11-13, held out on 21-25; figures in docs/envs/trading.md): a trader told W that
switches only for a forecast gain above half a percent of the book passes; one at 1 % does not
on Challenge, where it keeps a stock through shortfalls worth five round-trip fees.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena_gen.core.calibration import Calibration
from arena_gen.core.presets import knob
from arena_gen.core.task import Draft
from arena_gen.envs.trading.game_v4 import TradingGameV4
from arena_gen.envs.trading.sampler_v1 import _sample
from arena_gen.envs.trading.sampler_v2 import NEWS_RULE
from arena_gen.envs.trading.sampler_v3 import CALIBRATION as CALIBRATION_V3
from arena_gen.envs.trading.sampler_v3 import PRESETS as PRESETS_V3
from arena_gen.envs.trading.sampler_v3 import TradingPresetV3, noise_scale_of
from arena_gen.envs.trading.sampler_v3 import accept as accept_v3

__all__ = ["CALIBRATION", "PRESETS", "TradingPresetV4", "accept", "sample"]


@dataclass(frozen=True)
class TradingPresetV4(TradingPresetV3):
    """v3's knobs plus the switch margin kept money is forgiven (beyond the round-trip fee)."""

    switch_margin: float = knob(0.0, 1.0)


#: v3's presets with a switch margin of half a percent of a position's value.
PRESETS: dict[str, TradingPresetV4] = {
    name: TradingPresetV4(**{**preset.to_dict(), "switch_margin": 0.005})
    for name, preset in PRESETS_V3.items()
}

#: v3's ladder targets (the rule's thresholds keep the learners' rates in them).
CALIBRATION: dict[str, Calibration] = dict(CALIBRATION_V3)


def sample(config: Mapping[str, Any], seq: np.random.SeedSequence) -> Draft:
    """Draw one candidate world from a v4 preset (or its dict): v3's draw, v4's rubric."""
    config = TradingPresetV4.of(config)
    noise = noise_scale_of(config, seq)
    return _sample({**config, "noise_scale": noise}, seq, float(config["w_max"]),
                   extra_params={"w_max": float(config["w_max"]),
                                 "noise_lo": float(config["noise_lo"]),
                                 "noise_hi": float(config["noise_hi"]),
                                 "knowledge_regret": float(config["knowledge_regret"]),
                                 "min_exposure": float(config["min_exposure"]),
                                 "min_planner_profit": float(config["min_planner_profit"]),
                                 "switch_margin": float(config["switch_margin"])},
                   game=TradingGameV4, rules_note=NEWS_RULE)


#: v3's acceptance (its reasons name the W-known planner's witness, played on the v4 game).
accept = accept_v3
