"""Trimming a solver's DRUP proof to the lemmas its refutation needs (the prover's side).

A forward pass replays the proof at the top level only (clauses added and deleted, units
propagated, no lemma checked) until the formula turns inconsistent. A backward pass then marks
the clauses that final conflict uses, walks the lemmas in reverse (each one taken out again and
the top-level assignment put back as it was before it), re-derives only the marked lemmas by
reverse unit propagation, and marks the clauses each derivation uses. The stored proof keeps
the marked lemmas, the deletions of clauses it still holds, and the empty clause.

Nothing here is trusted: :func:`arena_gen.proofs.produce.prove_task` checks the trimmed proof
forward with :mod:`arena_gen.proofs.drup` before storing it, so a bug here can cost a proof,
never admit a wrong one.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena_gen.proofs.drup import ProofError

_ACTIVE, _DELETED, _GONE = 1, 0, 2  # a clause's state; a deleted one may come back (backward)


class _Replay:
    """Clauses over a top-level trail with the reason of each assignment. A literal is a code
    (``2v`` for ``v``, ``2v + 1`` for ``-v``); clause ids index ``clauses``."""

    def __init__(self, variables: int) -> None:
        size = 2 * variables + 2
        self.value = [0] * size
        self.reason = [-1] * size  # per true code: the clause that implied it, -1 for none
        self.top = bytearray(size)  # per true code: 1 when assigned at the top level
        self.seen = [0] * size  # per code: the number of the last explanation that reached it
        self.stamp = 0
        self.watches: list[list[int]] = [[] for _ in range(size)]
        self.clauses: list[list[int]] = []
        self.state = bytearray()
        self.marked = bytearray()
        self.trail: list[int] = []
        self.head = 0

    def assign(self, c: int, why: int, top: int) -> None:
        self.value[c] = 1
        self.value[c ^ 1] = -1
        self.reason[c] = why
        self.top[c] = top
        self.trail.append(c)

    def propagate(self, top: int) -> int:
        """Unit propagation from ``head``: the id of a conflicting clause, or -1."""
        value, watches, clauses, state = self.value, self.watches, self.clauses, self.state
        trail, reason, level = self.trail, self.reason, self.top
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
                st = state[cid]
                if st != _ACTIVE:
                    if st == _DELETED:  # may come back in the backward pass: keep it watched
                        ws[kept] = cid
                        kept += 1
                    continue
                clause = clauses[cid]
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
                    if value[first] == -1:
                        while i < count:
                            ws[kept] = ws[i]
                            kept += 1
                            i += 1
                        del ws[kept:]
                        return cid
                    value[first] = 1
                    value[first ^ 1] = -1
                    reason[first] = cid
                    level[first] = top
                    trail.append(first)
            del ws[kept:]
        return -1

    def add(self, codes: list[int]) -> tuple[int, int]:
        """Add a clause at the top level: its id and the id of a conflict it causes (or -1)."""
        value = self.value
        codes.sort(key=lambda c: -value[c])
        cid = len(self.clauses)
        self.clauses.append(codes)
        self.state.append(_ACTIVE)
        self.marked.append(0)
        if not codes or value[codes[0]] == -1:
            return cid, cid
        if len(codes) > 1:
            self.watches[codes[0]].append(cid)
            self.watches[codes[1]].append(cid)
        if (len(codes) == 1 or value[codes[1]] == -1) and value[codes[0]] == 0:
            self.assign(codes[0], cid, 1)
            return cid, self.propagate(1)
        return cid, -1

    def explain(self, cid: int, true_lit: int = -1) -> None:
        """Mark clause ``cid`` (or, with ``true_lit``, the reason of that literal) and,
        recursively, the reasons of the assignments it rests on."""
        self.stamp += 1
        stamp, seen, value, reason, top = self.stamp, self.seen, self.value, self.reason, self.top
        clauses, marked = self.clauses, self.marked
        stack = [cid] if true_lit < 0 else []
        if true_lit >= 0 and reason[true_lit] >= 0:
            stack.append(reason[true_lit])
        while stack:
            k = stack.pop()
            marked[k] = 1
            for c in clauses[k]:
                t = c ^ 1
                if value[t] == 1 and seen[t] != stamp and top[t] != 2:
                    seen[t] = stamp
                    if top[t]:
                        top[t] = 2  # a top-level chain is marked once while it stands
                    r = reason[t]
                    if r >= 0:
                        stack.append(r)

    def undo(self, length: int) -> None:
        """Unassign the trail back to ``length`` entries."""
        value, top = self.value, self.top
        for c in self.trail[length:]:
            value[c] = value[c ^ 1] = 0
            top[c] = 0
        del self.trail[length:]
        self.head = length

    def rederive(self, cid: int, number: int) -> None:
        """Re-derive a marked lemma by reverse unit propagation, marking what it uses."""
        codes = self.clauses[cid]
        for c in codes:
            if self.value[c] == 1:
                self.explain(-1, c)
                return
        length = len(self.trail)
        for c in codes:
            if self.value[c] == 0:
                self.assign(c ^ 1, -1, 0)
        conflict = self.propagate(0)
        if conflict < 0:
            self.undo(length)
            raise ProofError(f"line {number}: a lemma the refutation uses does not follow by "
                             f"unit propagation (not a DRUP proof)")
        self.explain(conflict)
        self.undo(length)


def _codes(nums: Sequence[int]) -> list[int] | None:
    """Literal codes, repeats merged; None for a tautology."""
    out = list(dict.fromkeys(nums))
    seen = set(out)
    if any(-lit in seen for lit in out):
        return None
    return [2 * lit if lit > 0 else -2 * lit + 1 for lit in out]


def trim(variables: int, clauses: Sequence[Sequence[int]], proof: Sequence[str]) -> list[str]:
    """The lines of ``proof`` its refutation of ``clauses`` needs, ending with the empty
    clause; ProofError when the proof does not refute them by unit propagation."""
    db = _Replay(variables)
    for clause in clauses:
        codes = _codes(clause)
        if codes is None:
            continue
        cid, conflict = db.add(codes)
        if conflict >= 0:
            return ["0"]  # the formula alone propagates to a conflict
    steps: list[tuple[int, int]] = []  # (line index, clause id), a deletion's id negated - 1
    marks: dict[int, int] = {}  # lemma id -> trail length before it was added
    by_key: dict[tuple[int, ...], list[int]] = {}
    for cid, codes in enumerate(db.clauses):
        by_key.setdefault(tuple(sorted(codes)), []).append(cid)
    originals = len(db.clauses)
    conflict = -1
    for index, line in enumerate(proof):
        text = line.strip()
        if not text or text.startswith("c"):
            continue
        deletion = text.startswith("d")
        try:
            nums = [int(w) for w in (text[1:] if deletion else text).split()]
        except ValueError:
            raise ProofError(f"line {index + 1}: not a DRUP line: {text[:60]!r}") from None
        if not nums or nums[-1] != 0 or any(abs(n) > variables for n in nums):
            raise ProofError(f"line {index + 1}: not a clause of the formula's variables")
        codes = _codes(nums[:-1])
        if codes is None:
            continue
        key = tuple(sorted(codes))
        if deletion:
            ids = by_key.get(key)
            if ids:
                cid = ids.pop()
                db.state[cid] = _DELETED
                steps.append((index, -cid - 1))
            continue
        marks[len(db.clauses)] = len(db.trail)
        cid, conflict = db.add(codes)
        by_key.setdefault(key, []).append(cid)
        steps.append((index, cid))
        if conflict >= 0:
            break
    if conflict < 0:
        raise ProofError("the proof ends without a conflict at the top level: nothing is "
                         "refuted")
    db.explain(conflict)
    for index, step in reversed(steps):
        if step < 0:
            db.state[-step - 1] = _ACTIVE
            continue
        db.state[step] = _GONE
        db.undo(marks[step])
        if db.marked[step]:
            db.rederive(step, index + 1)
    kept = [proof[index].strip() for index, step in steps
            if (step >= 0 and db.marked[step])
            or (step < 0 and (-step - 1 < originals or db.marked[-step - 1]))]
    return [*kept, "0"]
