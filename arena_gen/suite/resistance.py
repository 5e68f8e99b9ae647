"""Per-task resistance to model-free play: the random-policy bound and the model-free rungs.

A calibration that switches resistance on (``Calibration.random_epsilon`` or
``reject_model_free``) makes each accepted task prove, in its certificate's ``resistance``
facts, that model-free play does not solve it: the probability that the uniform random policy
(the random agent's own action distribution) solves it within its budget, and whether each
model-free rung solved it. The probability is exact where the env registers ``random_bound``
(e.g. lights: a dynamic program over states x turns), or the env's own upper bound when it
returns one as a mapping with its ``method`` (lights v5: the best of its parts'); every other
env gets the generic fallback, a one-sided Clopper-Pearson upper bound over
:data:`FALLBACK_EPISODES` seeded random episodes (run seed 0, attempt seeds 0..N-1, as
``arena-gen run --agent random`` plays them).
A suite built so keeps its margin over model-free play by construction, whatever its seed or
sealed secret, since no accepted task is solved by a model-free rung.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from scipy.stats import beta

from arena_gen.agents.random_agent import RandomAgent
from arena_gen.core import registry
from arena_gen.core.agent import TaskView
from arena_gen.core.calibration import RANDOM, Calibration
from arena_gen.core.episode import agent_seed
from arena_gen.core.game import MAX_TEXT, ActionError
from arena_gen.core.task import Task
from arena_gen.suite.ladder import climb, rung_names

#: A text not yet parsed in :func:`_random_play`'s kept readings.
_UNSEEN = object()
#: Random episodes the generic fallback bound plays per task, and its one-sided confidence.
FALLBACK_EPISODES = 100
CONFIDENCE = 0.99


def _sig(x: float) -> float:
    """Nine significant digits: the bound's bytes do not hang on the last float bit."""
    return float(f"{x:.9g}")


def clopper_pearson_upper(successes: int, n: int, confidence: float = CONFIDENCE) -> float:
    """The one-sided Clopper-Pearson upper bound on a success probability."""
    if successes >= n:
        return 1.0
    return float(beta.ppf(confidence, successes + 1, n - successes))


def random_episode(task: Task, attempt: int) -> tuple[bool, int]:
    """(success, steps) of the random agent's ``attempt`` on ``task``: the episode ``arena-gen
    run --agent random`` plays (run seed 0, the same game, budget, seed and actions), stepped
    on the game itself: the random agent never reads an observation, so none is rendered and
    no turn is recorded."""
    try:
        env = registry.make_env(task)
    except Exception:  # as the runner: a task whose game cannot be built never succeeds
        return False, 0
    return _random_play(task, env.game, int(env.budget), attempt, {}, early=False)


def _random_play(task: Task, game: Any, budget: int, attempt: int, parsed: dict[str, Any],
                 early: bool) -> tuple[bool, int]:
    """:func:`random_episode` on a game built once; with ``early`` it stops (unsolved) where
    ``game.hopeless`` says no continuation succeeds, so its steps are then fewer than the
    runner's but its success the same. ``parsed`` keeps each action text's reading (a parse
    reads only the text, and a step never changes the action it is given)."""
    agent = RandomAgent()
    try:
        rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(
            agent_seed(0, task, attempt))))
        agent.reset(TaskView.of(task, "inductive", privileged=False), "inductive", rng)
        state, turns = game.initial(), 0
        while turns == 0 or (turns < budget and not game.done(state)):
            if early and turns and game.hopeless(state):
                return False, turns
            text = agent.act("")
            if len(text) > MAX_TEXT:  # read by act's own rule (no random action comes near)
                state = game.act(state, text)[0]
            else:
                action = parsed.get(text, _UNSEEN)
                if action is _UNSEEN:
                    action = parsed[text] = _parse(game, text)
                state = (game.reject(state, action) if isinstance(action, ActionError)
                         else game.step(state, action))[0]
            turns += 1
        return bool(game.success(state)), turns
    except Exception:  # as the runner: an env or agent error never succeeds
        return False, 0


def _parse(game: Any, text: str) -> Any:
    """What ``game.act`` steps with for ``text``: the action, or the ActionError its reject
    rule receives."""
    try:
        return game.parse(text)
    except ActionError as exc:
        return exc


def random_successes(task: Task, episodes: int = FALLBACK_EPISODES) -> int:
    """How many of the random agent's first ``episodes`` attempts solve ``task`` (each as
    :func:`random_episode` decides it; the game is built once and hopeless episodes stop)."""
    try:
        env = registry.make_env(task)
    except Exception:  # as the runner: a task whose game cannot be built never succeeds
        return 0
    game, budget = env.game, int(env.budget)
    parsed: dict[str, Any] = {}
    return sum(_random_play(task, game, budget, a, parsed, early=True)[0]
               for a in range(episodes))


def random_bound(task: Task) -> dict[str, Any]:
    """The certificate's record of the random policy's chance to solve ``task`` within its
    budget: ``bound`` (exact where the env registers ``random_bound``, else an upper bound),
    ``exact`` and ``method`` (with the fallback's episodes, successes and confidence); an env
    bound that returns None for a task (repo v6 Lite) leaves it to the fallback."""
    spec = registry.for_task(task)
    found = spec.load("random_bound")(task) if spec.random_bound is not None else None
    if found is not None:
        if isinstance(found, Mapping):  # an upper bound with its own method (e.g. per part)
            return {**found, "bound": _sig(float(found["bound"])), "exact": False}
        return {"bound": _sig(float(found)), "exact": True, "method": "exact"}
    wins = random_successes(task)
    return {"bound": _sig(clopper_pearson_upper(wins, FALLBACK_EPISODES)), "exact": False,
            "method": "clopper-pearson", "episodes": FALLBACK_EPISODES, "successes": wins,
            "confidence": CONFIDENCE}


def record(ladder: dict[str, Any], bound: dict[str, Any]) -> dict[str, Any]:
    """The certificate's ``resistance`` facts: the random bound and each model-free rung's
    outcome (solved or not) on this task."""
    return {"random": bound,
            "model_free": {r: row["successes"] > 0 for r, row in sorted(ladder.items())
                           if row.get("kind") == "model_free"}}


def free_rungs(task: Task) -> set[str]:
    """The rungs that know no rules: random and the model-free ones (played first, so a task
    model-free play solves is rejected before the costly rungs run)."""
    return {RANDOM, *registry.for_task(task).model_free}


def climb_resistant(task: Task, cal: Calibration
                    ) -> tuple[dict[str, Any], dict[str, Any] | None, str | None]:
    """The ladder, the ``resistance`` record and the rejection reason (None: accepted) of
    ``task``: the model-free rungs and the random bound first, the rest only if they pass."""
    free = climb(task, cal, only=free_rungs(task))
    reason = cal.task_problem(free)
    if reason is not None:
        return free, None, reason
    bound = random_bound(task)
    reason = cal.resistance_problem(free, bound["bound"])
    if reason is not None:
        return free, None, reason
    names = rung_names(registry.for_task(task), cal)
    rest = climb(task, cal, only=set(names) - free_rungs(task))
    ladder = {r: free[r] if r in free else rest[r] for r in names}
    return ladder, record(ladder, bound), cal.task_problem(ladder, bound["bound"])
