"""The fingerprint of a lights world: its bulbs may be renamed.

Renaming bulbs (bulb i becomes bulb p(i), in every condition that reads it) gives the same game
with other names, so the canonical form relabels bulbs. It holds ``n`` and the conditions;
the world's ``order`` (the sampler's construction order, read by no rule) is left out, so two
worlds that differ only there are the same game and share a fingerprint. A near duplicate is a
world equal up to renaming except for one bulb's condition.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena_gen.core.fingerprint import Item, Label, WorldShape, render

BULB = "bulb"
#: What a masked condition reads as (near duplicates): no condition can look like it.
MASKED = {"masked": True}


def items(world: Mapping[str, Any]) -> list[Item]:
    """One item per bulb."""
    return [(BULB, i) for i in range(int(world["n"]))]


def rename(node: Any, labels: Mapping[Item, Label]) -> Any:
    """A condition with every bulb it reads named by its label."""
    if not isinstance(node, dict):
        return node
    if "var" in node:
        return {"var": labels[(BULB, int(node["var"]))]}
    return {key: ([rename(v, labels) for v in value] if isinstance(value, list)
                  else rename(value, labels)) for key, value in node.items()}


def relabel(world: Mapping[str, Any], labels: Mapping[Item, Label]) -> dict[str, Any]:
    """The world as (label, condition) pairs sorted by label: a multiset while labels tie."""
    pairs = [[labels[(BULB, i)], rename(c, labels)] for i, c in enumerate(world["conditions"])]
    return {"n": int(world["n"]), "conditions": sorted(pairs, key=render)}


def signature(world: Mapping[str, Any], item: Item, labels: Mapping[Item, Label]) -> Any:
    """What refinement sees of a bulb: its own condition and the conditions that read it."""
    i = item[1]
    readers = sorted((rename(c, labels) for c in world["conditions"]
                      if _reads(c, i)), key=render)
    return [rename(world["conditions"][i], labels), readers]


def _reads(node: Any, bulb: int) -> bool:
    if not isinstance(node, dict):
        return False
    if "var" in node:
        return int(node["var"]) == bulb
    return any(_reads(v, bulb) for value in node.values()
               for v in (value if isinstance(value, list) else [value]))


def near(world: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """The world with one bulb's condition masked, per bulb."""
    out = []
    for i in range(len(world["conditions"])):
        conditions = list(world["conditions"])
        conditions[i] = MASKED
        out.append(("condition", {**world, "conditions": conditions}))
    return out


SHAPE = WorldShape(items=items, relabel=relabel, signature=signature, near=near,
                   symmetry="bulb renaming (the rule-free construction order is left out)")
