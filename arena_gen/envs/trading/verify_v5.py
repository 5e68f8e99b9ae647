"""Trading v5 verifier: v4's certificate, with the W-known planner played on v5's game.

The facts, the witness (the planner's actions) and the replay check are v4's; only the game the
planner is scored on changes, so ``planner_knowledge`` is its v5 score and ``solvable`` says its
run meets the v5 rubric.
"""

from __future__ import annotations

from arena_gen.core.game import TaskLike
from arena_gen.core.task import Certificate
from arena_gen.envs.trading.game_v5 import TradingGameV5, knowledge_of_v5
from arena_gen.envs.trading.verify_v3 import replay_check
from arena_gen.envs.trading.verify_v4 import verify as verify_v4

VERIFIER_VERSION = 5
__all__ = ["VERIFIER_VERSION", "replay_check", "verify"]


def verify(task: TaskLike) -> Certificate:
    """Certify a trading v5 Draft (or Task): v4's certificate with the planner on v5's game."""
    cert = verify_v4(task, TradingGameV5, knowledge_of_v5)
    cert.verifier_version = VERIFIER_VERSION
    return cert
