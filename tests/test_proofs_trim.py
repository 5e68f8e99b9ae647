"""Trimmed proofs (#42): the backward pass keeps exactly the lemmas and deletions a refutation
uses, the checker accepts what it keeps, refuses it with its closing lemma removed, and nothing
is trimmed into a refutation of a satisfiable formula."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pysat.solvers import Solver

from arena_gen.proofs.drup import ProofError, check_refutation
from arena_gen.proofs.produce import refute
from arena_gen.proofs.trim import trim

# x1 xor x2 xor x3 is both 0 and 1 (all eight sign patterns), plus (x4 or x5), (x4 or -x5): a
# satisfiable side the refutation never needs.
PARITY = [(a * 1, b * 2, c * 3) for a in (1, -1) for b in (1, -1) for c in (1, -1)]
FORMULA = [*PARITY, (4, 5), (4, -5)]
PROOF = ["4 0", "1 2 0", "d 4 5 0", "1 -2 0", "d 4 0", "1 0", "2 0", "0"]


def lemmas(proof: list[str]) -> list[str]:
    return [line for line in proof if not line.startswith("d")]


def test_trim_drops_an_unused_lemma_and_its_deletion_and_keeps_the_rest() -> None:
    """"4" is never used: it goes, with "d 4"; the deletion of the formula's (4 5) stays."""
    trimmed = trim(5, FORMULA, PROOF)
    assert trimmed == ["1 2 0", "d 4 5 0", "1 -2 0", "1 0", "2 0", "0"]
    stats = check_refutation(5, FORMULA, trimmed)
    assert (stats.lemmas, stats.deletions, stats.ignored_deletions) == (5, 1, 0)


def test_trim_stops_at_the_first_conflict_and_ends_with_the_empty_clause() -> None:
    """Lines after the lemma that makes the formula inconsistent are not needed."""
    assert trim(5, FORMULA, [*PROOF[:-1], "3 0", "0"]) == trim(5, FORMULA, PROOF)
    assert trim(2, [(1,), (-1,)], ["2 0", "0"]) == ["0"]  # refuted by the formula's units


def test_the_checker_refuses_a_trimmed_proof_without_a_needed_lemma() -> None:
    trimmed = trim(5, FORMULA, PROOF)
    without = [line for line in trimmed if line != "2 0"]
    with pytest.raises(ProofError, match="lemma 4 does not follow"):
        check_refutation(5, FORMULA, without)


def test_trim_refuses_what_refutes_nothing() -> None:
    satisfiable = [(1, 2), (-1, 2), (1, -2)]
    with pytest.raises(ProofError, match="without a conflict"):
        trim(2, satisfiable, ["2 0"])
    with pytest.raises(ProofError, match="does not follow"):
        trim(2, satisfiable, ["2 0", "1 0", "0"])  # "1" is used and is not RUP
    with pytest.raises(ProofError, match="not a clause of the formula's variables"):
        trim(2, satisfiable, ["3 0", "0"])


small_cnf = st.lists(st.lists(st.integers(1, 6).flatmap(lambda v: st.sampled_from([v, -v])),
                              min_size=1, max_size=3), min_size=12, max_size=40)


@settings(max_examples=150, deadline=None)
@given(small_cnf)
def test_trimmed_solver_proofs_check_and_need_their_closing_lemma(cnf: list[list[int]]) -> None:
    """Random 3-CNFs over 6 variables: a satisfiable one cannot be trimmed into a refutation;
    an unsatisfiable one's trimmed proof is a subsequence of the solver's, checks, and is
    refused without the lemma that closes it (before it the kept clauses are consistent)."""
    with Solver(name="minisat22", bootstrap_with=cnf) as sat:
        satisfiable = sat.solve()
    if satisfiable:
        for proof in (["0"], ["1 0", "-1 0", "0"]):
            with pytest.raises(ProofError):
                trim(6, cnf, proof)
        return
    for solver in ("cadical195", "glucose4"):
        proof = [line.strip() for line in refute(cnf, solver)]
        trimmed = trim(6, cnf, proof)
        rest = iter(proof)
        assert all(line in rest for line in trimmed[:-1])  # in order, nothing new
        assert trimmed[-1] == "0"
        check_refutation(6, cnf, trimmed)
        kept = lemmas(trimmed)
        if len(kept) > 1:
            closing = len(trimmed) - 2
            with pytest.raises(ProofError, match="does not follow"):
                check_refutation(6, cnf, trimmed[:closing] + trimmed[closing + 1:])
