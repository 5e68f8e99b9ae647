"""Exact induction cost of small classes whose worlds are played by their own Games, observed as
the agent observes them (partial observation: repo's outputs, energy's and trading's days).

:mod:`arena_gen.core.induction` solves fully observed classes (lights: the state is the
observation). Here each world of the class is a compiled :class:`~arena_gen.core.game.Game`,
an action is a text from a finite set (the class's declared actions), and what the learner sees
after an action is the text env's observation of it: the feedback line, the rendered state, and
whether the episode ended and succeeded (the env reports both). Worlds differ in hidden state,
so a belief is the set of consistent worlds *with each one's state*, as a bitset and a tuple of
state keys.

Besides the worst-case and expected induction cost (the definitions of ``docs/induction.md``),
the solver gives the **optimal success probability** within the horizon: the highest prior
probability of success any learner reaches. In fixed-horizon envs (energy, trading: one step a
day, success judged on the last day) every successful episode has the same length, so W* and E*
are the horizon or infinity, and the success probability is the figure that tells learners
apart. Graph and value iteration are bounded in nodes and seconds (:class:`InductionLimit`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena_gen.core import registry
from arena_gen.core.game import ActionError, Game
from arena_gen.core.induction import (
    InductionCost,
    InductionLimit,
    _iterate,
    _members,
    explore,
    indexed,
)
from arena_gen.core.seeds import child


@dataclass(frozen=True)
class GameClass:
    """A hypothesis class of compiled games: each world's game, its prior weight, the actions."""

    games: Sequence[Game[Any, Any, Any]]
    weights: Sequence[float]
    #: The learner's actions, as texts (each world's game parses them, invalid ones included).
    actions: Sequence[str]
    #: The with-rules minimum of each world (``math.nan`` when not known).
    told: Sequence[float] = ()
    #: A hashable identity of a state (default: the state itself).
    key: Callable[[Any], Hashable] | None = None


@dataclass
class GameInductionCost(InductionCost):
    """The exact references of a game class, with the optimal success probability."""

    success: float = math.nan


def play(game: Game[Any, Any, Any], state: Any, text: str) -> tuple[Any, Hashable]:
    """One turn as the text env plays it: the next state and what the agent observes."""
    try:
        nxt, event = game.step(state, game.parse(text))
    except ActionError as exc:
        nxt, event = game.reject(state, exc)
    return nxt, (event.feedback, game.render(nxt), game.done(nxt), game.success(nxt))


@dataclass(frozen=True)
class Certified:
    """What a game compiles from when its rubric reads the certificate (trading's baselines):
    a draft's parts with the certificate its verifier gave."""

    world: dict[str, Any]
    public: dict[str, Any]
    budget: int
    params: dict[str, Any]
    certificate: Any


def recombined(sample: Callable[[Any, Any], Any], verify: Callable[[Any], Any],
               accept: Callable[[Any, Any], str | None], config: Any,
               base: np.random.SeedSequence, root: np.random.SeedSequence, draws: int,
               hidden: Sequence[str],
               rebuild: Callable[[Any, dict[str, Any]], Any]) -> tuple[Any, list[Certified]]:
    """A sampled class of continuous worlds: the base draw's public and observed parts with the
    ``hidden`` world keys of each of ``draws`` further draws (each key from its own component
    stream, so every combination is a draw of the sampler's own joint law given the base's
    parts), rebuilt into a draft by ``rebuild``, kept when verified and accepted."""
    first = sample(config, base)
    kept = []
    for i in range(draws):
        other = sample(config, child(root, i))
        draft = rebuild(first, {**first.world, **{k: other.world[k] for k in hidden}})
        cert = verify(draft)
        if accept(draft, cert) is None:
            kept.append(Certified(world=draft.world, public=draft.public, budget=draft.budget,
                                  params=draft.params, certificate=cert))
    return first, kept



def recombined_class(env: str, version: int, small: dict[str, Any], hidden: Sequence[str],
                     rebuild: Callable[[Any, dict[str, Any]], Any], draws: int,
                     seed: int) -> tuple[Any, list[Certified]]:
    """:func:`recombined` on an env version's own sampler, verifier and acceptance, its Lite
    preset shrunk by ``small``: the base draw ``SeedSequence([seed, 0])`` with the hidden parts
    of ``draws`` draws below ``SeedSequence([seed, 1])`` (ValueError when none is accepted)."""
    spec = registry.get(env, version)
    config = dict(spec.load("presets")["lite"].replace(**small))
    base, kept = recombined(spec.load("sampler"), spec.load("verifier"), spec.acceptance(),
                            config, np.random.SeedSequence([seed, 0]),
                            np.random.SeedSequence([seed, 1]), draws, hidden, rebuild)
    if not kept:
        raise ValueError(f"no accepted world among {draws} recombined draws of seed {seed}")
    return base, kept


def played_class(env: str, version: int, worlds: Sequence[Certified],
                 actions: Sequence[str]) -> GameClass:
    """A sampled class as the game solver takes it: each world played by the env version's own
    game, equally weighted (each is one draw), states keyed by ``repr`` (a record is mutable),
    the told minimum the world's horizon (a fixed-horizon env ends there)."""
    game = registry.get(env, version).load("game")
    return GameClass(games=[game(w) for w in worlds], weights=[1.0] * len(worlds),
                     actions=actions, told=[float(w.world["horizon"]) for w in worlds],
                     key=repr)

Node = tuple[int, tuple[Hashable, ...]]  # (bitset of consistent worlds, their state keys)


def solve_games(cls: GameClass, horizon: int, *, max_nodes: int = 500_000,
                seconds: float = 60.0) -> GameInductionCost:
    """Exact W*, E* and success probability of ``cls`` within ``horizon`` steps, by value
    iteration over the whole reachable belief graph."""
    start = time.perf_counter()
    deadline = start + seconds
    weights = [float(w) for w in cls.weights]
    if not weights or min(weights) <= 0 or len(weights) != len(cls.games):
        raise ValueError("a game class needs one positive weight per world")
    key = cls.key or (lambda s: s)
    games = cls.games
    first = [g.initial() for g in games]
    if len({g.render(s) for g, s in zip(games, first, strict=True)}) > 1:
        raise ValueError("the worlds of a class must show the same first observation (a "
                         "learner tells apart worlds that start differently)")
    root: Node = ((1 << len(games)) - 1, tuple(key(s) for s in first))
    states: dict[Node, list[Any]] = {root: first}
    solved: set[Node] = set()

    def expand(node: Node) -> list[list[Node]]:
        members, now = _members(node[0]), states[node]
        if games[members[0]].done(now[0]):  # the observation said so for every member
            if games[members[0]].success(now[0]):
                solved.add(node)
            return []
        options = []
        for text in cls.actions:
            split: dict[Hashable, tuple[int, list[Any]]] = {}
            for w, s in zip(members, now, strict=True):
                nxt, seen = play(games[w], s, text)
                mask, after = split.get(seen, (0, []))
                split[seen] = (mask | (1 << w), [*after, nxt])
            parts = []
            for mask, after in split.values():
                kid: Node = (mask, tuple(key(s) for s in after))
                states.setdefault(kid, after)
                parts.append(kid)
            if parts != [node]:
                options.append(parts)
        return options

    edges = explore(root, expand, max_nodes, start, deadline)
    kids, mass = indexed(edges, weights, lambda node: node[0])
    goal = [node in solved for node in edges]
    worst = _iterate(kids, horizon, mass, deadline, expected=False, goal=goal)
    expected = _iterate(kids, horizon, mass, deadline, expected=True, goal=goal)
    success = _chance(kids, horizon, mass, goal, deadline)
    told = (sum(w * t for w, t in zip(weights, cls.told, strict=True)) / sum(weights)
            if cls.told else math.nan)
    return GameInductionCost(worst=worst[0], expected=expected[0], told=told, nodes=len(edges),
                             seconds=time.perf_counter() - start, success=success[0])


def _chance(kids: list[list[list[int]]], horizon: int, mass: list[float], goal: list[bool],
            deadline: float) -> list[float]:
    """The highest probability of reaching success within ``horizon`` steps, per node."""
    value = [1.0 if g else 0.0 for g in goal]
    for _ in range(horizon):
        if time.perf_counter() > deadline:
            raise InductionLimit("value iteration did not finish in time")
        new = value[:]
        for i, options in enumerate(kids):
            for children in options:
                v = min(1.0, sum(mass[c] * value[c] for c in children) / mass[i])
                if v > new[i]:
                    new[i] = v
        if new == value:
            break
        value = new
    return value
