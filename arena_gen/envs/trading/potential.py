"""The shaping potential of a trading world: minus the regret in money against the
certificate's witness on the same day (v3 and later: the with-rules planner; the v1 tasks of
odyssey-lite: the perfect-foresight oracle, so their regret is against hindsight).

``V(s)`` is the book's total value marked at its day's prices (the env's own ``value``, the
measure whose daily change is the env's reward), and ``V*(t)`` the value of the W-known
planner's book at day ``t``: the planner's actions are the v3/v4 certificate's witness (what
the verifier replays). So ``Phi(s) = V(s) - V*(day(s))``, 0 along the witness, at the start
and at the horizon (the episode's end: see :mod:`arena_gen.core.witness_regret`); each day
before the last the shaping adds the book's gain minus the planner's gain that day. Every
action, an invalid one too, spends a day, so a state's day is its turn. A task without a
certificate (a draft) plays the planner to get the witness.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from arena_gen.core.game import Game
from arena_gen.core.witness_regret import certificate_witness, regret_potential
from arena_gen.envs.trading import verify_v3, verify_v4
from arena_gen.envs.trading.game_v1 import Book, TradingGame
from arena_gen.envs.trading.game_v3 import TradingGameV3
from arena_gen.envs.trading.game_v4 import TradingGameV4
from arena_gen.envs.trading.game_v5 import knowledge_of_v5
from arena_gen.envs.trading.game_v6 import TradingGameV6
from arena_gen.envs.trading.policies_v6 import RegimePlanner


def planner_witness(game: TradingGame) -> list[str]:
    """The certificate's witness (v3 and later: the W-known planner's actions; v1 and v2: the
    perfect-foresight oracle's), or for a task without one the planner played as the verifier
    of the game's version plays it (v3 and later; a v1/v2 draft has no witness to compare)."""
    found = certificate_witness(game.task)
    if found is not None:
        return found
    if not isinstance(game, TradingGameV3):
        raise ValueError("a v1/v2 trading task without a certificate "
                         "witness has no regret potential")
    if isinstance(game, TradingGameV6):  # the planner told every regime (v6's witness)
        return verify_v4.play_planner(game.task, TradingGameV6, knowledge_of_v5,
                                      RegimePlanner)[0]
    play = verify_v4.play_planner if isinstance(game, TradingGameV4) else verify_v3.play_planner
    return play(game.task)[0]


def potential(game: Game[Any, Any, Any]) -> Callable[[Book], float]:
    """The env's ``potential`` part: Phi of a trading game's book."""
    if not isinstance(game, TradingGame):
        raise TypeError(f"the trading potential reads a trading book, not "
                        f"{type(game).__name__}'s")
    return regret_potential(game, measure="trading-value", value=game.value,
                            day=lambda book: book.day, horizon=game.horizon,
                            witness=lambda: planner_witness(game))
