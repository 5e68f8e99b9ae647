"""A second, small encoder of the lights rules, written for checking proofs of minima.

It reads a task's hidden world (``{"n", "conditions"}`` as stored in the task JSON) on its own
and writes plain CNF clauses for "a completion of at most ``steps`` toggles exists": every turn
toggles exactly one bulb, a bulb flips if and only if its condition holds in the state before
the turn (otherwise nothing changes), and all bulbs are on at some turn ``1..steps``. It shares
no code with the search that finds minima (``arena_gen.envs.lights``; import-linter keeps the
two packages apart): its own world validation, formula encoding and variable numbering, and no
clause meant only to speed a solver up, so that what it says stays easy to read and to test
against the game (``tests/test_proofs_lights.py``: 10,000 random states and actions).

Variables: ``x(t, i)`` bulb ``i`` is on after ``t`` turns (``t = 0..steps``), ``a(t, i)`` turn
``t + 1`` toggles bulb ``i``, then one ``true`` variable, one ``done(t)`` per turn, then the
Tseitin variables of the conditions' ``and``/``or`` nodes, step by step, bulb by bulb.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena_gen.core.errors import ArenaGenError
from arena_gen.proofs.dimacs import dimacs, dimacs_sha256

#: Names this encoding (and the game semantics it encodes) in proof headers and manifests.
ENCODER = "lights-cnf/1"
#: Lights env versions whose game this encoder follows (every one so far plays ``game_v1``).
GAME_VERSIONS = frozenset({1, 2, 3, 4, 5, 6})
MAX_BULBS = 128  # a validation bound: v5 worlds of parts reach 45 bulbs, the frontier bench 81
MAX_NODES = 256  # per condition: released worlds use at most a dozen
MAX_STEPS = 10_000

Clause = tuple[int, ...]


class EncodeError(ArenaGenError, ValueError):
    """The world cannot be encoded; the message names the JSON path."""


@dataclass(frozen=True)
class Encoding:
    """The CNF of "a completion of at most ``steps`` toggles exists" for one world."""

    n: int
    steps: int
    variables: int
    clauses: tuple[Clause, ...]

    def state(self, t: int, bulb: int) -> int:
        """The variable "bulb is on after t turns"."""
        return 1 + t * self.n + bulb

    def action(self, t: int, bulb: int) -> int:
        """The variable "turn t + 1 toggles bulb"."""
        return 1 + (self.steps + 1) * self.n + t * self.n + bulb

    @property
    def true(self) -> int:
        """The variable fixed true (constant conditions read it)."""
        return 1 + (self.steps + 1) * self.n + self.steps * self.n

    def done(self, t: int) -> int:
        """The variable "every bulb is on after t turns" (``t = 1..steps``)."""
        return self.true + t

    def dimacs(self) -> str:
        """The DIMACS text of the formula (what the proof's hash binds)."""
        return dimacs(self.variables, self.clauses)

    def sha256(self) -> str:
        return dimacs_sha256(self.variables, self.clauses)


def _condition(node: Any, n: int, path: str, budget: list[int]) -> None:
    """Validate one condition AST (iteratively bounded in size), naming the JSON path."""
    budget[0] -= 1
    if budget[0] < 0:
        raise EncodeError(f"{path}: a condition has more than {MAX_NODES} nodes")
    if not isinstance(node, dict) or len(node) != 1:
        raise EncodeError(f"{path}: expected an object with one key")
    (key, value), = node.items()
    if key == "const":
        if not isinstance(value, bool):
            raise EncodeError(f"{path}.const: expected true or false")
    elif key == "var":
        if type(value) is not int or not 0 <= value < n:
            raise EncodeError(f"{path}.var: expected a bulb index in [0, {n})")
    elif key == "not":
        _condition(value, n, f"{path}.not", budget)
    elif key in ("and", "or"):
        if not isinstance(value, list) or len(value) != 2:
            raise EncodeError(f"{path}.{key}: expected a list of two conditions")
        for j, child in enumerate(value):
            _condition(child, n, f"{path}.{key}[{j}]", budget)
    else:
        raise EncodeError(f"{path}: unknown node {key!r}")


def read_world(world: Any) -> tuple[int, list[dict[str, Any]]]:
    """The bulb count and conditions of a task's ``world``, validated."""
    if not isinstance(world, dict):
        raise EncodeError("world: expected an object")
    n, conditions = world.get("n"), world.get("conditions")
    if type(n) is not int or not 1 <= n <= MAX_BULBS:
        raise EncodeError(f"world.n: expected an integer in [1, {MAX_BULBS}]")
    if not isinstance(conditions, list) or len(conditions) != n:
        raise EncodeError(f"world.conditions: expected a list of {n} conditions")
    for i, cond in enumerate(conditions):
        _condition(cond, n, f"world.conditions[{i}]", [MAX_NODES])
    return n, conditions


class _Builder:
    """Allocates variables after the fixed blocks and collects normalised clauses."""

    def __init__(self, first_free: int) -> None:
        self.next = first_free
        self.clauses: list[Clause] = []

    def fresh(self) -> int:
        self.next += 1
        return self.next - 1

    def add(self, *lits: int) -> None:
        """Add a clause; repeated literals merge and a tautology (l and -l) is left out."""
        unique = tuple(dict.fromkeys(lits))
        if not any(-lit in unique for lit in unique):
            self.clauses.append(unique)


def _literal(node: dict[str, Any], x: list[int], true: int, out: _Builder) -> int:
    """A literal equal to the condition in the state ``x`` (Tseitin, both directions)."""
    (key, value), = node.items()
    if key == "const":
        return true if value else -true
    if key == "var":
        return x[value]
    if key == "not":
        return -_literal(value, x, true, out)
    left = _literal(value[0], x, true, out)
    right = _literal(value[1], x, true, out)
    gate = out.fresh()
    if key == "and":  # gate <-> left & right
        out.add(-gate, left)
        out.add(-gate, right)
        out.add(gate, -left, -right)
    else:  # gate <-> left | right
        out.add(gate, -left)
        out.add(gate, -right)
        out.add(-gate, left, right)
    return gate


def encode(world: Any, steps: int) -> Encoding:
    """The CNF that is satisfiable exactly when some completion takes at most ``steps`` turns."""
    n, conditions = read_world(world)
    if type(steps) is not int or not 0 <= steps <= MAX_STEPS:
        raise EncodeError(f"steps: expected an integer in [0, {MAX_STEPS}]")
    shape = Encoding(n=n, steps=steps, variables=0, clauses=())
    true = shape.true
    done = [0] + [shape.done(t) for t in range(1, steps + 1)]  # done[0] is never used
    out = _Builder(true + steps + 1)
    out.add(true)
    for i in range(n):  # all bulbs start off
        out.add(-shape.state(0, i))
    for t in range(steps):
        x = [shape.state(t, i) for i in range(n)]
        acts = [shape.action(t, i) for i in range(n)]
        out.add(*acts)  # at least one toggle per turn ...
        for i in range(n):
            for j in range(i + 1, n):
                out.add(-acts[i], -acts[j])  # ... and at most one
        for i in range(n):
            before, after, act = x[i], shape.state(t + 1, i), acts[i]
            enabled = _literal(conditions[i], x, true, out)
            out.add(-before, after, act)  # a bulb changes only when toggled ...
            out.add(before, -after, act)
            out.add(-before, after, enabled)  # ... and only when its condition holds;
            out.add(before, -after, enabled)
            out.add(-act, -enabled, before, after)  # toggled and enabled, it flips
            out.add(-act, -enabled, -before, -after)
    for t in range(1, steps + 1):
        for i in range(n):
            out.add(-done[t], shape.state(t, i))  # done(t): every bulb on after t turns
    out.add(*done[1:])  # some turn 1..steps ends with every bulb on (empty when steps = 0)
    return Encoding(n=n, steps=steps, variables=out.next - 1, clauses=tuple(out.clauses))

