"""Trading v2 verifier: v1's certificate plus the result of the W-known with-rules planner.

The planner (:class:`~.trading_policies.PlannerPolicy`) is played through the env exactly as
the ladder's planner agent plays it, reading only the public view, the rules text and the
observations, so ``planner_growth`` is the log growth a trader who was told W reaches without
foresight of the noise: the v2 rubric's target is a share of it.
"""

from __future__ import annotations

import math
import time

from arena_gen.core.errors import VerificationError
from arena_gen.core.game import TaskLike
from arena_gen.core.game_env import GameEnv
from arena_gen.core.task import Certificate
from arena_gen.envs.trading.game_v2 import TradingGameV2
from arena_gen.envs.trading.policies import PlannerPolicy
from arena_gen.envs.trading.verify_v1 import replay_check
from arena_gen.envs.trading.verify_v1 import verify as verify_v1

VERIFIER_VERSION = 2
__all__ = ["VERIFIER_VERSION", "play_planner", "replay_check", "verify"]


def play_planner(task: TaskLike) -> float:
    """Final value of the W-known planner on ``task`` (it reads the rules text, not the world)."""
    game = TradingGameV2(task)
    env = GameEnv(game)
    obs, _ = env.reset()
    rules = getattr(task, "rules_text", None)
    if not isinstance(rules, str):
        raise VerificationError("a trading v2 task needs its rules text (the planner reads W)")
    policy = PlannerPolicy(task.public, rules)
    while not game.done(env.state):
        obs, *_ = env.step(policy.act(obs))
    return float(game.value(env.state))


def verify(task: TaskLike) -> Certificate:
    """Certify a trading v2 Draft (or Task): v1's facts, then the planner's value and growth."""
    start = time.perf_counter()
    cert = verify_v1(task)
    cash = float(task.world["initial_cash"])
    value = play_planner(task)
    cert.facts["planner_final_value"] = round(value, 2)
    cert.facts["planner_profit"] = round(value / cash - 1.0, 6)
    cert.facts["planner_growth"] = round(math.log(value / cash), 6) if value > 0 else None
    cert.verifier_version = VERIFIER_VERSION
    cert.seconds = time.perf_counter() - start
    return cert
