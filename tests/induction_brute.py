"""A brute force of the induction references over a class of games (tests only): recursion over
what the learner has seen, every world replayed through its own game, no bitsets, no graph."""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from arena_gen.core.game import ActionError, Game


def brute(games: Sequence[Game[Any, Any, Any]], weights: Sequence[float], actions: Sequence[str],
          horizon: int,
          key: Callable[[Any], Hashable] = lambda s: s) -> tuple[float, float, float]:
    """(worst-case steps, expected steps, success probability) of the best learners within
    ``horizon`` steps; the learner sees each step's feedback, rendered state, end and success."""
    prior = [w / sum(weights) for w in weights]
    memo: dict[tuple[tuple[tuple[int, Hashable], ...], int], tuple[float, float, float]] = {}

    def turn(g: int, state: Any, text: str) -> tuple[Any, Hashable]:
        game = games[g]
        try:
            action = game.parse(text)
        except ActionError as exc:
            after, event = game.reject(state, exc)
        else:
            after, event = game.step(state, action)
        return after, (event.feedback, game.render(after), game.done(after),
                       game.success(after))

    def value(belief: list[tuple[int, Any]], left: int) -> tuple[float, float, float]:
        memo_key = (tuple((g, key(s)) for g, s in belief), left)
        got = memo.get(memo_key)
        if got is not None:
            return got
        g0, s0 = belief[0]
        if games[g0].success(s0):
            got = (0.0, 0.0, 1.0)
        elif games[g0].done(s0) or left == 0:
            got = (math.inf, math.inf, 0.0)
        else:
            mass = sum(prior[g] for g, _ in belief)
            best = (math.inf, math.inf, 0.0)
            for text in actions:
                groups: dict[Hashable, list[tuple[int, Any]]] = {}
                for g, s in belief:
                    after, seen = turn(g, s, text)
                    groups.setdefault(seen, []).append((g, after))
                subs = [(value(part, left - 1), sum(prior[g] for g, _ in part) / mass)
                        for part in groups.values()]
                best = (min(best[0], 1 + max(v[0] for v, _ in subs)),
                        min(best[1], 1 + sum(p * v[1] for v, p in subs)),
                        max(best[2], sum(p * v[2] for v, p in subs)))
            got = best
        memo[memo_key] = got
        return got

    return value([(g, game.initial()) for g, game in enumerate(games)], horizon)
