"""The DIMACS text of a CNF and its hash (what a stored proof binds), for every encoder."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence


def dimacs(variables: int, clauses: Sequence[Sequence[int]]) -> str:
    """The DIMACS text of the formula (header, then one zero-terminated clause a line)."""
    lines = [f"p cnf {variables} {len(clauses)}"]
    lines += [" ".join(map(str, c)) + " 0" for c in clauses]
    return "\n".join(lines) + "\n"


def dimacs_sha256(variables: int, clauses: Sequence[Sequence[int]]) -> str:
    """The sha256 of :func:`dimacs`'s text (the ``cnf_sha256`` of a proof's manifest entry)."""
    return hashlib.sha256(dimacs(variables, clauses).encode()).hexdigest()
