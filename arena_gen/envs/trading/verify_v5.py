"""Trading v5 verifier: v4's certificate, with the W-known planner naming its best place each
day, played on v5's game.

The facts and the replay check are v4's; the witness is the planner's actions with ``"expect"``
added (v5 grades the named place; unnamed, its fee-aware holds on Challenge were graded on the
stock it kept: knowledge 0.69 on seed 32's first candidate), so ``planner_knowledge`` is its v5
score and ``solvable`` says its run meets the v5 rubric.
"""

from __future__ import annotations

from arena_gen.core.game import TaskLike
from arena_gen.core.task import Certificate
from arena_gen.envs.trading.game_v5 import TradingGameV5, knowledge_of_v5
from arena_gen.envs.trading.policies_v5 import NamingPlanner
from arena_gen.envs.trading.verify_v3 import replay_check
from arena_gen.envs.trading.verify_v4 import verify as verify_v4

VERIFIER_VERSION = 5
__all__ = ["VERIFIER_VERSION", "replay_check", "verify"]


def verify(task: TaskLike) -> Certificate:
    """Certify a trading v5 Draft (or Task): v4's certificate with the planner on v5's game."""
    cert = verify_v4(task, TradingGameV5, knowledge_of_v5, NamingPlanner)
    cert.verifier_version = VERIFIER_VERSION
    return cert
