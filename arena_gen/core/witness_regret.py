"""Shaping potentials of fixed-horizon daily games: minus the regret against the witness.

Trading and energy judge a whole horizon (profit and knowledge; stability and carbon share), so
no state has a distance to success. Their potential compares the agent's true state with the
state the task's certificate witness (the with-rules planner's actions for trading, the
verifier's perfect-foresight dispatch for energy) holds on the same day, by a value measure
``V`` of the env (higher is better, a function of the state alone)::

    Phi(s) = V(s) - V*(day(s))    before the episode ends,   Phi(s) = 0 once it has ended,

with ``V*(t)`` the measure of the witness's state at day ``t`` (the last state it holds on that
day; a day past the witness's end keeps its last value). ``Phi`` is 0 at the start (the same
state as the witness's) and at every end: Ng, Harada and Russell's condition for episodic tasks
(an ended episode sits in an absorbing state of potential 0), so a terminated episode's shaped
return is its sparse return exactly, discounted or not, and the optimal policies are the sparse
reward's whatever the measure. Before the end each step adds what the agent's day gained in
``V`` beyond what the witness's day gained: ``-Phi`` is the regret against the witness so far.
The witness is replayed through the game once per world (kept for the most recent
:data:`CACHE_WORLDS` worlds of a process), so a step then costs one ``V``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

from arena_gen.core.canon import sha256_of
from arena_gen.core.game import Game, play

#: Witness value tables a process keeps (keyed by measure, world and witness).
CACHE_WORLDS = 256

_KEPT: OrderedDict[str, tuple[float, ...]] = OrderedDict()


def witness_values(game: Game[Any, Any, Any], actions: Sequence[str],
                   value: Callable[[Any], float], day: Callable[[Any], int],
                   horizon: int) -> tuple[float, ...]:
    """``V*(t)`` for ``t = 0 .. horizon``: ``value`` of the last state the witness ``actions``
    hold on day ``t`` (played through the game within the task's turn budget)."""
    budget = int(getattr(game.task, "budget", 0) or 0) or None
    run = play(game, [a if isinstance(a, str) else str(a) for a in actions], budget=budget)
    by_day: dict[int, float] = {}
    for state in run.states:
        by_day[min(max(int(day(state)), 0), horizon)] = float(value(state))
    values, last = [], by_day[min(max(int(day(run.states[0])), 0), horizon)]
    for t in range(horizon + 1):
        last = by_day.get(t, last)
        values.append(last)
    return tuple(values)


def regret_potential(game: Game[Any, Any, Any], *, measure: str,
                     value: Callable[[Any], float], day: Callable[[Any], int], horizon: int,
                     witness: Callable[[], Sequence[str]]) -> Callable[[Any], float]:
    """``Phi`` of ``game``'s states (see the module docstring): ``measure`` names ``value`` in
    the cache key, ``witness()`` gives the actions to compare with (the certificate's)."""
    actions = list(witness())
    key = sha256_of({"measure": measure, "game": f"{type(game).__module__}."
                                                 f"{type(game).__qualname__}",
                     "world": game.task.world, "witness": actions})
    best = _KEPT.pop(key, None)
    if best is None:
        best = witness_values(game, actions, value, day, horizon)
    _KEPT[key] = best
    while len(_KEPT) > CACHE_WORLDS:
        _KEPT.popitem(last=False)
    table = best

    def phi(state: Any) -> float:
        if game.done(state):
            return 0.0
        return float(value(state)) - table[min(max(int(day(state)), 0), horizon)]

    return phi


def certificate_witness(task: Any) -> list[str] | None:
    """The witness of ``task``'s certificate, or None when it has none (a draft)."""
    certificate = getattr(task, "certificate", None)
    actions = getattr(certificate, "witness", None)
    return list(actions) if actions else None
