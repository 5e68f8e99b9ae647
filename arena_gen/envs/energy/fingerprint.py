"""The fingerprint of an energy world: no renaming applies, so it is the world itself.

Energy has no relabelling symmetry: thermal, wind, solar and the battery play different roles
under their own names in the prompt (wind and solar differ in capacity, price and efficiency
pattern), and the days are ordered in time. The canonical form is the world's canonical JSON.
A near duplicate is a world equal except for one of its parts (a series such as the demand or
the budget, or a table such as the prices), masked whole in turn.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena_gen.core.fingerprint import WorldShape, as_is, no_items

#: Parts never masked: the horizon fixes every series' length, so it is not a part of its own.
FIXED = ("horizon",)


def near(world: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """The world with one top-level part replaced by null, per part."""
    return [(key, {**world, key: None}) for key in sorted(world) if key not in FIXED]


SHAPE = WorldShape(items=no_items, relabel=as_is, near=near,
                   symmetry="none (each source has its own role and name; days are ordered)")
