"""A toy env defined outside the package: a counter that must reach a hidden target.

It is registered by the tests alone (a game, a sampler, a verifier and presets in one
``register`` call), to prove that a fifth env needs no edit anywhere in ``arena_gen``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena_gen.core.game import ActionError, Check, Event, Facts, Game
from arena_gen.core.probes import Probe
from arena_gen.core.registry import EnvSpec
from arena_gen.core.task import Certificate, Draft, RubricItem

CODE = 97
#: The toy's one rubric item: ``rubric`` and ``checks`` both use this constant.
AT_TARGET = "at_target"


@dataclass(frozen=True)
class CounterFacts(Facts):
    value: int
    target: int


class CounterGame(Game[int, int, CounterFacts]):
    """Counter.

    Description: reach a hidden target with ``up`` / ``down``.
    Action Space: ``up`` or ``down``.
    Observation: the value.
    Starting State: 0.
    Rewards: 1.0 on reaching the target.
    Episode End: at the target.
    Information: ``value``, ``target``.
    Rubric: ``at_target`` (success).
    Arguments: ``task``.
    Version History: v1: up adds 1.
    """

    step_size = 1

    def parse(self, text: str) -> int:
        word = text.strip()
        if word not in ("up", "down"):
            raise ActionError(f"{word[:20]!r} is not up or down")
        return self.step_size if word == "up" else -self.step_size

    def initial(self) -> int:
        return 0

    def step(self, state: int, action: int) -> tuple[int, Event]:
        after = state + action
        return after, Event(f"value {after}", reward=float(after == self.target))

    @property
    def target(self) -> int:
        return int(self.task.world["target"])

    def done(self, state: int) -> bool:
        return state == self.target

    def facts(self, state: int) -> CounterFacts:
        return CounterFacts(value=state, target=self.target)

    @classmethod
    def rubric(cls, params: Mapping[str, Any], world: Mapping[str, Any]) -> list[RubricItem]:
        return [RubricItem(AT_TARGET, "The value equals the target.")]

    def checks(self, facts: CounterFacts) -> list[Check]:
        return [Check(AT_TARGET, facts.value == facts.target, f"value {facts.value}")]

    def render(self, state: int) -> str:
        return f"Value: {state}"

    @staticmethod
    def random_action(public: dict[str, Any], rng: np.random.Generator) -> str:
        return "up" if rng.random() < 0.5 else "down"


class CounterGameV2(CounterGame):
    """Counter v2: ``up`` adds 2 (so a v1 witness overshoots odd targets here)."""

    step_size = 2


class FaultyCounterGame(CounterGame):
    """Counter with a bug in its rules: its ``fail_on``-th step raises (not an ActionError)."""

    fail_on = 3

    def step(self, state: int, action: int) -> tuple[int, Event]:
        self.calls = getattr(self, "calls", 0) + 1
        if self.calls == self.fail_on:
            raise RuntimeError(f"rule bug on step {self.calls}")
        return super().step(state, action)


class ResetFaultCounterGame(CounterGame):
    """Counter whose start state cannot be built once ``armed``: a reset that raises mid-run."""

    armed = False

    def initial(self) -> int:
        if ResetFaultCounterGame.armed:
            raise RuntimeError("rule bug in reset")
        return super().initial()


class ProbeCounterGame(CounterGame):
    """Counter offering world-model probes (the :class:`~arena_gen.core.probes.ProbeGame`
    contract): "is the target above V?" and "from value S, does one up reach the target?",
    S drawn from the visited values or beside them, so the judge must replay the same visits."""

    def probes(self, state: int, visited: Sequence[int], rng: np.random.Generator,
               count: int) -> list[Probe]:
        out = []
        seen = sorted(set(visited))
        for n in range(count):
            if rng.random() < 0.5:
                value = int(rng.integers(0, 12))
                out.append(Probe(f"q{n}", "above", f"Is the target above {value}? Answer yes "
                                 f"or no.", ("yes", "no"), {"value": value}))
            else:
                start = (seen[int(rng.integers(len(seen)))] if rng.random() < 0.5
                         else int(rng.integers(-3, 12)))
                out.append(Probe(f"q{n}", "reach", f"From value {start}, does one up reach "
                                 f"the target? Answer yes or no.", ("yes", "no"),
                                 {"start": start}))
        return out

    def probe_answer(self, state: int, probe: Probe) -> str:
        if probe.kind == "above":
            return "yes" if self.target > int(probe.subject["value"]) else "no"
        return "yes" if int(probe.subject["start"]) + self.step_size == self.target else "no"

    def probe_correct(self, probe: Probe, answer: str, reply: str) -> bool:
        return reply.strip().lower() == answer


def sample(config: dict[str, Any], seed: np.random.SeedSequence) -> Draft:
    target = int(np.random.default_rng(seed).integers(2, 6)) * config["scale"]
    params, world = {"scale": config["scale"]}, {"target": target}
    return Draft(params=params, budget=20, public={"intro": "Reach the hidden target."},
                 world=world, rules_text="up adds to the value, down subtracts.",
                 rubric=CounterGame.rubric(params, world))


def verifier(step_size: int) -> Any:
    def verify(draft: Any) -> Certificate:
        target = int(draft.world["target"])
        steps = -(-target // step_size)
        solvable = target % step_size == 0
        return Certificate(solvable, "bfs", steps if solvable else None,
                           ["up"] * steps if solvable else [], 1, None)
    return verify


PRESETS = {"lite": {"count": 3, "scale": 1}, "challenge": {"count": 2, "scale": 2}}


def spec(version: int = 1, game: type[CounterGame] | None = None) -> EnvSpec:
    """The toy's spec at ``version`` (the register call a new env needs); ``game`` replaces
    the version's game (a faulty one, say)."""
    game = game or (CounterGame if version == 1 else CounterGameV2)
    return EnvSpec(name="counter", version=version, code=CODE, gym_name="Counter",
                   package=__name__, game=game, sampler=sample, presets=PRESETS,
                   verifier=verifier(game.step_size), default_suites=("lite", "challenge"))
