"""Turn On Lights: find the hidden Boolean dependency network between bulbs and light them all.

The rules (:class:`Rules`, the one transition function) and the game (:class:`LightsGame`, whose
docstring holds the Gymnasium sections and the Information keys) live here; the text env is
the generic :class:`~arena_gen.core.game_env.GameEnv` around the game.

Decisions where the spec is silent: a leading ``B`` and surrounding whitespace are tolerated in
an action (``" B3 "`` toggles bulb 3), since agents write either form.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from arena_gen.core.compiled import compiled
from arena_gen.core.game import ActionError, Check, Event, Facts, Game, TaskLike
from arena_gen.core.probes import Probe, balanced, choice_correct
from arena_gen.core.task import RubricItem
from arena_gen.envs.lights.formula import (
    Formula,
    FormulaError,
    bit_columns,
    check,
    compile_bits,
    evaluate_columns,
)

#: The one rubric item (success): every bulb is on.
ALL_ON = "all_on"
#: The probe kind: in a given state, does toggling a given bulb change the lights?
TOGGLE_CHANGES = "toggle_changes"
YES_NO = ("yes", "no")
#: Draws of an unvisited state before a probe falls back to a visited one.
_UNVISITED_TRIES = 64


def parse_action(action: str, n: int) -> int:
    """Return the bulb index an action names, or raise ValueError with a one-line reason."""
    text = action.strip()
    if text[:1] in ("B", "b"):
        text = text[1:]
    if not text:
        raise ValueError(f"empty action; write a bulb index from 0 to {n - 1}")
    if not text.isdigit() or not text.isascii():
        raise ValueError(f"{action.strip()[:40]!r} is not a bulb index; write an integer "
                         f"from 0 to {n - 1}")
    index = int(text)
    if index >= n:
        raise ValueError(f"B{index} does not exist; bulbs are B0 to B{n - 1}")
    return index


class Rules:
    """The compiled transition function of one world, shared by env, verifiers and judge;
    read-only once built (games of equal worlds share one: :mod:`arena_gen.core.compiled`)."""

    def __init__(self, world: dict[str, Any]) -> None:
        self.n = int(world["n"])
        self.conditions: tuple[Formula, ...] = tuple(world["conditions"])
        if len(self.conditions) != self.n:
            raise FormulaError(f"{self.n} bulbs but {len(self.conditions)} conditions")
        for cond in self.conditions:
            check(cond, self.n)
        self._can = tuple(compile_bits(c) for c in self.conditions)
        self.goal = (1 << self.n) - 1
        self._frozen = True

    def __setattr__(self, name: str, value: Any) -> None:
        if getattr(self, "_frozen", False):
            raise AttributeError(f"compiled lights rules are read-only (setting {name!r})")
        object.__setattr__(self, name, value)

    def enabled(self, state: int, bulb: int) -> bool:
        """Whether ``bulb`` may flip in ``state``."""
        return self._can[bulb](state)

    def step(self, state: int, bulb: int) -> int:
        """The one transition rule: flip ``bulb`` if its condition holds, else stay."""
        return state ^ (1 << bulb) if self._can[bulb](state) else state

    def enabled_masks(self, states: np.ndarray) -> list[np.ndarray]:
        """Per bulb, which of many states (a bitmask array) let it flip."""
        bits = bit_columns(states, self.n)
        return [evaluate_columns(cond, bits, states.size) for cond in self.conditions]

    def moves(self, states: np.ndarray) -> list[np.ndarray]:
        """The same rule on many states at once: per bulb, the states it flips those into."""
        return [states[mask] ^ np.uint32(1 << bulb)
                for bulb, mask in enumerate(self.enabled_masks(states))]


def state_line(state: int, n: int) -> str:
    """Render a bitmask as ``on off ...`` in bulb order (eight bulbs at a time from a table:
    the words of each bulb were a tenth of a lights step)."""
    return " ".join([_byte_words(state >> i & 255, min(8, n - i)) for i in range(0, n, 8)])


@functools.cache  # at most 256 values x 8 widths
def _byte_words(bits: int, width: int) -> str:
    """``on``/``off`` for the low ``width`` bits of ``bits``, lowest first."""
    return " ".join("on" if bits >> i & 1 else "off" for i in range(width))


@dataclass(frozen=True)
class LightsFacts(Facts):
    """What judges and logs know of a lights state."""

    state: int
    bulbs_on: int
    n: int


class LightsGame(Game[int, int, LightsFacts]):
    """Turn On Lights.

    Description:
        N bulbs ``B0 .. B(N-1)`` start off. Each bulb has a hidden condition over other bulbs
        (a relabelled DAG: the first bulb in a hidden order is always toggleable, every later
        bulb's condition reads only earlier bulbs). Toggling a bulb flips it only if its
        condition holds now.
    Action Space:
        A bulb index as text (``"3"``, ``"B3"`` and surrounding whitespace accepted); anything
        else is invalid: a one-line reason, state unchanged, one turn spent.
    Observation:
        The feedback line (``Toggled B3 to on.`` or ``B3 remains inactive... remaining bulbs
        should be in specific mode.``), ``State: on off ...`` in bulb order, and the turns left.
    Starting State:
        All bulbs off (state 0, a bitmask with bit i for bulb i).
    Rewards:
        1.0 on the turn that lights every bulb, else 0.0.
    Episode End:
        Terminated when every bulb is on; truncated when the turn budget is spent.
    Information:
        ``state`` (the bitmask), ``bulbs_on`` (how many are on), ``n`` (the bulb count).
    Rubric:
        ``all_on``: every bulb is on (success).
    Probes:
        ``toggle_changes``: "in this state, does toggling Bk change the lights?", answered
        ``yes`` or ``no``; half the states are ones the agent has visited, half ones it has not,
        and half the answers are ``yes`` (chance 50 %). The answer steps the game itself.
    Arguments:
        ``task``: a lights :class:`~arena_gen.core.task.Task`.
    Version History:
        v1: initial release.
        v2: same dynamics; presets calibrated, baseline ladder (a model-learning heuristic
        that plans at N = 16-24, a with-rules planner); Challenge conditions have at most 4
        literals (see docs/envs/lights.md for the measured ladder).
        v3: (preview) same dynamics; conditions of at most 3 literals, Lite budget 50,
        Challenge N 11-12 with exact minimum >= 14 in 70 turns; ladder format 2 (the model-free
        sweep rung, a version-space learner as heuristic) and the #25 targets (induction margin
        on Lite, inductive ceiling on Challenge).
        v4: same dynamics and worlds; each task proves it resists model-free play (issue 38):
        the optimist (optimism over the remembered state graph) and a hill-climber join the
        sweep as model-free rungs, and a task any of them solves, or that the uniform random
        policy solves within its budget with probability above 1 % (exact), is rejected.
        v5: (preview) same dynamics; Lite is v4's; Challenge at the paper's scale: hidden
        independent parts with ring-puzzle conditions (N 35-45, exact minimum >= 230 as the
        sum of the parts', 1,000 turns), decomposed proofs, the chain learner as inductive rung.
        v6: (preview, the released Challenge's) v5's game and generation with the parallel
        chain learner on the ladder and Challenge re-tuned against it (4 parts of 9-10 bulbs,
        exact minimum >= 270, 1,000 turns).
    """

    #: Per probe kind, what a uniform guess or a constant reply scores (answers are balanced).
    probe_chance: ClassVar[dict[str, float]] = {TOGGLE_CHANGES: 0.5}

    def __init__(self, task: TaskLike) -> None:
        super().__init__(task)
        self.rules = compiled(Rules, task.world)  # one compile per world a process
        self.n = self.rules.n

    def parse(self, text: str) -> int:
        try:
            return parse_action(text, self.n)
        except ValueError as exc:
            raise ActionError(str(exc)) from None

    def initial(self) -> int:
        return 0

    def step(self, state: int, action: int) -> tuple[int, Event]:
        return self.moved(state, action, self.rules.step(state, action))

    def moved(self, state: int, action: int, after: int) -> tuple[int, Event]:
        """The event of toggling ``action`` in ``state`` that led to ``after`` (an adversary
        answering for a class of worlds says it with the game's own words)."""
        if after == state:
            feedback = f"B{action} remains inactive... remaining bulbs should be in specific mode."
        else:
            feedback = f"Toggled B{action} to {'on' if after >> action & 1 else 'off'}."
        return after, Event(feedback=feedback, reward=1.0 if after == self.rules.goal else 0.0)

    def done(self, state: int) -> bool:
        return state == self.rules.goal

    def facts(self, state: int) -> LightsFacts:
        return LightsFacts(state=state, bulbs_on=bin(state).count("1"), n=self.n)

    @classmethod
    def rubric(cls, params: Mapping[str, Any], world: Mapping[str, Any]) -> list[RubricItem]:
        return [RubricItem(ALL_ON, "Every bulb is on at the end of the episode.")]

    def checks(self, facts: LightsFacts) -> list[Check]:
        return [Check(ALL_ON, facts.bulbs_on == facts.n,
                      f"final state: {facts.bulbs_on}/{facts.n} bulbs on")]

    def render(self, state: int) -> str:
        return f"State: {state_line(state, self.n)}"

    @staticmethod
    def random_action(public: dict[str, Any], rng: np.random.Generator) -> str:
        return str(int(rng.integers(int(public["n"]))))

    # -- world-model probes (arena_gen.core.probes); no rule of their own: answers step ----

    def changes(self, state: int, bulb: int) -> bool:
        """Whether toggling ``bulb`` in ``state`` changes the lights (by the game's ``step``)."""
        return self.step(state, bulb)[0] != state

    def _probe_state(self, seen: list[int], seen_set: set[int], visited: bool,
                     rng: np.random.Generator) -> tuple[int, bool]:
        """A state to ask about: a visited one, or one drawn uniformly among the unvisited."""
        if not visited and len(seen_set) < 1 << self.n:
            for _ in range(_UNVISITED_TRIES):
                s = int(rng.integers(1 << self.n))
                if s not in seen_set:
                    return s, False
        return seen[int(rng.integers(len(seen)))], True

    def probes(self, state: int, visited: Sequence[int], rng: np.random.Generator,
               count: int) -> list[Probe]:
        """``count`` toggle questions, half over visited states, half ``yes``."""
        seen = sorted({int(s) for s in visited} | {int(state)})
        seen_set = set(seen)
        wants = balanced(rng, count, YES_NO)
        sources = balanced(rng, count, (True, False))
        out = []
        for i, (want, from_visited) in enumerate(zip(wants, sources, strict=True)):
            for _ in range(_UNVISITED_TRIES):  # a (state, bulb) pair with the wanted answer
                s, was_seen = self._probe_state(seen, seen_set, from_visited, rng)
                b = int(rng.integers(self.n))
                if self.changes(s, b) == (want == "yes"):
                    break
            line = state_line(s, self.n)
            out.append(Probe(
                id=f"q{i}", kind=TOGGLE_CHANGES, choices=YES_NO,
                question=(f"Suppose the bulbs are in this state (B0 first): {line}. "
                          f"Does toggling B{b} change the lights? "
                          "Answer with exactly one word: yes or no."),
                subject={"state": s, "lights": line, "bulb": b, "visited": was_seen}))
        return out

    def probe_answer(self, state: int, probe: Probe) -> str:
        """``yes`` when toggling the probe's bulb in the probe's state flips it."""
        s, b = int(probe.subject["state"]), int(probe.subject["bulb"])
        if probe.kind != TOGGLE_CHANGES or not 0 <= s < 1 << self.n or not 0 <= b < self.n:
            raise ValueError(f"not a lights probe of this task: {probe.to_dict()}")
        return "yes" if self.changes(s, b) else "no"

    def probe_correct(self, probe: Probe, answer: str, reply: str) -> bool:
        return choice_correct(probe, answer, reply)
