"""Trading v4 verifier: v3's certificate, with the W-known planner played on v4's game.

The facts, the witness (the planner's actions) and the replay check are v3's; only the game the
planner is scored on changes, so ``planner_knowledge`` is its v4 score and ``solvable`` says its
run meets the v4 rubric.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

from arena_gen.core.errors import VerificationError
from arena_gen.core.game import TaskLike
from arena_gen.core.game_env import GameEnv
from arena_gen.core.task import Certificate
from arena_gen.envs.trading.game_v4 import BookV4, TradingGameV4, knowledge_of_v4
from arena_gen.envs.trading.policies import PlannerPolicy
from arena_gen.envs.trading.verify_v1 import verify as verify_v1
from arena_gen.envs.trading.verify_v3 import replay_check

VERIFIER_VERSION = 4
__all__ = ["VERIFIER_VERSION", "play_planner", "replay_check", "verify"]


def play_planner(task: TaskLike, game_class: type[TradingGameV4] = TradingGameV4,
                 score: Callable[[Any], tuple[float, float]] = knowledge_of_v4,
                 planner: type[PlannerPolicy] = PlannerPolicy,
                 ) -> tuple[list[str], float, float, float, bool]:
    """Actions, final value, knowledge, exposure and success (no rubric check of the v4 game,
    or of a later ``game_class`` with its own ``score`` and ``planner``, violated) of the
    W-known planner on ``task`` (it reads the rules text, not the world)."""
    game = game_class(task)
    env = GameEnv(game)
    obs, _ = env.reset()
    rules = getattr(task, "rules_text", None)
    if not isinstance(rules, str):
        raise VerificationError("a trading v4 task needs its rules text (the planner reads W)")
    policy = planner(task.public, rules)
    actions: list[str] = []
    while not game.done(env.state):
        actions.append(policy.act(obs))
        obs, *_ = env.step(actions[-1])
    state = env.state
    assert isinstance(state, BookV4)
    knowledge, exposure = score(state)
    ok = all(c.met is not False for c in game.checks(game.facts(state)))
    return actions, float(game.value(state)), knowledge, exposure, ok


def verify(task: TaskLike, game_class: type[TradingGameV4] = TradingGameV4,
           score: Callable[[Any], tuple[float, float]] = knowledge_of_v4,
           planner: type[PlannerPolicy] = PlannerPolicy,
           base: Callable[[TaskLike], Certificate] = verify_v1) -> Certificate:
    """Certify a trading v4 Draft (or Task): v1's facts, then the planner's value, growth,
    knowledge and exposure under the v4 rubric (a later version passes its game, score,
    planner and, when its price rule differs, its v1 facts as ``base``)."""
    start = time.perf_counter()
    cert = base(task)
    cash = float(task.world["initial_cash"])
    actions, value, knowledge, exposure, success = play_planner(task, game_class, score, planner)
    cert.facts["planner_final_value"] = round(value, 2)
    cert.facts["planner_profit"] = round(value / cash - 1.0, 6)
    cert.facts["planner_growth"] = round(math.log(value / cash), 6) if value > 0 else None
    cert.facts["planner_knowledge"] = round(knowledge, 6)
    cert.facts["planner_exposure"] = round(exposure, 6)
    # beats_hold reads the certificate's baselines, so settle it here as the game does
    success = success and value / cash - 1.0 > float(cert.facts["hold_profit"])
    cert.witness = actions
    cert.solvable = success
    cert.verifier_version = VERIFIER_VERSION
    cert.seconds = time.perf_counter() - start
    return cert
