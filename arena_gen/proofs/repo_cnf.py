"""A second, small encoder of the repo rules (v2-v6), written for checking proofs of minima.

It reads a task's hidden world on its own (:mod:`.repo_world`) and writes plain CNF clauses for
"a completion of at most ``steps`` commands exists". Which commands matter: a completion ends
with the first ``python run.py`` that succeeds, and every other command either changes the
state (selecting a Python, installing an exact version that is not the installed one and whose
rules pass, uninstalling an installed package) or leaves it exactly as it was (``pip list``,
``repo tree``, ``python <script>``, a failing ``python run.py``, an install that fails or asks
for the installed version, a bare install of an installed package, invalid text). An install
request of a range resolves to one version, the same as asking for that version with ``==``.
So a completion of at most ``steps`` commands exists exactly when ``steps - 1`` turns, each
one command of {a state-changing command, ``pip list``}, lead from the start (no Python,
nothing installed) to a state where ``python run.py`` succeeds. That is the formula.

Each turn takes exactly one command; a command's effect on each package (and on the Python) is
a row ``old slot -> new slot`` or "refused" (the command fails in that case: the turn cannot
take it), computed here from the world by the install rule:

- Requires-Python: a Python the bound admits must be selected;
- high priority: every declared dependency, then every side effect in order, moves its package
  (``ensure``: kept if in range else the highest in range; ``force_high``/``pin``: the highest
  in range; ``force_low``: the lowest), and a range no version meets refuses the install;
- medium priority: every declared dependency must be installed (and its range non-empty); one
  out of range moves to its highest version in range; low priority touches nothing else;
- then the new version's own conflicts are checked against the moved values; the installed
  package takes the new version, unless a high-priority move touched the package itself (the
  moved value stays).

A package no command of the turn touches keeps its value. ``python run.py`` succeeds when a
Python is selected and every check of every entrypoint passes (calls, symbol requirements of
touched installed callers, consistency rules, hidden rules in scope). No clause is there only
to help a solver. ``tests/test_proofs_repo.py`` checks one turn against the registered games
on 10,000 random (state, command) pairs and whole formulas against breadth-first minima.

Variables: per time ``t = 0..steps-1`` a block of state slots (the Python's ``P + 1`` slots,
then each package's ``V + 1``), then per turn the command variables (``pip list``, each
Python, each uninstall, each install in package and version order) followed by their ladder
("the command is one of the first ``i + 1``"), which says "at most one command" in linear
size (pairwise, a turn's 100-odd commands made two thirds of the formula and slowed the
checker).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena_gen.proofs.dimacs import dimacs, dimacs_sha256
from arena_gen.proofs.repo_world import EncodeError, Plan, World, read_world

#: Names this encoding (and the game semantics it encodes) in proof headers and manifests.
ENCODER = "repo-cnf/1"
#: Repo env versions whose transitions this encoder follows: v2's rules (v3 plays v2's game,
#: v4 and v5 change messages only, v6 plays v5's game on new worlds). v1 has other rules.
GAME_VERSIONS = frozenset({2, 3, 4, 5, 6})
MAX_STEPS = 1_000

Clause = tuple[int, ...]
Row = tuple[int | None, ...]  # new slot per old slot, None where the command is refused


@dataclass(frozen=True)
class Command:
    """A command as the formula sees it: its text and its rows (the Python is group -1)."""

    text: str
    rows: tuple[tuple[int, Row], ...]


def _move(kind: str, allowed: frozenset[int], old: int) -> int:
    """One high-priority move of a package's version index (``old`` may be "absent")."""
    if kind == "ensure" and old in allowed:
        return old
    return min(allowed) if kind == "force_low" else max(allowed)


def install_rows(world: World, p: int, v: int) -> tuple[tuple[int, Row], ...]:
    """The rows of ``pip install NAME==VERSION`` (slot ``V`` of a package: not installed)."""
    plan: Plan = world.plans[p][v]
    prio = world.priority[p]
    ranges = [a for _, a in plan.deps] + ([a for _, _, a in plan.effects] if prio == "high"
                                          else [])
    if prio == "low":
        ranges = []
    if not all(ranges):  # a range no version meets: refused whatever the state
        return ((p, (None,) * (world.absent(p) + 1)),)
    moves: dict[int, list[tuple[str, frozenset[int]]]] = {}
    if prio == "high":
        for q, a in plan.deps:
            moves.setdefault(q, []).append(("ensure", a))
        for kind, q, a in plan.effects:
            moves.setdefault(q, []).append((kind, a))
    elif prio == "medium":
        for q, a in plan.deps:
            moves.setdefault(q, []).append(("fit", a))
    needed = {q for q, _ in plan.deps} if prio == "medium" else set()
    rows: list[tuple[int, Row]] = []
    if plan.pythons is not None:
        rows.append((-1, tuple(i if i in plan.pythons else None
                               for i in range(len(world.pythons) + 1))))
    for q in sorted(set(moves) | needed | {p} | {q for q, _ in plan.conflicts}):
        absent = world.absent(q)
        row: list[int | None] = []
        for old in range(absent + 1):
            value, moved = old, False
            for kind, a in moves.get(q, []):
                if kind == "fit":  # medium: an installed dependency out of range moves
                    new = max(a) if value != absent and value not in a else value
                else:
                    new = _move(kind, a, value)
                    moved = moved or new != value
                value = new
            refused = (q in needed and old == absent) or (q == p and old == v) or any(
                value != absent and value in versions for c, versions in plan.conflicts
                if c == q)
            row.append(None if refused else (value if q != p or moved else v))
        rows.append((q, tuple(row)))
    return tuple(rows)


def commands(world: World) -> list[Command]:
    """Every command a turn may take, in variable order."""
    pys = len(world.pythons)
    out = [Command("pip list", ())]
    out += [Command("pip install python=={}.{}".format(*world.pythons[i]),
                    ((-1, (i,) * (pys + 1)),)) for i in range(pys)]
    for q, name in enumerate(world.names):
        absent = world.absent(q)
        out.append(Command(f"pip uninstall {name}",
                           ((q, tuple(absent if s != absent else None
                                      for s in range(absent + 1))),)))
    for p, name in enumerate(world.names):
        for v, version in enumerate(world.versions[p]):
            out.append(Command("pip install {}=={}.{}".format(name, *version),
                               install_rows(world, p, v)))
    return out


@dataclass(frozen=True)
class Encoding:
    """The CNF of "a completion of at most ``steps`` commands exists" for one world."""

    world: World
    steps: int
    commands: tuple[Command, ...]
    variables: int
    clauses: tuple[Clause, ...]

    @property
    def block(self) -> int:
        """Variables per state."""
        return len(self.world.pythons) + 1 + sum(len(v) + 1 for v in self.world.versions)

    def slot(self, t: int, group: int, s: int) -> int:
        """The variable "after ``t`` turns, ``group`` (-1: the Python) holds slot ``s``"."""
        base = 1 + t * self.block
        if group < 0:
            return base + s
        return base + len(self.world.pythons) + 1 + sum(
            len(v) + 1 for v in self.world.versions[:group]) + s

    def command(self, t: int, c: int) -> int:
        """The variable "turn ``t + 1`` takes command ``c``"."""
        return 1 + max(self.steps, 1) * self.block + t * (2 * len(self.commands) - 1) + c

    def ladder(self, t: int) -> list[int]:
        """Turn ``t + 1``'s variables "the command taken is one of ``0 .. i``" (``i`` below
        the last), which state "at most one command" in linear size."""
        first = self.command(t, len(self.commands))
        return list(range(first, first + len(self.commands) - 1))

    def size(self, group: int) -> int:
        """Slots of a group."""
        return len(self.world.pythons) + 1 if group < 0 else self.world.absent(group) + 1

    def dimacs(self) -> str:
        """The DIMACS text of the formula (what the proof's hash binds)."""
        return dimacs(self.variables, self.clauses)

    def sha256(self) -> str:
        return dimacs_sha256(self.variables, self.clauses)


def state_clauses(enc: Encoding, t: int) -> list[Clause]:
    """Every group holds exactly one slot after ``t`` turns."""
    out: list[Clause] = []
    for g in range(-1, len(enc.world.names)):
        lits = [enc.slot(t, g, s) for s in range(enc.size(g))]
        out.append(tuple(lits))
        out += [(-a, -b) for i, a in enumerate(lits) for b in lits[i + 1:]]
    return out


def start_clauses(enc: Encoding) -> list[Clause]:
    """No Python selected, nothing installed."""
    return [(enc.slot(0, g, enc.size(g) - 1),) for g in range(-1, len(enc.world.names))]


def at_most_one(lits: list[int], seen: list[int]) -> list[Clause]:
    """At most one of ``lits`` holds, with ``seen[i]`` read "one of ``lits[:i + 1]`` holds"."""
    out: list[Clause] = []
    for i, lit in enumerate(lits):
        if i < len(seen):
            out.append((-lit, seen[i]))
            if i + 1 < len(seen):
                out.append((-seen[i], seen[i + 1]))
        if i > 0:
            out.append((-seen[i - 1], -lit))
    return out


def turn_clauses(enc: Encoding, t: int) -> list[Clause]:
    """Turn ``t + 1``: exactly one command, its rows applied, untouched groups kept."""
    acts = [enc.command(t, c) for c in range(len(enc.commands))]
    out: list[Clause] = [tuple(acts)]
    out += at_most_one(acts, enc.ladder(t))
    writers: dict[int, list[int]] = {}
    for act, cmd in zip(acts, enc.commands, strict=True):
        for g, row in cmd.rows:
            writers.setdefault(g, []).append(act)
            for old, new in enumerate(row):
                before = enc.slot(t, g, old)
                out.append((-act, -before) if new is None else
                           (-act, -before, enc.slot(t + 1, g, new)))
    for g in range(-1, len(enc.world.names)):
        for s in range(enc.size(g)):
            out.append((-enc.slot(t, g, s), enc.slot(t + 1, g, s), *writers.get(g, [])))
    return out


def goal_clauses(enc: Encoding, t: int) -> list[Clause]:
    """``python run.py`` succeeds after ``t`` turns."""
    w = enc.world

    def at(q: int, s: int) -> int:
        return enc.slot(t, q, s)

    out: list[Clause] = [(-enc.slot(t, -1, len(w.pythons)),)]  # a Python is selected
    for call in w.calls:  # every entrypoint's calls work
        out.append(tuple(at(call.provider, s) for s in sorted(call.works)))
    for caller, version, call in w.needs:  # so do installed touched callers' requirements
        out.append((-at(caller, version), *(at(call.provider, s) for s in sorted(call.works))))
    for kind, anchor, members in w.consistency:
        for m in members:
            for a, av in enumerate(w.versions[anchor]):
                for b, mv in enumerate(w.versions[m]):
                    if mv[0] != av[0] if kind == "same_major_with_anchor" else mv != av:
                        out.append((-at(anchor, a), -at(m, b)))
    for when in w.hidden:  # some package of the rule is absent or out of its range
        out.append(tuple(at(q, s) for q, a in when for s in range(w.absent(q) + 1)
                         if s not in a))
    return out


def _clean(clauses: list[Clause]) -> list[Clause]:
    """Repeated literals merged, tautologies left out."""
    out = []
    for c in clauses:
        unique = tuple(dict.fromkeys(c))
        if not any(-lit in unique for lit in unique):
            out.append(unique)
    return out


def encode(world: Any, steps: int) -> Encoding:
    """The CNF that is satisfiable exactly when some completion takes at most ``steps``
    commands (the last one ``python run.py``)."""
    w = read_world(world)
    if type(steps) is not int or not 0 <= steps <= MAX_STEPS:
        raise EncodeError(f"steps: expected an integer in [0, {MAX_STEPS}]")
    cmds = tuple(commands(w))
    shape = Encoding(w, steps, cmds, 0, ())
    if steps == 0:  # no command at all: nothing runs
        return Encoding(w, steps, cmds, shape.block, ((),))
    turns = steps - 1
    clauses = start_clauses(shape)
    for t in range(turns + 1):
        clauses += state_clauses(shape, t)
    for t in range(turns):
        clauses += turn_clauses(shape, t)
    clauses += goal_clauses(shape, turns)
    variables = shape.command(turns, 0) - 1
    return Encoding(w, steps, cmds, variables, tuple(_clean(clauses)))
