"""Decomposed proofs: a world split into closed parts, one refutation per part.

A partition of a world's bulbs is *closed* when every bulb's condition reads only bulbs of its
own part (:func:`check_closed`, written here on its own: it shares no code with the generator or
the verifier that found the parts). For a closed partition, the toggles of one part's bulbs in
any completion, taken alone, are a completion of that part played as a world of its own (a
toggle of part P sees only P's bulbs, and toggles of other parts never change them). So if part
P, as its own world (:func:`sub_world`), has no completion of at most ``k_P - 1`` turns (a
DRUP refutation of the second encoder's formula), every completion spends at least ``k_P``
turns on P, and at least ``sum k_P`` in all. A checked decomposed proof whose ``k_P`` sum to
the certificate's minimum is therefore a proof that no shorter completion exists.
"""

from __future__ import annotations

from typing import Any

from arena_gen.proofs.drup import ProofError


def _reads(node: Any, out: set[int]) -> set[int]:
    """The bulbs a (validated) condition AST reads."""
    stack = [node]
    while stack:
        (key, value), = stack.pop().items()
        if key == "var":
            out.add(int(value))
        elif key == "not":
            stack.append(value)
        elif key in ("and", "or"):
            stack.extend(value)
    return out


def read_parts(value: Any, n: int, where: str, key: str = "bulbs") -> list[tuple[list[int], int]]:
    """The parts a manifest entry lists (``[{"bulbs": [...], "min_steps": k}, ...]``; repo's
    list ``packages``) with their minima, each field's type checked and the members a
    partition of ``0..n-1``."""
    if not isinstance(value, list) or not value:
        raise ProofError(f"{where}: expected a non-empty list of parts")
    out: list[tuple[list[int], int]] = []
    seen: set[int] = set()
    for i, part in enumerate(value):
        here = f"{where}[{i}]"
        if not isinstance(part, dict):
            raise ProofError(f"{here}: expected an object")
        bulbs, k = part.get(key), part.get("min_steps")
        if not isinstance(bulbs, list) or not bulbs \
                or not all(type(b) is int and 0 <= b < n for b in bulbs):
            raise ProofError(f"{here}.{key}: expected a non-empty list of {key} in [0, {n})")
        if type(k) is not int or k < 1:
            raise ProofError(f"{here}.min_steps: expected a positive integer")
        if seen & set(bulbs) or len(set(bulbs)) != len(bulbs):
            raise ProofError(f"{here}.{key}: listed twice: not a partition")
        seen |= set(bulbs)
        out.append((list(bulbs), k))
    if len(seen) != n:
        raise ProofError(f"{where}: the parts cover {len(seen)} of {n} {key}: not a partition")
    return out


def check_closed(conditions: list[Any], bulbs_of: list[list[int]]) -> None:
    """Refuse a partition some condition crosses (naming the bulb and what it reads)."""
    part_of = {b: i for i, bulbs in enumerate(bulbs_of) for b in bulbs}
    for bulb, cond in enumerate(conditions):
        for read in sorted(_reads(cond, set())):
            if part_of.get(read) != part_of[bulb]:
                raise ProofError(f"B{bulb}'s condition reads B{read}, outside its part: the "
                                 f"partition is not closed under the conditions")


def _renamed(node: Any, local: dict[int, int]) -> Any:
    (key, value), = node.items()
    if key == "var":
        return {"var": local[int(value)]}
    if key == "not":
        return {"not": _renamed(value, local)}
    if key in ("and", "or"):
        return {key: [_renamed(value[0], local), _renamed(value[1], local)]}
    return {key: value}


def sub_world(conditions: list[Any], bulbs: list[int]) -> dict[str, Any]:
    """The part as a world of its own: its i-th bulb is ``bulbs[i]`` (a closed part only)."""
    local = {b: i for i, b in enumerate(bulbs)}
    return {"n": len(bulbs), "conditions": [_renamed(conditions[b], local) for b in bulbs]}
