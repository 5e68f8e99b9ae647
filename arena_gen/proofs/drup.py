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
    """Clauses under a top-level assignment, propagated with two watched literals. Inside,
    a literal is a code: ``2v`` for ``v`` and ``2v + 1`` for ``-v`` (so ``c ^ 1`` negates)."""

    def __init__(self, variables: int) -> None:
        self.value = [0] * (2 * variables + 2)  # per code: 1 true, -1 false, 0 unset
        self.watches: list[list[int]] = [[] for _ in range(2 * variables + 2)]
        self.clauses: list[list[int] | None] = []
        self.by_key: dict[tuple[int, ...], list[int]] = {}
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
        value, watches, clauses, trail = self.value, self.watches, self.clauses, self.trail
        while self.head < len(trail):
            false_c = trail[self.head] ^ 1
            self.head += 1
            ws = watches[false_c]
            kept = 0
            i = 0
            count = len(ws)
            while i < count:
                cid = ws[i]
                i += 1
                clause = clauses[cid]
                if clause is None:  # deleted: dropped from this list lazily
                    continue
                if clause[0] == false_c:
                    clause[0] = clause[1]
                    clause[1] = false_c
                first = clause[0]
                if value[first] == 1:
                    ws[kept] = cid
                    kept += 1
                    continue
                for k in range(2, len(clause)):
                    c = clause[k]
                    if value[c] != -1:
                        clause[1] = c
                        clause[k] = false_c
                        watches[c].append(cid)
                        break
                else:
                    ws[kept] = cid
                    kept += 1
                    if value[first] == -1:  # conflict: keep the rest, stop
                        while i < count:
                            ws[kept] = ws[i]
                            kept += 1
                            i += 1
                        del ws[kept:]
                        return False
                    value[first] = 1
                    value[first ^ 1] = -1
                    trail.append(first)
            del ws[kept:]
        return True

    def add(self, codes: list[int]) -> None:
        """Add a clause at the top level (its units propagated); an empty or conflicting one
        makes the database inconsistent."""
        if self.inconsistent:
            return
        value = self.value
        codes.sort(key=lambda c: -value[c])  # watch literals not false, true ones first
        cid = len(self.clauses)
        self.clauses.append(codes)
        self.by_key.setdefault(tuple(sorted(codes)), []).append(cid)
        if not codes or value[codes[0]] == -1:
            self.inconsistent = True
            return
        if len(codes) > 1:
            self.watches[codes[0]].append(cid)
            self.watches[codes[1]].append(cid)
        if (len(codes) == 1 or value[codes[1]] == -1) and value[codes[0]] == 0:
            self.assign(codes[0])
            if not self.propagate():
                self.inconsistent = True

    def delete(self, codes: list[int]) -> bool:
        """Take one copy of a clause out of propagation; False when there is none."""
        ids = self.by_key.get(tuple(sorted(codes)))
        if not ids:
            return False
        cid = ids.pop()
        self.held -= len(self.clauses[cid] or ())
        self.clauses[cid] = None
        return True

    def implies(self, codes: list[int]) -> bool:
        """Reverse unit propagation: assigning every literal false yields a conflict."""
        value = self.value
        if self.inconsistent or any(value[c] == 1 for c in codes):
            return True
        top = len(self.trail)
        for c in codes:
            if value[c] == 0:
                self.assign(c ^ 1)
        ok = not self.propagate()
        for c in self.trail[top:]:  # back to the top level
            value[c] = value[c ^ 1] = 0
        del self.trail[top:]
        self.head = top
        return ok


def _clause(lits: Iterable[int], variables: int, where: str) -> list[int] | None:
    """A clause as literal codes, repeated literals merged; None for a tautology."""
    out = list(dict.fromkeys(lits))
    for lit in out:
        if lit == 0 or abs(lit) > variables:
            raise ProofError(f"{where}: literal {lit} names no variable of the formula "
                             f"(it has {variables})")
    seen = set(out)
    if any(-lit in seen for lit in out):
        return None
    return [2 * lit if lit > 0 else -2 * lit + 1 for lit in out]


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
        lits = _clause(clause, variables, f"formula clause {index + 1}")
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
        lits = _clause(nums, variables, f"line {number}")
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
