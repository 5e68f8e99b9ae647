"""Lights condition parser/printer: round trips, rejection of bad text, compiled evaluation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena_gen.envs.lights.formula import (
    FormulaError,
    check,
    compile_bits,
    evaluate_many,
    parse,
    to_text,
    tokenize,
    variables,
)

N = 12


def asts(max_leaves: int = 12) -> st.SearchStrategy:
    leaf = st.one_of(st.builds(lambda v: {"var": v}, st.integers(0, N - 1)),
                     st.builds(lambda b: {"const": b}, st.booleans()))
    return st.recursive(leaf, lambda inner: st.one_of(
        st.builds(lambda x: {"not": x}, inner),
        st.builds(lambda a, b: {"and": [a, b]}, inner, inner),
        st.builds(lambda a, b: {"or": [a, b]}, inner, inner)), max_leaves=max_leaves)


def _reference(node: dict, state: int) -> bool:
    if "const" in node:
        return node["const"]
    if "var" in node:
        return bool(state >> node["var"] & 1)
    if "not" in node:
        return not _reference(node["not"], state)
    if "and" in node:
        return all(_reference(c, state) for c in node["and"])
    return any(_reference(c, state) for c in node["or"])


@settings(max_examples=300, deadline=None)
@given(asts())
def test_print_then_parse_is_identity(node: dict) -> None:
    check(node, N)
    assert parse(to_text(node), N) == node


@settings(max_examples=200, deadline=None)
@given(asts(), st.lists(st.integers(0, (1 << N) - 1), min_size=1, max_size=20))
def test_compiled_and_vectorised_match_reference(node: dict, states: list[int]) -> None:
    f = compile_bits(node)
    many = evaluate_many(node, np.asarray(states, dtype=np.uint32))
    for s, v in zip(states, many, strict=True):
        assert f(s) == _reference(node, s) == bool(v)


@settings(max_examples=100, deadline=None)
@given(asts())
def test_text_roundtrip_is_stable(node: dict) -> None:
    text = to_text(node)
    assert to_text(parse(text)) == text
    assert variables(parse(text)) == variables(node)


def test_released_style_text() -> None:
    assert parse("(((not B1 and not B3) and not B0) and B2)") == {"and": [{"and": [{"and": [
        {"not": {"var": 1}}, {"not": {"var": 3}}]}, {"not": {"var": 0}}]}, {"var": 2}]}
    assert parse("True") == {"const": True}
    assert parse("B0 and B1 or B2") == {"or": [{"and": [{"var": 0}, {"var": 1}]}, {"var": 2}]}


@pytest.mark.parametrize("text, message", [
    ("B0 + B1", "column 4"),
    ("__import__('os')", "column 1"),
    ("B0 and", "ends too early"),
    ("(B0 and B1", "ends too early"),
    ("B0 B1", "after a complete condition"),
    ("", "empty"),
    ("B12", "out of range"),
    ("(B0 and B1))", "after a complete condition"),
    ("b0", "column 1"),
])
def test_bad_text_is_rejected_with_a_reason(text: str, message: str) -> None:
    with pytest.raises(FormulaError, match=message):
        parse(text, 12)


def test_tokenize_reports_position() -> None:
    with pytest.raises(FormulaError, match="column 8"):
        tokenize("B1 and ;rm")


@pytest.mark.parametrize("bad", [{"var": -1}, {"var": True}, {"and": [{"var": 0}]},
                                 {"xor": [{"var": 0}, {"var": 1}]}, {"const": 1}, [],
                                 {"var": 0, "not": {"var": 1}}])
def test_check_rejects_malformed_ast(bad: object) -> None:
    with pytest.raises(FormulaError):
        check(bad, 4)
