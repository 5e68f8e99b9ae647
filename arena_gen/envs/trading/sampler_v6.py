"""AI Trading v6 sampler (a preview): v5's worlds, and a paper-scale Challenge whose factor map
changes at hidden days.

Lite is v5's Lite (the same child seeds and knobs, one regime): a v6 Lite task is the v5 task
of the same seed path, but for its version. Challenge runs 1,000 days (the paper's 1,000+
steps) and draws, from its own child seed beside v3's six, a number of regimes in
``regimes`` (each at least ``min_regime_days`` long, the change days uniform over what is
left) and a fresh factor matrix for every regime after the first: a learner must notice the
change and learn again. The other choices and their evidence are in docs/envs/trading.md
(v6).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena_gen.core.calibration import Calibration
from arena_gen.core.presets import PresetError, knob
from arena_gen.core.seeds import child, rng
from arena_gen.core.task import Draft
from arena_gen.envs.trading.game_v6 import REGIMES, TradingGameV6
from arena_gen.envs.trading.policies_v6 import regime_text
from arena_gen.envs.trading.sampler_v1 import _rounded, _sample
from arena_gen.envs.trading.sampler_v1 import public_again as public_again_v1
from arena_gen.envs.trading.sampler_v2 import NEWS_RULE
from arena_gen.envs.trading.sampler_v3 import TradingPresetV3, noise_scale_of
from arena_gen.envs.trading.sampler_v5 import CALIBRATION as CALIBRATION_V5
from arena_gen.envs.trading.sampler_v5 import PRESETS as PRESETS_V5
from arena_gen.envs.trading.sampler_v5 import accept as accept_v5

__all__ = ["CALIBRATION", "MAP_CHANGES", "PRESETS", "REGIME_CHILD", "TradingPresetV6",
           "accept", "one_regime", "public_again", "sample"]

#: The spawn key (below an attempt's seed) the regimes are drawn from: v1's five world
#: components use 0-4, v3's noise scale 5.
REGIME_CHILD = 6
#: The public key saying the map changes (present only on worlds with regimes).
MAP_CHANGES = "map_changes"
#: The intro's sentence on a world with regimes.
CHANGE_NOTE = ("The hidden map from factors to prices changes a few times, on days that are "
               "not announced.")


@dataclass(frozen=True)
class TradingPresetV6(TradingPresetV3):
    """v5's knobs plus the number of regimes (``[lo, hi]``) and their shortest length."""

    regimes: tuple[int, int] = knob(1, 64, kind=tuple)
    min_regime_days: int = knob(1, 100_000, kind=int)

    def validate(self) -> None:
        lo, hi = self.regimes
        if lo > hi:
            raise PresetError(f"regimes {list(self.regimes)}: lo above hi")
        if hi * self.min_regime_days > self.horizon:
            raise PresetError(f"{hi} regimes of {self.min_regime_days} days do not fit in "
                              f"{self.horizon} days")


def one_regime(preset: TradingPresetV3) -> TradingPresetV6:
    """A v5 preset as a v6 one with a single regime (its worlds are v5's)."""
    return TradingPresetV6(**{**preset.to_dict(), "regimes": (1, 1),
                              "min_regime_days": int(preset["horizon"])})


#: Lite: v5's. Challenge: 1,000 days, 2-4 regimes of at least 150 days, more stocks and
#: factors than Lite (v5 Challenge's 10-16 x 6-10), the bars and noise in the docs' table.
PRESETS: dict[str, TradingPresetV6] = {
    "lite": one_regime(PRESETS_V5["lite"]),
    "challenge": one_regime(PRESETS_V5["challenge"]).replace(
        horizon=1000, regimes=(2, 4), min_regime_days=150, noise_lo=0.15, noise_hi=0.5,
        min_planner_profit=1.0, knowledge_regret=0.25),
}

#: v5's ladder targets and per-task resistance.
CALIBRATION: dict[str, Calibration] = dict(CALIBRATION_V5)


def draw_regimes(config: Mapping[str, Any], seq: np.random.SeedSequence, n_stocks: int,
                 n_factors: int) -> list[dict[str, Any]]:
    """The regime changes of one candidate: their days and matrices (3 decimals, as v1's)."""
    lo, hi = (int(x) for x in config["regimes"])
    if hi <= 1:
        return []
    horizon, shortest = int(config["horizon"]), int(config["min_regime_days"])
    draw = rng(child(seq, REGIME_CHILD))
    count = int(draw.integers(lo, hi + 1))
    slack = horizon - count * shortest
    cuts = np.sort(draw.integers(0, slack + 1, size=count - 1))
    w_max = float(config["w_max"])
    return [{"day": (k + 1) * shortest + int(cut),
             "matrix": _rounded(draw.uniform(-w_max, w_max, size=(n_stocks, n_factors)), 3)}
            for k, cut in enumerate(cuts)]


def sample(config: Mapping[str, Any], seq: np.random.SeedSequence) -> Draft:
    """Draw one candidate world from a v6 preset (or its dict): v5's draw, then the regimes."""
    config = TradingPresetV6.of(config)
    noise = noise_scale_of(config, seq)
    base = {k: v for k, v in config.items() if k not in ("regimes", "min_regime_days")}
    params: dict[str, Any] = {
        "w_max": float(config["w_max"]), "noise_lo": float(config["noise_lo"]),
        "noise_hi": float(config["noise_hi"]),
        "knowledge_regret": float(config["knowledge_regret"]),
        "min_exposure": float(config["min_exposure"]),
        "min_planner_profit": float(config["min_planner_profit"])}
    draft = _sample({**base, "noise_scale": noise}, seq, float(config["w_max"]),
                    extra_params=params, game=TradingGameV6, rules_note=NEWS_RULE)
    world = draft.world
    changes = draw_regimes(config, seq, len(world["stocks"]), len(world["factors"]))
    if not changes:
        return draft
    world = {**world, REGIMES: changes}
    params = {**draft.params, "regimes": list(config["regimes"]),
              "min_regime_days": int(config["min_regime_days"])}
    blocks = [regime_text(world["stocks"], world["factors"], c["day"], c["matrix"])
              for c in changes]
    return dataclasses.replace(
        draft, world=world, params=params, public=with_change_note(draft.public),
        rules_text="\n".join([draft.rules_text, *blocks]),
        rubric=TradingGameV6.rubric(params, world))


def with_change_note(public: Mapping[str, Any]) -> dict[str, Any]:
    """The public view of a world with regimes: the intro says the map changes (not when)."""
    return {**public, "intro": f"{public['intro']} {CHANGE_NOTE}", MAP_CHANGES: True}


def public_again(public: Mapping[str, Any], budget: int,
                 config: Mapping[str, Any] | None) -> tuple[dict[str, Any], int]:
    """v1's public view and budget, with the change note when the public facts say so."""
    view, horizon = public_again_v1(public, budget, config)
    return (with_change_note(view) if public.get(MAP_CHANGES) is True else view), horizon


#: v5's acceptance (the reasons name the W-known planner's witness, played on the v6 game).
accept = accept_v5
