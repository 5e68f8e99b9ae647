"""The one version algebra of the repo env: readers, comparisons, ranges and their text."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena_gen.envs.repo import game_v1, game_v2
from arena_gen.envs.repo.semver import (
    OPS,
    SpecError,
    holds,
    join_spec,
    normalise,
    parse_spec,
    parse_version,
    read_version,
    satisfies,
    spec_text,
    split_spec,
    version_text,
)

versions = st.tuples(st.integers(0, 9999), st.integers(0, 9999))


def test_lenient_reader_takes_the_first_number_as_released() -> None:
    assert read_version("1.2.3") == (1, 2) and read_version("v3") == (3, 0)
    assert read_version(" ==1.10 ") == (1, 10) and read_version("01.2") == (1, 2)
    for bad in ("", "x.y", None):
        with pytest.raises(SpecError, match="no version number"):
            read_version(bad)  # type: ignore[arg-type]


@given(versions)
def test_both_readers_agree_on_canonical_text(v: tuple[int, int]) -> None:
    text = version_text(v)
    assert parse_version(text) == read_version(text) == v


@given(versions, st.sampled_from(OPS), versions)
def test_one_clause_is_tuple_comparison(v: tuple[int, int], op: str,
                                        t: tuple[int, int]) -> None:
    want = {"==": v == t, "!=": v != t, ">=": v >= t, "<=": v <= t, ">": v > t, "<": v < t}[op]
    assert holds(v, op, t) == want == satisfies(v, [(op, t)])
    assert parse_spec(spec_text([(op, t)])) == [(op, t)]


def test_unknown_operator_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown operator"):
        holds((1, 0), "~=", (1, 0))


def test_normalise_reduces_requests_as_released() -> None:
    available = [(1, 0), (1, 1), (2, 0)]
    assert normalise([("==", (1, 1)), ("==", (1, 1))], available) == [("==", (1, 1))]
    assert normalise([("==", (1, 1)), ("==", (2, 0))], available) == []
    assert normalise([("==", (3, 0))], available) == []
    # the tightest bounds win, the first-listed of equal ones (its strictness with it)
    assert normalise([(">=", (1, 0)), (">", (1, 0)), ("<", (2, 0)), ("<=", (3, 0))],
                     available) == [(">=", (1, 0)), ("<", (2, 0))]
    assert normalise([(">", (1, 0)), (">=", (1, 0)), ("<=", (2, 0))],
                     available) == [(">", (1, 0)), ("<=", (2, 0))]
    assert normalise([(">", (2, 0))], available) == []
    assert normalise([("!=", (1, 0))], available) == []  # only != : reduced to nothing


def test_world_clause_pairs_round_trip() -> None:
    assert split_spec(">=1.0,<2.10,!=1.5") == [[">=", "1.0"], ["<", "2.10"], ["!=", "1.5"]]
    assert join_spec(split_spec(">=1.0,<2.10")) == ">=1.0,<2.10"
    for bad in ("", "1.0", ">=1.0,", "~=1.0", ">=a"):
        with pytest.raises(SpecError, match="cannot read the range"):
            split_spec(bad)


def test_games_share_one_algebra() -> None:
    """Both game versions compile ranges with these functions, not copies of them."""
    assert game_v1.satisfies is game_v2.satisfies is satisfies
    assert game_v2.read_version is read_version and game_v1.parse_version is parse_version
    assert game_v1.adjust is game_v2.adjust and game_v1.RepoFacts is game_v2.RepoFacts
