"""World fingerprints: one hash per world, the same for every relabelling of it.

An env says which parts of its worlds carry arbitrary names (bulbs, stocks and factors,
packages) through a :class:`WorldShape`, registered as its spec's ``fingerprint`` part; this
module finds the canonical labelling of those items by individualisation and refinement (the
method of graph-canonisation tools, without their speed): items are coloured by what the env's
``signature`` sees around them, the colours refined to a fixed point, and where ties remain each
tied item is tried first in turn; the smallest rendering over all the leaves is the canonical
form. Two items whose swap leaves the world unchanged are tried once only, so worlds with many
interchangeable items stay cheap. The canonical form is invariant by construction: every step
depends on labels and rendered content only, never on an item's original name.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena_gen.core.canon import canonical_json, sha256_hex
from arena_gen.core.errors import ArenaGenError

#: An item of a world that may be renamed: its kind (``"bulb"``, ``"stock"``) and its index.
Item = tuple[str, int]
#: A label given to an item: a colour name while refining, a final index at a leaf.
Label = str | int
#: Leaves (complete labellings) explored before a world is declared too symmetric.
MAX_LEAVES = 20_000
#: A fingerprint's format; bump when a canonical form changes.
FINGERPRINT_VERSION = 1


@dataclass(frozen=True)
class WorldShape:
    """What an env declares about its worlds' names so they can be fingerprinted.

    ``items(world)`` lists the renameable items; ``relabel(world, labels)`` renders the world
    with every item named by its label, as JSON data that depends on the labels and the content
    only (items sharing a label must render as a multiset, not by their old position);
    ``signature(world, item, labels)`` is what refinement sees of one item (default: the whole
    world with that item marked); ``near(world)`` lists (part, the world with that part
    masked) for near-duplicate detection (the part names a kind, e.g. ``condition``, never an
    item); ``symmetry`` says in words what is renameable.
    """

    items: Callable[[Any], Sequence[Item]]
    relabel: Callable[[Any, Mapping[Item, Label]], Any]
    symmetry: str
    signature: Callable[[Any, Item, Mapping[Item, Label]], Any] | None = None
    near: Callable[[Any], Sequence[tuple[str, Any]]] = field(default=lambda world: [])


def render(data: Any) -> str:
    """Sorted-key compact JSON without canonical_json's value checks: the comparisons inside a
    canonisation run thousands of times on worlds already read from JSON."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def no_items(world: Any) -> list[Item]:
    """For worlds without renameable items (their canonical form is the world itself)."""
    return []


def as_is(world: Any, labels: Mapping[Item, Label]) -> Any:
    """The relabelling of a world without renameable items: the world unchanged."""
    return world


def _ranks(keys: Mapping[Item, Hashable]) -> dict[Item, int]:
    """Replace each item's key by the rank of that key among the distinct keys."""
    order = {k: n for n, k in enumerate(sorted(set(keys.values())))}  # type: ignore[type-var]
    return {item: order[k] for item, k in keys.items()}


class _Search:
    """One canonisation: refinement, individualisation and the smallest leaf."""

    def __init__(self, shape: WorldShape, world: Any) -> None:
        self.shape, self.world = shape, world
        self.items = list(shape.items(world))
        self.best: str | None = None
        self.leaves = 0

    def signature(self, item: Item, colours: Mapping[Item, int]) -> str:
        labels: dict[Item, Label] = {i: f"c{c}" for i, c in colours.items()}
        labels[item] = "*"
        if self.shape.signature is not None:
            return render(self.shape.signature(self.world, item, labels))
        return render(self.shape.relabel(self.world, labels))

    def refine(self, colours: dict[Item, int]) -> dict[Item, int]:
        while True:
            new = _ranks({i: (colours[i], self.signature(i, colours)) for i in self.items})
            if len(set(new.values())) == len(set(colours.values())):
                return new
            colours = new

    def render(self, labels: Mapping[Item, Label]) -> str:
        return render(self.shape.relabel(self.world, labels))

    def leaf(self, colours: Mapping[Item, int]) -> None:
        self.leaves += 1
        if self.leaves > MAX_LEAVES:
            raise ArenaGenError(f"world too symmetric to fingerprint ({MAX_LEAVES} labellings "
                                f"tried)")
        labels: dict[Item, Label] = {}
        for kind in sorted({k for k, _ in self.items}):
            mine = sorted((c, i) for i, c in colours.items() if i[0] == kind)
            labels.update({i: n for n, (_, i) in enumerate(mine)})
        text = self.render(labels)
        if self.best is None or text < self.best:
            self.best = text

    def swappable(self, a: Item, b: Item) -> bool:
        """Whether exchanging ``a`` and ``b`` leaves the world unchanged (an automorphism)."""
        ident: dict[Item, Label] = {i: n for n, i in enumerate(self.items)}
        swapped = dict(ident)
        swapped[a], swapped[b] = ident[b], ident[a]
        return self.render(ident) == self.render(swapped)

    def search(self, colours: dict[Item, int]) -> None:
        cells: dict[int, list[Item]] = {}
        for item in self.items:
            cells.setdefault(colours[item], []).append(item)
        tied = [cells[c] for c in sorted(cells) if len(cells[c]) > 1]
        if not tied:
            self.leaf(colours)
            return
        tried: list[Item] = []
        for item in tied[0]:
            if any(self.swappable(item, done) for done in tried):
                continue
            tried.append(item)
            split = {i: (c, 0 if i == item else 1) for i, c in colours.items()}
            self.search(self.refine(_ranks(split)))


def canonical_form(shape: WorldShape, world: Any) -> str:
    """The canonical JSON of a world: equal for a world and every relabelling of it."""
    search = _Search(shape, world)
    if not search.items:
        return render(shape.relabel(world, {}))
    kinds = _ranks({i: i[0] for i in search.items})
    search.search(search.refine(kinds))
    assert search.best is not None
    return search.best


def fingerprint(env: str, shape: WorldShape, world: Any) -> str:
    """The hex sha256 naming a world up to relabelling (the env's name is part of it)."""
    return sha256_hex(canonical_json({"env": env, "format": FINGERPRINT_VERSION,
                                      "world": canonical_form(shape, world)}))


def near_fingerprints(env: str, shape: WorldShape, world: Any) -> dict[str, str]:
    """The fingerprint of each masked variant of a world, with the part it masks: two worlds
    that share one but not their full fingerprint differ in that one part alone."""
    out = {}
    for part, masked in shape.near(world):
        digest = sha256_hex(canonical_json({"env": env, "format": FINGERPRINT_VERSION,
                                            "masked": part,
                                            "world": canonical_form(shape, masked)}))
        out[digest] = part
    return dict(sorted(out.items()))
