"""Canonical JSON bytes: key order, floats, unicode, and rejection of what JSON can't carry."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena_gen.core.canon import (
    _check,
    _clean,
    canonical_bytes,
    canonical_json,
    sha256_hex,
    sha256_of,
)


def test_key_order_and_whitespace() -> None:
    assert canonical_json({"b": 1, "a": {"d": [1, 2], "c": None}}) == \
        '{"a":{"c":null,"d":[1,2]},"b":1}'


def test_floats_are_python_repr() -> None:
    assert canonical_json([0.1, 1.0, 1e-07, 2.5e20, -0.0, 1 / 3]) == \
        "[0.1,1.0,1e-07,2.5e+20,-0.0,0.3333333333333333]"


def test_unicode_is_utf8_not_escaped() -> None:
    assert canonical_bytes({"k": "é→🙂"}) == '{"k":"é→🙂"}'.encode()
    assert canonical_bytes({"é": 1, "e": 2}) == '{"e":2,"é":1}'.encode()


def test_rejects_nan_and_non_string_keys() -> None:
    with pytest.raises(ValueError, match=r"\$\.a\[1\]"):
        canonical_json({"a": [1.0, float("nan")]})
    with pytest.raises(ValueError):
        canonical_json({1: "x"})


def test_golden_hash() -> None:
    assert sha256_of({"b": [1, 2.5], "a": "x"}) == sha256_hex('{"a":"x","b":[1,2.5]}')
    assert sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(json_values)
def test_round_trip_is_stable(value: object) -> None:
    text = canonical_json(value)
    assert canonical_json(json.loads(text)) == text


class _Text(str):
    """A subclass of a plain type (walked by the slow path's ``isinstance``, not skipped)."""


class _Number(float):
    """A float subclass (checked for finiteness like a float)."""


#: JSON-like values with what JSON cannot carry mixed in (NaN, infinities, non-string keys,
#: tuples, subclasses of the plain types).
loose_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=3)
    | st.builds(_Text, st.text(max_size=3)) | st.builds(_Number, st.floats()),
    lambda inner: st.lists(inner, max_size=4) | st.lists(inner, max_size=3).map(tuple)
    | st.dictionaries(st.text(max_size=3) | st.integers() | st.none() | st.booleans(), inner,
                      max_size=4),
    max_leaves=25,
)


@given(loose_values)
def test_fast_check_agrees_with_the_named_check(value: object) -> None:
    """The path-free walk accepts exactly what the path-naming check accepts."""
    try:
        _check(value)
    except ValueError:
        accepted = False
    else:
        accepted = True
    assert _clean(value) is accepted
    if not accepted:
        with pytest.raises(ValueError) as raised:
            canonical_json(value)
        with pytest.raises(ValueError) as named:
            _check(value)
        assert str(raised.value) == str(named.value)


def test_fast_check_on_each_failure_kind() -> None:
    for bad in (float("inf"), [1, {"a": float("-inf")}], {"a": {2: 1}}, ({None: 1},),
                {"a": [_Number("nan")]}):
        assert not _clean(bad)
    for good in ({"a": [1, 2.5, None, True, _Text("x")]}, (1, "x"), {}, _Number(1.5)):
        assert _clean(good)
