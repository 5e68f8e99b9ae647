"""Turn On Lights sampler: a random relabelled DAG of bulb conditions, stored as a JSON AST."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena_gen.core.calibration import Calibration
from arena_gen.core.presets import Preset, PresetError, _check, knob
from arena_gen.core.seeds import child, component_rngs, rng, task_level_seed
from arena_gen.core.task import Certificate, Draft
from arena_gen.envs.lights.formula import Formula, to_text
from arena_gen.envs.lights.game_v1 import LightsGame

#: Largest bulb count a preset may ask for (a sanity bound: the verifier uses BFS up to 24 and
#: SAT beyond; the lights benchmark plans N = 40).
MAX_N = 64
#: Knobs beyond the scalar ``knob`` kinds: the N list and its weights (any length), and the two
#: alternative acceptance floors, exactly one of which is set (the unset one is not recorded).
_LISTS = ("n_values", "n_weights")
_FLOORS = ("min_len", "min_len_over_n")


def _sequence(name: str, value: Any, lo: float, hi: float | None, *, integer: bool) -> None:
    if not isinstance(value, tuple) or not value:
        raise PresetError(f"preset knob {name!r} must be a non-empty list, got {value!r}")
    kinds = (int,) if integer else (int, float)
    for v in value:
        if isinstance(v, bool) or not isinstance(v, kinds):
            what = "whole numbers" if integer else "numbers"
            raise PresetError(f"preset knob {name!r} must be a list of {what}, got {value!r}")
        if v < lo or (hi is not None and v > hi):
            raise PresetError(f"preset knob {name!r} has {v!r} outside [{lo}, {hi}]")


@dataclass(frozen=True)
class LightsPreset(Preset):
    """The knobs of a lights suite: N distribution, condition shape, budget, acceptance floor.

    ``n_values`` / ``n_weights``: the bulb counts and their (unnormalised) weights, N drawn
    once per task; ``max_literals``, ``p_not``, ``p_and``: each condition is a left-nested
    chain of up to ``max_literals`` literals over earlier bulbs, each negated with ``p_not``,
    joined by ``and`` with ``p_and`` (else ``or``); ``budget``: agent turns; the accepted
    exact minimum is at least ``min_len``, or N + ``min_len_over_n`` (exactly one is set).
    """

    n_values: tuple[int, ...] = dataclasses.field(metadata={"kind": list})
    n_weights: tuple[float, ...] = dataclasses.field(metadata={"kind": list})
    count: int = knob(1, 10_000, kind=int)
    max_literals: int = knob(1, MAX_N, kind=int)
    p_not: float = knob(0.0, 1.0)
    p_and: float = knob(0.0, 1.0)
    budget: int = knob(1, 100_000, kind=int)
    max_attempts: int = knob(1, 100_000, kind=int)
    min_len: int | None = dataclasses.field(default=None, metadata={"kind": int, "lo": 0})
    min_len_over_n: int | None = dataclasses.field(default=None,
                                                   metadata={"kind": int, "lo": 0})

    def __post_init__(self) -> None:
        for name in _LISTS:
            if isinstance(getattr(self, name), list):
                object.__setattr__(self, name, tuple(getattr(self, name)))
        _sequence("n_values", self.n_values, 1, MAX_N, integer=True)
        _sequence("n_weights", self.n_weights, 0, None, integer=False)
        set_floors = [f for f in _FLOORS if getattr(self, f) is not None]
        if len(set_floors) != 1:
            raise PresetError("LightsPreset needs exactly one of the knobs 'min_len' and "
                              f"'min_len_over_n', got {set_floors or 'neither'}")
        for f in dataclasses.fields(self):  # the scalar knobs: the shared checks
            if f.name not in _LISTS and getattr(self, f.name) is not None:
                _check(f.name, getattr(self, f.name), f.metadata.get("lo"),
                       f.metadata.get("hi"), f.metadata.get("kind", float))
        self.validate()

    def validate(self) -> None:
        if len(self.n_weights) != len(self.n_values):
            raise PresetError(f"preset knob 'n_weights' needs one weight per value of "
                              f"'n_values' ({len(self.n_values)}), got {list(self.n_weights)}")
        if not sum(self.n_weights) > 0:
            raise PresetError("preset knob 'n_weights' needs a positive weight")
        floor = self.min_len if self.min_len is not None else self.min_len_over_n
        if floor is not None and floor > self.budget:
            raise PresetError(f"the acceptance floor {floor} exceeds the budget {self.budget}")

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> LightsPreset:
        """As :meth:`Preset.of`; the unset acceptance floor may be left out."""
        if isinstance(data, cls):
            return data
        return super().of({**{f: None for f in _FLOORS}, **data})

    def _set(self) -> list[str]:
        return [f.name for f in dataclasses.fields(self) if getattr(self, f.name) is not None]

    def to_dict(self) -> dict[str, Any]:
        """The manifest's dict: the unset acceptance floor is left out."""
        return {name: self[name] for name in self._set()}

    def __iter__(self) -> Iterator[str]:
        return iter(self._set())

    def __len__(self) -> int:
        return len(self._set())


# N weights follow the released OdysseyArena Lite data (levels 6..10: 1, 2, 5, 14, 8 of 30);
# p_not and p_and are the literal shares measured on that data (359/653 negated, 244/417 'and').
PRESETS: dict[str, LightsPreset] = {
    "lite": LightsPreset(count=30, n_values=(6, 7, 8, 9, 10), n_weights=(1, 2, 5, 14, 8),
                         max_literals=8, p_not=0.55, p_and=0.6, min_len=10, budget=200,
                         max_attempts=500),
    "challenge": LightsPreset(count=10, n_values=tuple(range(16, 25)), n_weights=(1,) * 9,
                              max_literals=8, p_not=0.55, p_and=0.6, min_len_over_n=4,
                              budget=1000, max_attempts=500),
}

#: v2 (same game): presets calibrated against the baseline ladder (see docs/envs/lights.md).
PRESETS_V2: dict[str, LightsPreset] = {
    "lite": LightsPreset(count=30, n_values=(6, 7, 8, 9, 10), n_weights=(1, 2, 5, 14, 8),
                         max_literals=8, p_not=0.55, p_and=0.6, min_len=10, budget=200,
                         max_attempts=500),
    # max_literals 4 (not 8): with up to 8 literals no scripted learner lit a Challenge world
    # (0 of 10), so the suite measured nothing below the planner; with 4 it measures 20 %
    "challenge": LightsPreset(count=10, n_values=tuple(range(16, 25)), n_weights=(1,) * 9,
                              max_literals=4, p_not=0.55, p_and=0.6, min_len_over_n=4,
                              budget=1000, max_attempts=500),
}

#: v2's ladder targets: the brief's bands on Lite; on Challenge only the planner floor (its
#: inductive bar, "below Lite", is checked across suites).
CALIBRATION: dict[str, Calibration] = {
    "lite": Calibration(),
    "challenge": Calibration(inductive=None, planner_floor=0.8),
}


def make_conditions(n: int, order: list[int], rng: np.random.Generator, *, max_literals: int,
                    p_not: float, p_and: float) -> list[Formula]:
    """Build each bulb's condition over earlier bulbs of ``order``, left-nested and/or chains."""
    conditions: list[Formula] = [{"const": True}] * n
    for pos in range(1, n):
        k = int(rng.integers(1, min(max_literals, pos) + 1))
        chosen = rng.choice(pos, size=k, replace=False)
        node: Formula | None = None
        for idx in chosen:
            lit: Formula = {"var": order[int(idx)]}
            if rng.random() < p_not:
                lit = {"not": lit}
            if node is None:
                node = lit
            else:
                op = "and" if rng.random() < p_and else "or"
                node = {op: [node, lit]}
        assert node is not None
        conditions[order[pos]] = node
    return conditions


def rules_text(conditions: list[Formula]) -> str:
    """The with-rules disclosure: one line per bulb."""
    lines = []
    for i, cond in enumerate(conditions):
        lines.append(f"B{i}: always toggleable" if cond == {"const": True}
                     else f"B{i}: {to_text(cond)}")
    return "\n".join(lines)


def public_view(n: int, budget: int) -> dict[str, Any]:
    """What the agent is told at the start."""
    intro = (f"There are {n} bulbs, B0 to B{n - 1}, all off. Each turn, choose one bulb index to "
             f"toggle. A bulb only toggles when other bulbs are in the right states, under hidden "
             f"rules you must discover. Goal: turn every bulb on within {budget} turns.")
    return {"n": n, "intro": intro, "action_format": "a bulb index, e.g. 3"}


def public_again(public: Mapping[str, Any], budget: int,
                 config: Mapping[str, Any] | None) -> tuple[dict[str, Any], int]:
    """The public view and budget :func:`sample` gives a task of these public facts (the
    preset's budget when its ``config`` is given): what a sealed public copy is checked by."""
    if config is not None:
        budget = int(config["budget"])
    return public_view(int(public["n"]), budget), budget


def min_len_for(config: LightsPreset | Mapping[str, Any], n: int) -> int:
    """The acceptance floor on the exact minimum: fixed, or N plus an offset."""
    preset = LightsPreset.of(config)
    if preset.min_len is not None:
        return preset.min_len
    assert preset.min_len_over_n is not None
    return n + preset.min_len_over_n


def sample(config: LightsPreset | Mapping[str, Any], seq: np.random.SeedSequence) -> Draft:
    """Draw one candidate world from a preset config and one attempt's seed stream.

    N is drawn once per task (task-level stream) and kept across rejected attempts, so the
    suite's N distribution follows the preset weights instead of drifting to large N, where
    the ``min_len`` floor rejects less often.
    """
    preset = LightsPreset.of(config)
    rngs = component_rngs(seq, ["order", "conditions"])
    weights = np.asarray(preset.n_weights, dtype=float)
    n = int(rng(child(task_level_seed(seq), 0)).choice(list(preset.n_values),
                                                       p=weights / weights.sum()))
    order = [int(x) for x in rngs["order"].permutation(n)]
    conditions = make_conditions(n, order, rngs["conditions"],
                                 max_literals=preset.max_literals,
                                 p_not=float(preset.p_not), p_and=float(preset.p_and))
    budget = preset.budget
    params = {"n": n, "max_literals": preset.max_literals, "p_not": preset.p_not,
              "p_and": preset.p_and, "min_len": min_len_for(preset, n)}
    world = {"n": n, "order": order, "conditions": conditions}
    return Draft(params=params, budget=budget, public=public_view(n, budget), world=world,
                 rules_text=rules_text(conditions), rubric=LightsGame.rubric(params, world))


def accept(draft: Draft, cert: Certificate) -> str | None:
    """Return why a verified candidate is rejected, or None to accept it."""
    if not cert.solvable:
        return "unsolvable"
    min_len = draft.params.get("min_len", 0)  # imported tasks carry no sampler floor
    if cert.min_steps is None or cert.min_steps < min_len:
        return f"min_steps {cert.min_steps} < min_len {min_len}"
    if cert.min_steps > draft.budget:
        return f"min_steps {cert.min_steps} exceeds the budget {draft.budget}"
    return None
