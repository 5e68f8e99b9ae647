"""The Game contract: one typed, pure rule object per environment, compiled once from a task.

Every consumer plays through a game: the text env (``arena_gen.core.game_env``), the verifiers'
witness and plan checks, the oracle, the runner and the judge. A game owns the whole rule set of
its env, so no other module may restate a transition, a success test or a rubric predicate:

- ``parse(text)`` turns agent text into a typed action, raising only :class:`ActionError`;
- ``initial()`` and ``step(state, action) -> (state, Event)`` are THE transition rule (pure: the
  input state is never mutated);
- ``reject(state, error)`` is what a malformed action does (a lost turn, or a lost day);
- ``done``, ``facts`` (typed, JSON-ready: the only thing judges, logs and ``info`` read),
  ``checks`` (the rubric as predicates over facts) and ``success`` (every check met: the one
  definition of success used by trajectories, progress lines, curves, success rate and judges);
- ``rubric(params, world)`` (a classmethod: the rubric items, ids and texts, a task of this game
  carries). Samplers and importers call it instead of writing ids, and ``checks`` builds its
  verdicts from the same id constants, so the items a task lists and the verdicts its judge
  emits cannot drift apart (:func:`rubric_problem` and :func:`checks_problem` say where they
  do; build and verify refuse such a task);
- ``render(state)`` for observations and ``random_action(public, rng)`` for the random agent.

A bug inside the rules raises; only :class:`ActionError` is reported to the agent.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

import numpy as np

from arena_gen.core.task import RubricItem


class TaskLike(Protocol):
    """What a game is compiled from: a Task, a Draft, or a bare world (:class:`WorldView`).

    Read-only members, so frozen dataclasses (``WorldView``, ``Task``) satisfy it too."""

    @property
    def world(self) -> dict[str, Any]: ...

    @property
    def public(self) -> dict[str, Any]: ...

    @property
    def budget(self) -> int: ...


@dataclass(frozen=True)
class WorldView:
    """A task reduced to its world: what a verifier has before any certificate exists."""

    world: dict[str, Any]
    public: dict[str, Any] = field(default_factory=dict)
    budget: int = 0


#: Longest action text read (the max_length of every text env's action space): a longer one is
#: malformed as a whole.
MAX_TEXT = 100_000


class ActionError(ValueError):
    """A malformed agent action: the only error a game's ``parse`` may raise."""


@dataclass(frozen=True)
class Event:
    """What one transition did: the feedback line, whether the action was valid, the reward."""

    feedback: str
    valid: bool = True
    reward: float = 0.0


@dataclass(frozen=True)
class _Box:
    """One value to copy with ``dataclasses.asdict``'s own rules (the fast path's fallback)."""

    value: Any


_ATOMIC = frozenset({int, float, str, bool, type(None)})


def _plain(value: Any) -> Any:
    """``value`` copied as ``dataclasses.asdict`` copies a field: atoms as they are, plain dicts
    and lists rebuilt, anything else (tuples, dataclasses, other types) by ``asdict`` itself."""
    kind = type(value)
    if kind in _ATOMIC:
        return value
    atomic = _ATOMIC  # the comprehensions test atoms inline: a call per value costs more
    if kind is dict:
        return {k if type(k) in atomic else _plain(k): v if type(v) in atomic else _plain(v)
                for k, v in value.items()}
    if kind is list:
        return [v if type(v) in atomic else _plain(v) for v in value]
    return dataclasses.asdict(_Box(value))["value"]


@dataclass(frozen=True)
class Facts:
    """Typed facts about a state; subclasses add fields (every one listed in the env docs)."""

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form written into ``info`` and trajectories: equal to
        ``dataclasses.asdict(self)`` without its generic deep copy of every value (it runs on
        every env step; ``tests/test_facts_dict.py`` pins the equality for every env)."""
        names = _FIELD_NAMES.get(type(self))
        if names is None:
            names = _FIELD_NAMES[type(self)] = tuple(f.name for f in dataclasses.fields(self))
        out = {}
        for name in names:
            value = getattr(self, name)
            out[name] = value if type(value) in _ATOMIC else _plain(value)
        return out


#: Field names per Facts class, in declaration order (``asdict``'s order), read once.
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


@dataclass(frozen=True)
class Check:
    """One rubric predicate's verdict: met, violated, or not assessable (``met=None``)."""

    item: str
    met: bool | None
    evidence: str

    @property
    def status(self) -> str:
        return "not_assessable" if self.met is None else ("met" if self.met else "violated")

    def finding(self) -> dict[str, Any]:
        """The finding record of the score policy (``item``, ``status``, ``evidence``)."""
        return {"item": self.item, "status": self.status, "evidence": self.evidence}


StateT = TypeVar("StateT")
ActionT = TypeVar("ActionT")
FactsT = TypeVar("FactsT", bound=Facts)


class Game(ABC, Generic[StateT, ActionT, FactsT]):
    """One environment's rules, compiled from a task (see the module docstring)."""

    #: Whether observations end with a ``Turns left: N`` line.
    shows_turns_left: bool = True

    def __init__(self, task: TaskLike) -> None:
        self.task = task

    @abstractmethod
    def parse(self, text: str) -> ActionT:
        """The typed action ``text`` names; raise :class:`ActionError` with a one-line reason."""

    @abstractmethod
    def initial(self) -> StateT:
        """The starting state."""

    @abstractmethod
    def step(self, state: StateT, action: ActionT) -> tuple[StateT, Event]:
        """THE transition rule: the next state and what happened (``state`` is not mutated)."""

    def reject(self, state: StateT, error: ActionError) -> tuple[StateT, Event]:
        """What a malformed action does; by default nothing but a lost turn."""
        return state, Event(feedback=f"Invalid action: {error}.", valid=False)

    @abstractmethod
    def done(self, state: StateT) -> bool:
        """Whether the episode has ended by the rules (not by the turn budget)."""

    def hopeless(self, state: StateT) -> bool:
        """Whether no continuation of ``state`` can succeed, whatever the actions and turns
        left: True only when certain (default: never claimed), so a caller that counts only
        successes (the random bound's episodes) may stop there."""
        return False

    @abstractmethod
    def facts(self, state: StateT) -> FactsT:
        """Typed facts about ``state``: what judges, logs and ``info`` read."""

    @classmethod
    @abstractmethod
    def rubric(cls, params: Mapping[str, Any], world: Mapping[str, Any]) -> list[RubricItem]:
        """The rubric items (ids and texts) of a task with these ``params`` and ``world``: the
        ids ``checks`` emits, in its order (samplers and importers call this, never restate it)."""

    @abstractmethod
    def checks(self, facts: FactsT) -> list[Check]:
        """The rubric: one verdict per :meth:`rubric` item, in its order, over ``facts``."""

    def success(self, state: StateT) -> bool:
        """The one definition of success: every rubric check is met."""
        return self.met(self.facts(state))

    def met(self, facts: FactsT) -> bool:
        """Success read from facts already built (the text env builds them once a step)."""
        return all(c.met is True for c in self.checks(facts))

    @abstractmethod
    def render(self, state: StateT) -> str:
        """The state as the agent sees it (without feedback or the turns-left line)."""

    def intro(self) -> str:
        """The opening text: what the agent is told at the start."""
        return str(self.task.public.get("intro", ""))

    @staticmethod
    @abstractmethod
    def random_action(public: dict[str, Any], rng: np.random.Generator) -> str:
        """A random, sensible action drawn from what the agent is told (the random agent)."""

    # -- derived helpers (never restated by consumers) -------------------------------------------
    def act(self, state: StateT, text: str) -> tuple[StateT, Event]:
        """Parse ``text`` and step, or apply the reject rule when it is malformed. A text longer
        than the action space allows (:data:`MAX_TEXT`) is malformed without being parsed, so
        no game echoes megabytes back into its feedback (the text layer's rule, the same for
        every game and version: no released task's actions come near it)."""
        if len(text) > MAX_TEXT:
            return self.reject(state, ActionError(
                f"an action of {len(text)} characters; at most {MAX_TEXT} are read (it was not "
                f"parsed)"))
        try:
            action = self.parse(text)
        except ActionError as exc:
            return self.reject(state, exc)
        return self.step(state, action)


def rubric_problem(game: type[Game[Any, Any, Any]], params: Mapping[str, Any],
                   world: Mapping[str, Any], rubric: Sequence[RubricItem]) -> str | None:
    """Why ``rubric`` (a task's or draft's) is not ``game``'s own rubric, naming the first item
    that differs, or None: a rubric written anywhere but the game would score success as 0."""
    own = game.rubric(params, world)
    name = f"{game.__name__}.rubric"
    for n, (mine, theirs) in enumerate(zip(rubric, own, strict=False)):
        if mine.id != theirs.id:
            return f"rubric item {n} is {mine.id!r} but {name} has {theirs.id!r}"
        if mine.text != theirs.text:
            return (f"rubric item {n} ({mine.id!r}) text {mine.text!r} differs from {name}'s "
                    f"{theirs.text!r}")
    if len(rubric) != len(own):
        extra = [r.id for r in rubric[len(own):]] or [r.id for r in own[len(rubric):]]
        where = "the rubric" if len(rubric) > len(own) else name
        return (f"rubric has {len(rubric)} items, {name} {len(own)} (only {where} has "
                f"{', '.join(map(repr, extra))})")
    return None


def checks_problem(game: Game[StateT, Any, Any], state: StateT,
                   rubric: Sequence[RubricItem]) -> str | None:
    """Why the ids of ``game.checks`` at ``state`` are not ``rubric``'s ids in order (naming
    the first that differs), or None: a verdict for an item the rubric lacks is never counted."""
    return items_problem([c.item for c in game.checks(game.facts(state))], rubric,
                         f"{type(game).__name__}.checks")


def items_problem(ids: Sequence[str], rubric: Sequence[RubricItem], who: str) -> str | None:
    """Why the verdict ids ``who`` emitted are not ``rubric``'s ids in order, or None."""
    want = [r.id for r in rubric]
    if list(ids) == want:
        return None
    for n, (got, item) in enumerate(zip(ids, want, strict=False)):
        if got != item:
            return f"rubric item {n} is {item!r} but {who} emits {got!r}"
    longer, extra = (who, ids[len(want):]) if len(ids) > len(want) else ("the rubric",
                                                                        want[len(ids):])
    return (f"rubric has {len(want)} items, {who} {len(ids)} (only {longer} has "
            f"{', '.join(map(repr, extra))})")


@dataclass
class Playthrough(Generic[StateT]):
    """What playing a list of action texts did: the states after each turn and the events."""

    states: list[StateT]
    events: list[Event]
    success: bool
    #: With ``stop_on_error``: the exception the game raised on the next action (its text),
    #: which ended the playthrough after the turns it completed; never a success.
    error: str | None = None

    @property
    def final(self) -> StateT:
        return self.states[-1]

    @property
    def steps(self) -> int:
        return len(self.events)

    @property
    def total_reward(self) -> float:
        return float(sum(e.reward for e in self.events))


def play(game: Game[StateT, Any, Any], actions: Iterable[str], *,
         budget: int | None = None, stop_on_error: bool = False) -> Playthrough[StateT]:
    """Play action texts from the start until the game is done or ``budget`` turns are spent;
    with ``stop_on_error`` an exception of the rules ends it there (a judge replaying forged
    actions still learns the turns completed) instead of propagating."""
    state = game.initial()
    states: list[StateT] = [state]
    events: list[Event] = []
    if not game.done(state):
        for text in actions:
            if budget is not None and len(events) >= budget:
                break
            try:
                state, event = game.act(state, text)
            except Exception as exc:
                if not stop_on_error:
                    raise
                return Playthrough(states=states, events=events, success=False,
                                   error=f"{type(exc).__name__}: {exc}")
            states.append(state)
            events.append(event)
            if game.done(state):
                break
    return Playthrough(states=states, events=events, success=game.success(state))
