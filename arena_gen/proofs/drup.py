"""An independent DRUP checker: does a clausal proof refute a CNF, lemma by lemma?

Plain Python (no SAT library): every lemma must follow from the clauses before it by reverse
unit propagation (assign its literals false, propagate with two watched literals, expect a
conflict), deletions (``d ...``) take clauses out of propagation, and the proof must reach the
empty clause. Work is bounded: at most ``Limits.lines`` proof lines and ``Limits.literals``
literals held at once, and a wall-clock ``Limits.seconds``; passing one refuses the proof with
a :class:`ProofError` saying which bound and where.

Soundness notes. A deleted clause stops propagating, but a unit already derived at the top
level is kept: every clause ever added follows from the formula, so such a unit does too
(the checker can only accept less by honouring deletions, never more). A lemma naming a
variable the formula does not have is refused (RUP needs none, and it bounds memory).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from arena_gen.core.errors import ArenaGenError

Clause = Sequence[int]


class ProofError(ArenaGenError, ValueError):
    """A proof is refused; the message says why (and callers prefix the file and task)."""


@dataclass(frozen=True)
class Limits:
    """Bounds on one check: proof lines, literals held, seconds."""

    lines: int = 5_000_000
    literals: int = 20_000_000
    seconds: float = 600.0


DEFAULT_LIMITS = Limits()


@dataclass(frozen=True)
class CheckStats:
    """What a successful check went through."""

    lemmas: int
    deletions: int
    ignored_deletions: int
    seconds: float


class _Database:
    """Clauses under a top-level assignment. Inside, a literal is a code: ``2v`` for ``v`` and
    ``2v + 1`` for ``-v`` (so ``c ^ 1`` negates). Binary clauses sit in implication lists
    (no watch to move); longer ones are propagated with two watched literals, the clause lists
    themselves in the watch lists. Unit propagation reaches the same conflict or fixpoint in
    any order, so this layout changes speed, never a verdict."""

    def __init__(self, variables: int) -> None:
        size = 2 * variables + 2
        self.value = [0] * size  # per code: 1 true, -1 false, 0 unset
        #: per code c: the literals x of binary clauses (c or x), implied when c turns false
        self.binary: list[list[int]] = [[] for _ in range(size)]
        #: per code: the longer clauses watching it (a deleted one is emptied, dropped lazily)
        self.watches: list[list[list[int]]] = [[] for _ in range(size)]
        self.by_key: dict[tuple[int, ...], list[list[int]]] = {}
        self.trail: list[int] = []
        self.head = 0
        self.inconsistent = False
        self.held = 0

    def assign(self, c: int) -> None:
        self.value[c] = 1
        self.value[c ^ 1] = -1
        self.trail.append(c)

    def propagate(self) -> bool:
        """Unit propagation from ``head``; False on a conflict."""
        value, watches, trail = self.value, self.watches, self.trail
        binary = self.binary
        head = self.head
        while head < len(trail):
            false_c = trail[head] ^ 1
            head += 1
            for x in binary[false_c]:
                v = value[x]
                if v == 0:
                    value[x] = 1
                    value[x ^ 1] = -1
                    trail.append(x)
                elif v == -1:
                    self.head = head
                    return False
            ws = watches[false_c]
            if not ws:
                continue
            kept = 0
            i = 0
            count = len(ws)
            while i < count:
                clause = ws[i]
                i += 1
                if not clause:  # deleted: dropped from this list lazily
                    continue
                first = clause[0]
                if first == false_c:
                    first = clause[1]
                    if value[first] == 1:
                        ws[kept] = clause
                        kept += 1
                        continue
                    clause[0] = first
                    clause[1] = false_c
                elif value[first] == 1:
                    ws[kept] = clause
                    kept += 1
                    continue
                if len(clause) == 3:  # most clauses left: no loop to set up
                    c = clause[2]
                    moved = value[c] != -1
                    if moved:
                        clause[2] = false_c
                else:
                    moved = False
                    for k in range(2, len(clause)):
                        c = clause[k]
                        if value[c] != -1:
                            clause[k] = false_c
                            moved = True
                            break
                if moved:
                    clause[1] = c
                    watches[c].append(clause)
                    continue
                ws[kept] = clause
                kept += 1
                if value[first] == -1:  # conflict: keep the rest, stop
                    while i < count:
                        ws[kept] = ws[i]
                        kept += 1
                        i += 1
                    del ws[kept:]
                    self.head = head
                    return False
                value[first] = 1
                value[first ^ 1] = -1
                trail.append(first)
            del ws[kept:]
        self.head = head
        return True

    def add(self, codes: list[int]) -> None:
        """Add a clause at the top level (its units propagated); an empty or conflicting one
        makes the database inconsistent."""
        if self.inconsistent:
            return
        value = self.value
        key = tuple(sorted(codes))
        self.by_key.setdefault(key, []).append(codes)
        size = len(codes)
        if size == 2:
            self.binary[key[0]].append(key[1])
            self.binary[key[1]].append(key[0])
        codes.sort(key=lambda c: -value[c])  # literals not false first, true ones first
        if not codes or value[codes[0]] == -1:
            self.inconsistent = True
            return
        if size > 2:
            self.watches[codes[0]].append(codes)
            self.watches[codes[1]].append(codes)
        if (size == 1 or value[codes[1]] == -1) and value[codes[0]] == 0:
            self.assign(codes[0])
            if not self.propagate():
                self.inconsistent = True

    def delete(self, codes: list[int]) -> bool:
        """Take one copy of a clause out of propagation; False when there is none."""
        key = tuple(sorted(codes))
        copies = self.by_key.get(key)
        if not copies:
            return False
        clause = copies.pop()
        size = len(key)
        self.held -= size
        if size == 2:
            self.binary[key[0]].remove(key[1])
            self.binary[key[1]].remove(key[0])
        else:
            clause.clear()  # its watch lists drop it when next read
        return True

    def implies(self, codes: list[int]) -> bool:
        """Reverse unit propagation: assigning every literal false yields a conflict."""
        value = self.value
        if self.inconsistent:
            return True
        for c in codes:
            if value[c] == 1:
                return True
        trail = self.trail
        top = len(trail)
        for c in codes:
            if value[c] == 0:
                value[c] = -1
                value[c ^ 1] = 1
                trail.append(c ^ 1)
        ok = not self.propagate()
        for c in trail[top:]:  # back to the top level
            value[c] = value[c ^ 1] = 0
        del trail[top:]
        self.head = top
        return ok


def _clause(lits: Iterable[int], variables: int, number: int, of: str = "line") -> list[int] | None:
    """A clause as literal codes, repeated literals merged; None for a tautology. A literal
    naming no variable is refused, naming ``of`` and ``number`` (a proof line, a formula
    clause)."""
    out = list(dict.fromkeys(lits))
    if out and (max(out) > variables or min(out) < -variables or 0 in out):
        for lit in out:
            if lit == 0 or abs(lit) > variables:
                raise ProofError(f"{of} {number}: literal {lit} names no variable of the "
                                 f"formula (it has {variables})")
    if not set(out).isdisjoint([-lit for lit in out]):
        return None
    return [lit + lit if lit > 0 else 1 - lit - lit for lit in out]


def _parse(line: str, number: int) -> tuple[bool, list[int]] | None:
    """One proof line: (is a deletion, literals), or None for a comment or blank line."""
    text = line.strip()
    if not text or text.startswith("c"):
        return None
    deletion = text.startswith("d")
    words = (text[1:] if deletion else text).split()
    try:
        nums = [int(w) for w in words]
    except ValueError:
        raise ProofError(f"line {number}: not a DRUP line: {text[:60]!r}") from None
    if not nums or nums[-1] != 0 or 0 in nums[:-1]:
        raise ProofError(f"line {number}: a clause line ends with 0 and holds no other 0")
    return deletion, nums[:-1]


def check_refutation(variables: int, clauses: Iterable[Clause], proof: Iterable[str],
                     limits: Limits = DEFAULT_LIMITS) -> CheckStats:
    """Check that ``proof`` (DRUP text lines) refutes the CNF; raise ProofError if not."""
    start = time.monotonic()
    deadline = start + limits.seconds
    db = _Database(variables)
    for index, clause in enumerate(clauses):
        lits = _clause(clause, variables, index + 1, "formula clause")
        if lits is not None:
            db.held += len(lits)
            db.add(lits)
    if db.held > limits.literals:
        raise ProofError(f"the formula holds {db.held} literals, above the limit "
                         f"{limits.literals}")
    lemmas = deletions = ignored = 0
    for number, line in enumerate(proof, start=1):
        if number > limits.lines:
            raise ProofError(f"the proof has more than {limits.lines} lines (the limit)")
        if number % 256 == 0 and time.monotonic() > deadline:
            raise ProofError(f"time limit of {limits.seconds:g} s reached at line {number} "
                             f"({lemmas} lemmas checked)")
        parsed = _parse(line, number)
        if parsed is None:
            continue
        deletion, nums = parsed
        lits = _clause(nums, variables, number)
        if deletion:
            deletions += 1
            if lits is not None and not db.delete(lits):
                ignored += 1  # deleting what is not there weakens nothing
            continue
        lemmas += 1
        if lits is None:
            continue  # a tautology holds anyway
        if not db.implies(lits):
            raise ProofError(f"line {number}: lemma {lemmas} does not follow by unit "
                             f"propagation: {line.strip()[:80]!r}")
        if not lits:
            return CheckStats(lemmas=lemmas, deletions=deletions, ignored_deletions=ignored,
                              seconds=time.monotonic() - start)
        db.held += len(lits)
        if db.held > limits.literals:
            raise ProofError(f"line {number}: more than {limits.literals} literals held "
                             f"(the limit)")
        db.add(lits)
    raise ProofError("the proof ends without the empty clause: nothing is refuted")
