"""Import released OdysseyArena Turn On Lights data as lights drafts (parsed, never evaluated).

The released format is a JSON list of ``{"idx": i, "level": N, "custom_logic": {"B2": "True",
"B5": "not B2", ...}}``; the key order of ``custom_logic`` is the hidden DAG order. Each entry
becomes a draft exactly like the sampler's (public view, rules text, rubric), with ``params``
recording the source index and level, and the Lite budget of 200 turns. :func:`derive` gives
everything but the world and the source index from those two, for the importer and ``verify``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from arena_gen.core.bounded_io import read_import_file
from arena_gen.core.errors import ArenaGenError
from arena_gen.core.schema import loads
from arena_gen.core.task import Draft
from arena_gen.envs.lights.formula import FormulaError, parse, variables
from arena_gen.envs.lights.game_v1 import LightsGame
from arena_gen.envs.lights.sampler import public_view, rules_text

BUDGET = 200
#: The floor the released OdysseyArena lights data claims for every task's minimum length.


class ImportFormatError(ArenaGenError):
    """A file is not in the released lights format (or is malformed)."""


def _entry(item: Any, where: str) -> Draft:
    if not isinstance(item, dict) or not isinstance(item.get("custom_logic"), dict):
        raise ImportFormatError(f"{where}: not a lights entry (no custom_logic object)")
    logic: dict[str, Any] = item["custom_logic"]
    n = len(logic)
    level = item.get("level", n)
    if not isinstance(level, int) or isinstance(level, bool) or level != n:
        raise ImportFormatError(f"{where}: level {level!r} does not match {n} bulbs")
    if sorted(logic) != sorted(f"B{i}" for i in range(n)):
        raise ImportFormatError(f"{where}: bulbs must be named B0..B{n - 1}, got {list(logic)}")
    conditions: list[Any] = [None] * n
    order: list[int] = []
    for name, text in logic.items():
        if not isinstance(text, str):
            raise ImportFormatError(f"{where}: {name} condition is not text")
        try:
            cond = parse(text, n)
        except FormulaError as exc:
            raise ImportFormatError(f"{where}: {name}: {exc}") from None
        if int(name[1:]) in variables(cond):
            raise ImportFormatError(f"{where}: {name} reads itself")
        conditions[int(name[1:])] = cond
        order.append(int(name[1:]))
    world: dict[str, Any] = {"n": n, "conditions": conditions}
    seen: set[int] = set()
    for bulb in order:  # keep the released order only when it is a DAG order
        if not variables(conditions[bulb]) <= seen:
            break
        seen.add(bulb)
    else:
        world = {"n": n, "order": order, "conditions": conditions}
    return derive(world, {"source_idx": item.get("idx")})


def derive(world: Mapping[str, Any], source: Mapping[str, Any]) -> Draft:
    """The draft an imported world gives with its source facts (``source_idx``), so that
    ``verify`` re-derives an imported task's params, budget, public view, rules and rubric."""
    n = int(world["n"])
    params = {"n": n, "level": n, "source_idx": source.get("source_idx"),
              "source": "odyssey-arena"}
    return Draft(params=params, budget=BUDGET, public=public_view(n, BUDGET), world=dict(world),
                 rules_text=rules_text(world["conditions"]),
                 rubric=LightsGame.rubric(params, world))


def importer(path: Path) -> list[Draft]:
    """Parse one released lights file into drafts, in file order."""
    try:
        data = loads(read_import_file(path), file=str(path))
    except OSError as exc:
        raise ImportFormatError(f"{path}: cannot read JSON ({exc})") from None
    if not isinstance(data, list) or not data:
        raise ImportFormatError(f"{path}: not a lights file (expected a non-empty JSON list)")
    drafts = []
    for pos, item in enumerate(data):
        drafts.append(_entry(item, f"{Path(path).name}[{pos}]"))
    idxs = [d.params["source_idx"] for d in drafts]
    if any(i is not None and (not isinstance(i, int) or isinstance(i, bool)) for i in idxs):
        raise ImportFormatError(f"{path}: idx values must be integers")
    first: dict[int, int] = {}
    for pos, idx in enumerate(idxs):
        if idx is None:
            continue
        if idx in first:  # two tasks would claim one released task
            raise ImportFormatError(f"{path}, at $[{pos}].idx: idx {idx} repeats $[{first[idx]}]"
                                    f".idx (each released task has its own idx)")
        first[idx] = pos
    return drafts



