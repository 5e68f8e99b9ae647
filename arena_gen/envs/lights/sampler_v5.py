"""Lights v5 generation: Lite is v4's; Challenge is paper-scale worlds of independent parts.

Challenge (issue 42) asks for >= 30 bulbs, a 1,000-turn budget and an exact minimum of at
least 200 toggles that the rules *force*. A world is five parts of 7-9 bulbs; every condition
reads only bulbs of its own part, and a random relabelling of all the bulbs hides both the
parts and each part's order. Inside a part, in its hidden order, the first bulb is always
toggleable and the bulb at position ``p`` toggles only when the bulb at ``p - 1`` is on and
two of the bulbs at ``p - 2 .. p - 4`` are off (a conjunction of at most 3 literals, in the
class earlier versions draw): a ring-puzzle order with a short memory, whose minimum grows
about 1.65x per bulb (at 8 bulbs 20-100 toggles). A part whose minimum is below
``part_min_len`` or a world below ``min_len`` is rejected and redrawn from the task's stream.
The exact minimum is the sum of the parts' (:mod:`.parts`), each a BFS over at most 2^9 states.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy as np

from arena_gen.core.calibration import Calibration
from arena_gen.core.presets import Preset, PresetError, knob
from arena_gen.core.seeds import child, component_rngs, rng, task_level_seed
from arena_gen.core.task import Certificate, Draft
from arena_gen.envs.lights import sampler
from arena_gen.envs.lights.formula import Formula
from arena_gen.envs.lights.game_v1 import LightsGame
from arena_gen.envs.lights.sampler_v4 import CALIBRATION as CALIBRATION_V4
from arena_gen.envs.lights.sampler_v4 import PRESETS as PRESETS_V4
from arena_gen.envs.lights.sampler_v4 import RANDOM_EPSILON

#: How far back (in a part's order) the two negated literals of a condition are drawn from.
_LOOKBACK = 4


@dataclasses.dataclass(frozen=True)
class PartsPreset(Preset):
    """The knobs of a world of independent parts: how many parts, each part's size range, the
    floors on each part's exact minimum and on the world's, the budget."""

    count: int = knob(1, 10_000, kind=int)
    parts: int = knob(1, 8, kind=int)
    part_size: tuple[int, int] = knob(3, 12, kind=tuple)
    part_min_len: int = knob(0, 100_000, kind=int)
    min_len: int = knob(0, 100_000, kind=int)
    budget: int = knob(1, 100_000, kind=int)
    max_attempts: int = knob(1, 100_000, kind=int)

    def validate(self) -> None:
        if self.parts * self.part_size[1] > sampler.MAX_N:
            raise PresetError(f"up to {self.parts * self.part_size[1]} bulbs; at most "
                              f"{sampler.MAX_N}")
        if self.min_len > self.budget:
            raise PresetError(f"the acceptance floor {self.min_len} exceeds the budget "
                              f"{self.budget}")


#: Lite is v4's (the same worlds); Challenge is paper-scale: 5 parts of 7-9 bulbs (N 35-45),
#: every part's minimum >= 30, the world's >= 230, in 1,000 turns. Tuned so the chain learner
#: (the inductive rung) lights some worlds and not most: 4 parts of 8-9 (N 32-36, >= 200) let
#: it light 6 of seed 7's 10, 5 parts of 8 (N 40) none; here 1, 2 and 3 of seeds 7, 8 and 9.
PRESETS: dict[str, Preset] = {
    "lite": PRESETS_V4["lite"],
    "challenge": PartsPreset(count=10, parts=5, part_size=(7, 9), part_min_len=30,
                             min_len=230, budget=1000, max_attempts=2000),
}

#: Lite: v4's targets. Challenge: per-task resistance (the random bound is the best part's,
#: :func:`random_bound`) and the best inductive rung below Lite's rate.
CALIBRATION: dict[str, Calibration] = {
    "lite": CALIBRATION_V4["lite"],
    "challenge": dataclasses.replace(CALIBRATION_V4["challenge"], inductive_ceiling=0.33,
                                     random_epsilon=RANDOM_EPSILON, reject_model_free=True),
}


def _and_chain(literals: list[Formula]) -> Formula:
    node = literals[0]
    for lit in literals[1:]:
        node = {"and": [node, lit]}
    return node


def part_conditions(labels: list[int], gen: np.random.Generator) -> dict[int, Formula]:
    """The conditions of one part whose hidden order is ``labels`` (whole-world bulbs)."""
    out: dict[int, Formula] = {labels[0]: {"const": True}}
    for p in range(1, len(labels)):
        back = [q for q in range(p - 2, max(p - 1 - _LOOKBACK, -1), -1)]
        if len(back) > 2:
            back = sorted((int(q) for q in gen.choice(back, size=2, replace=False)),
                          reverse=True)
        literals: list[Formula] = [{"var": labels[p - 1]}]
        literals += [{"not": {"var": labels[q]}} for q in back]
        shuffled = [literals[int(i)] for i in gen.permutation(len(literals))]
        out[labels[p]] = _and_chain(shuffled)
    return out


def sample_parts(preset: PartsPreset, seq: np.random.SeedSequence) -> Draft:
    """One candidate world of independent parts (sizes fixed per task, as v4 fixes N)."""
    lo, hi = preset.part_size
    sizes = [int(s) for s in rng(child(task_level_seed(seq), 0)).integers(
        lo, hi + 1, size=preset.parts)]
    n = sum(sizes)
    rngs = component_rngs(seq, ["labels", "conditions"])
    labels = [int(x) for x in rngs["labels"].permutation(n)]
    conditions: dict[int, Formula] = {}
    start = 0
    for size in sizes:
        conditions.update(part_conditions(labels[start:start + size], rngs["conditions"]))
        start += size
    ordered = [conditions[b] for b in range(n)]
    params = {"n": n, "parts": preset.parts, "part_sizes": sizes,
              "part_min_len": preset.part_min_len, "min_len": preset.min_len}
    world = {"n": n, "order": labels, "conditions": ordered}
    return Draft(params=params, budget=preset.budget,
                 public=sampler.public_view(n, preset.budget), world=world,
                 rules_text=sampler.rules_text(ordered), rubric=LightsGame.rubric(params, world))


def sample(config: Preset | Mapping[str, Any], seq: np.random.SeedSequence) -> Draft:
    """A candidate: of parts where the preset has parts (Challenge), else v4's draw."""
    if "parts" in config:
        return sample_parts(PartsPreset.of(config), seq)
    return sampler.sample(config, seq)


def accept(draft: Draft, cert: Certificate) -> str | None:
    """v4's rule, and for worlds of parts each part's floor on its exact minimum."""
    reason = sampler.accept(draft, cert)
    floor = draft.params.get("part_min_len")
    if reason is None and floor is not None:
        low = [k for k in cert.facts.get("part_min_steps", ()) if k < floor]
        if low:
            return f"part_min_steps {min(low)} < part_min_len {floor}"
    return reason
