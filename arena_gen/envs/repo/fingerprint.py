"""The fingerprint of a repo world: its packages may be renamed.

Renaming a package everywhere it appears (the index, every table keyed by package, the module
and symbol names ``pkg1.core:fit``, the scripts, the rules and their error texts) gives the same
repository under other names, so the canonical form relabels packages: every string has each
package name (a whole identifier) replaced by its label, and every mapping becomes a sorted list
of (key, value) pairs, a multiset while labels tie. Lists keep their order (an import list's
order decides which error shows first). A near duplicate is a world equal up to renaming except
for one of its rule tables (hidden rules, consistency rules, scripts, side effects, version
conflicts), masked whole in turn.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from arena_gen.core.fingerprint import Item, Label, WorldShape, render

PACKAGE = "package"
#: The tables a near duplicate may differ in.
TABLES = ("hidden_rules", "consistency_rules", "scripts", "side_effects", "version_conflicts")


def _names(world: Mapping[str, Any]) -> list[str]:
    return sorted(world["packages"])


def items(world: Mapping[str, Any]) -> list[Item]:
    """One item per package (indexed in name order)."""
    return [(PACKAGE, i) for i in range(len(world["packages"]))]


def _renamer(world: Mapping[str, Any], labels: Mapping[Item, Label]) -> Callable[[Any], Any]:
    names = _names(world)
    new = {name: f"<{labels[(PACKAGE, i)]}>" for i, name in enumerate(names)}
    pattern = re.compile(r"(?<![\w])(" + "|".join(map(re.escape, sorted(
        names, key=len, reverse=True))) + r")(?![\w])")

    def walk(value: Any) -> Any:
        if isinstance(value, str):
            return pattern.sub(lambda m: new[m.group(1)], value)
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, dict):
            pairs = [[walk(k), walk(v)] for k, v in value.items()]
            if len({k for k, _ in pairs}) == len(pairs):  # keys apart: they alone order
                return sorted(pairs, key=lambda kv: kv[0])
            return sorted(pairs, key=render)
        return value

    return walk


def relabel(world: Mapping[str, Any], labels: Mapping[Item, Label]) -> Any:
    """The whole world with every package name replaced by its label."""
    return _renamer(world, labels)(dict(world))


def signature(world: Mapping[str, Any], item: Item, labels: Mapping[Item, Label]) -> Any:
    """What refinement sees of a package: its rows in every table keyed by package."""
    walk = _renamer(world, labels)
    name = _names(world)[item[1]]
    return [[key, walk(table[name])] for key, table in sorted(world.items())
            if isinstance(table, dict) and name in table and set(table) <= set(world["packages"])]


def near(world: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """The world with one rule table replaced by null, per table."""
    return [(table, {**world, table: None}) for table in TABLES if table in world]


SHAPE = WorldShape(items=items, relabel=relabel, signature=signature, near=near,
                   symmetry="package renaming")
