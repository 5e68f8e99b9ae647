"""Trading v6 verifier: v5's certificate on v6's game, with the planner told every regime.

v1's facts come from v6's price path (each regime's map in turn) and v6's game (the oracle and
the ridge baseline play it); the witness is :class:`~.policies_v6.RegimePlanner`'s run, which
names each day the place the map in force says is best, replayed as every version's.
"""

from __future__ import annotations

from functools import partial

from arena_gen.core.game import TaskLike
from arena_gen.core.task import Certificate
from arena_gen.envs.trading.game_v5 import knowledge_of_v5
from arena_gen.envs.trading.game_v6 import TradingGameV6, price_path_v6, regime_starts
from arena_gen.envs.trading.policies_v6 import RegimePlanner
from arena_gen.envs.trading.verify_v1 import verify as verify_v1
from arena_gen.envs.trading.verify_v3 import replay_check
from arena_gen.envs.trading.verify_v4 import verify as verify_v4

VERIFIER_VERSION = 6
__all__ = ["VERIFIER_VERSION", "replay_check", "verify"]


def verify(task: TaskLike) -> Certificate:
    """Certify a trading v6 Draft (or Task): v5's certificate on the v6 game and path, plus
    the regimes' first days (``regime_days``) when the map changes."""
    base = partial(verify_v1, game_class=TradingGameV6, path_of=price_path_v6)
    cert = verify_v4(task, TradingGameV6, knowledge_of_v5, RegimePlanner, base=base)
    starts = regime_starts(task.world)
    if len(starts) > 1:
        cert.facts["regime_days"] = starts
    cert.verifier_version = VERIFIER_VERSION
    return cert
