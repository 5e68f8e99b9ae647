"""The hypothesis class of a tiny trading task, as :mod:`arena_gen.core.induction_games` solves it.

A trading world's hidden parts are continuous (the factor matrix W, the noise scale and the
daily noise), so the class is *sampled*: one base draw of the released sampler (v4) under a tiny
preset fixes what the agent is shown or will be shown (the public view, the initial prices and
the factor changes the news announces), and each of ``draws`` further draws lends its hidden
parts (matrix, noise scale, noise: their own component streams, so each combination is a draw
of the sampler's law given the base's shown parts). Combinations the verifier and acceptance
keep form the class, each of equal weight. Observations are the game's own renders (prices to
the cent), so after the first day the worlds of a small class are told apart: the induction
happens on day 0's trade, made knowing the generator and the news but not W.

Actions are continuous (share counts), so the class's actions are a finite grid, the same texts
every day: hold (``{}``), and per stock a buy and a sell of the shares half the initial cash buys
at its initial price. The game caps a sell at the holding and refuses a buy the cash does not
cover, as for any agent.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from arena_gen.core import registry
from arena_gen.core.induction_games import Certified, GameClass, played_class, recombined_class
from arena_gen.envs.trading.sampler_v1 import make_draft
from arena_gen.envs.trading.sampler_v2 import NEWS_RULE

#: The released version whose sampler, verifier and game the class uses.
VERSION = 4
#: The smallest worlds: 2 stocks, 1 factor, 3 days (a lite preset otherwise).
SMALL: dict[str, Any] = {"stocks": (2, 2), "factors": (1, 1), "horizon": 3, "max_attempts": 1}
#: The world keys drawn from hidden streams (matrix, noise; the noise scale from its child).
HIDDEN = ("matrix", "noise_scale", "noise")
_OWN = ("stocks", "factors", "horizon", "noise_scale", "cost_rate", "initial_cash",
        "min_oracle_profit")


def _rebuild(base: Any, world: dict[str, Any]) -> Any:
    """The draft of ``world`` assembled as the v4 sampler assembles one (rules text, rubric)."""
    extra = {k: v for k, v in base.params.items() if k not in _OWN}
    return make_draft(matrix=world["matrix"], initial_prices=world["initial_prices"],
                      changes=world["changes"], noise=world["noise"],
                      noise_scale=float(world["noise_scale"]),
                      cost_rate=float(world["cost_rate"]),
                      initial_cash=float(world["initial_cash"]),
                      min_oracle_profit=float(base.params["min_oracle_profit"]),
                      extra_params=extra, game=registry.get("trading", VERSION).load("game"),
                      rules_note=NEWS_RULE)


@dataclass(frozen=True)
class TradingClass:
    """The sampled class of one base draw: its worlds (verified and accepted)."""

    public: dict[str, Any]
    worlds: tuple[Certified, ...]
    draws: int

    def actions(self) -> list[str]:
        """The action grid (see the module docstring), from the base's day-0 prices."""
        world = self.worlds[0].world
        out = ["{}"]
        for name, price in zip(world["stocks"], world["initial_prices"], strict=True):
            shares = math.floor(0.5 * float(world["initial_cash"]) / float(price))
            out.append(json.dumps({"buy": {name: shares}}))
            out.append(json.dumps({"sell": {name: shares}}))
        return out

    def game_class(self) -> GameClass:
        """The class as the game solver takes it (``played_class``: each world by its game)."""
        return played_class("trading", VERSION, self.worlds, self.actions())


def trading_class(draws: int, seed: int) -> TradingClass:
    """The class of the base draw ``SeedSequence([seed, 0])`` with the hidden parts of
    ``draws`` draws below ``SeedSequence([seed, 1])``."""
    base, kept = recombined_class("trading", VERSION, SMALL, HIDDEN, _rebuild, draws, seed)
    return TradingClass(public=base.public, worlds=tuple(kept), draws=draws)
