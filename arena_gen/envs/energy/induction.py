"""The hypothesis class of a tiny energy task, as :mod:`arena_gen.core.induction_games` solves it.

An energy world's hidden parts are continuous efficiency series (wind and solar patterns, the
thermal noise), so the class is *sampled*: one base draw of the released sampler (v3, no shift)
under a tiny preset fixes what the agent is shown or will be shown (the public view, the demand
and budget series, the targets), and each of ``draws`` further draws lends its efficiencies
(their own component streams, so each combination is a draw of the sampler's law given the
base's shown parts). Combinations the verifier and acceptance keep form the class, each of equal
weight. Observations are the game's own renders (actual outputs, supply, stability).

Dispatch is continuous, so the class's actions are a finite grid, the same texts every day, in
units of the base's mean demand d: thermal 0.66 d (a share the carbon target allows), wind
0.26 d to 0.46 d in steps of 0.04 d (the margin over demand the efficiencies may need), solar
and battery idle (solar costs more per unit than wind): six dispatches.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from arena_gen.core import registry
from arena_gen.core.induction_games import Certified, GameClass, played_class, recombined_class
from arena_gen.envs.energy.game_v1 import format_action
from arena_gen.envs.energy.sampler_v2 import rules_text_v2

#: The released version whose sampler, verifier and game the class uses.
VERSION = 3
#: The smallest worlds: 3 days (the sampler's least), periods of 2-3 days, no shift.
SMALL: dict[str, Any] = {"horizon": 3, "t_min": 2, "t_max": 3, "shift": False, "shifts": 0,
                         "max_attempts": 1}
#: The world keys drawn from hidden streams (the wind, solar and thermal efficiencies).
HIDDEN = ("eff_wind", "eff_solar", "eff_thermal", "wind_period", "solar_period", "wind_base",
          "solar_base")
#: The grid, in units of the mean demand: thermal, and wind's six levels.
THERMAL_SHARE, WIND_LEVELS = 0.66, (0.26, 0.30, 0.34, 0.38, 0.42, 0.46)


def _rebuild(base: Any, world: dict[str, Any]) -> Any:
    """The base draft with ``world`` (its rules text and rubric redone for it)."""
    game = registry.get("energy", VERSION).load("game")
    return dataclasses.replace(base, world=world, rules_text=rules_text_v2(world),
                               rubric=game.rubric(base.params, world))


@dataclass(frozen=True)
class EnergyClass:
    """The sampled class of one base draw: its worlds (verified and accepted)."""

    public: dict[str, Any]
    worlds: tuple[Certified, ...]
    draws: int

    def actions(self) -> list[str]:
        """The dispatch grid (see the module docstring)."""
        demand = self.worlds[0].world["demand"]
        mean = sum(demand) / len(demand)
        return [format_action({"thermal": THERMAL_SHARE * mean, "wind": w * mean, "solar": 0.0,
                               "battery": 0.0}) for w in WIND_LEVELS]

    def game_class(self) -> GameClass:
        """The class as the game solver takes it (``played_class``: each world by its game)."""
        return played_class("energy", VERSION, self.worlds, self.actions())


def energy_class(draws: int, seed: int) -> EnergyClass:
    """The class of the base draw ``SeedSequence([seed, 0])`` with the efficiencies of
    ``draws`` draws below ``SeedSequence([seed, 1])``."""
    base, kept = recombined_class("energy", VERSION, SMALL, HIDDEN, _rebuild, draws, seed)
    return EnergyClass(public=base.public, worlds=tuple(kept), draws=draws)
