"""Bulb conditions as a JSON AST: a safe text parser and printer, and compiled evaluators.

The AST is ``{"const": bool}``, ``{"var": i}``, ``{"not": X}``, ``{"and": [X, Y]}`` and
``{"or": [X, Y]}``. Text looks like ``((B2 and not B5) or B1)`` and is what the with-rules
disclosure shows and what released OdysseyArena data contains. Parsing is a small recursive
descent over tokens: no ``eval`` of anything, ever.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np

Formula = dict[str, Any]

_TOKEN = re.compile(r"\s*(?:(\()|(\))|(B\d+)|(and|or|not|True|False)\b)")


class FormulaError(ValueError):
    """A condition text or AST is malformed."""


def tokenize(text: str) -> list[str]:
    """Split condition text into tokens, rejecting anything unexpected with its position."""
    tokens: list[str] = []
    pos = 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        if not m:
            col = pos + len(text[pos:]) - len(text[pos:].lstrip())
            raise FormulaError(f"unexpected text at column {col + 1}: {text[col:col + 12]!r}")
        tokens.append(next(g for g in m.groups() if g is not None))
        pos = m.end()
    return tokens


def parse(text: str, n: int | None = None) -> Formula:
    """Parse condition text into the AST; ``n`` bounds bulb indices when given."""
    tokens = tokenize(text)
    if not tokens:
        raise FormulaError("empty condition")
    pos = 0

    def peek() -> str | None:
        return tokens[pos] if pos < len(tokens) else None

    def take() -> str:
        nonlocal pos
        if pos >= len(tokens):
            raise FormulaError("condition ends too early")
        tok = tokens[pos]
        pos += 1
        return tok

    def expr() -> Formula:  # or-level, left-associative
        node = term()
        while peek() == "or":
            take()
            node = {"or": [node, term()]}
        return node

    def term() -> Formula:  # and-level, left-associative
        node = factor()
        while peek() == "and":
            take()
            node = {"and": [node, factor()]}
        return node

    def factor() -> Formula:
        tok = take()
        if tok == "not":
            return {"not": factor()}
        if tok == "(":
            node = expr()
            if take() != ")":
                raise FormulaError("missing ')'")
            return node
        if tok in ("True", "False"):
            return {"const": tok == "True"}
        if tok.startswith("B"):
            index = int(tok[1:])
            if n is not None and index >= n:
                raise FormulaError(f"{tok} is out of range for {n} bulbs")
            return {"var": index}
        raise FormulaError(f"unexpected {tok!r}")

    node = expr()
    if pos != len(tokens):
        raise FormulaError(f"unexpected {tokens[pos]!r} after a complete condition")
    return node


def to_text(node: Formula) -> str:
    """Render the AST as text that :func:`parse` reads back to the same AST."""
    if "const" in node:
        return "True" if node["const"] else "False"
    if "var" in node:
        return f"B{node['var']}"
    if "not" in node:
        return f"not {to_text(node['not'])}"  # and/or bodies carry their own parentheses
    op = "and" if "and" in node else "or"
    left, right = node[op]
    return f"({to_text(left)} {op} {to_text(right)})"


def variables(node: Formula) -> set[int]:
    """The bulb indices a condition reads."""
    if "var" in node:
        return {int(node["var"])}
    if "const" in node:
        return set()
    if "not" in node:
        return variables(node["not"])
    op = "and" if "and" in node else "or"
    return variables(node[op][0]) | variables(node[op][1])


def check(node: Any, n: int) -> None:
    """Raise FormulaError unless ``node`` is a well-formed AST over bulbs ``0..n-1``."""
    if not isinstance(node, dict) or len(node) != 1:
        raise FormulaError(f"a condition node is an object with one key, got {node!r}")
    (key, value), = node.items()
    if key == "const":
        if not isinstance(value, bool):
            raise FormulaError("const takes true or false")
    elif key == "var":
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < n:
            raise FormulaError(f"var must be an integer in [0, {n}), got {value!r}")
    elif key == "not":
        check(value, n)
    elif key in ("and", "or"):
        if not isinstance(value, list) or len(value) != 2:
            raise FormulaError(f"{key} takes a list of two conditions")
        check(value[0], n)
        check(value[1], n)
    else:
        raise FormulaError(f"unknown condition node {key!r}")


def compile_bits(node: Formula) -> Callable[[int], bool]:
    """Compile to a closure over an integer state bitmask (bit i = bulb i on)."""
    if "const" in node:
        value = bool(node["const"])
        return lambda s: value
    if "var" in node:
        bit = 1 << int(node["var"])
        return lambda s: bool(s & bit)
    if "not" in node:
        inner = compile_bits(node["not"])
        return lambda s: not inner(s)
    if "and" in node:
        a, b = (compile_bits(x) for x in node["and"])
        return lambda s: a(s) and b(s)
    a, b = (compile_bits(x) for x in node["or"])
    return lambda s: a(s) or b(s)


def bit_columns(states: np.ndarray, n: int) -> list[np.ndarray]:
    """Bulb i's on/off column for every state in an array of bitmasks (shared by all bulbs)."""
    return [((states >> np.uint32(v)) & np.uint32(1)).astype(bool) for v in range(n)]


def evaluate_columns(node: Formula, bits: list[np.ndarray], size: int) -> np.ndarray:
    """Evaluate on many states at once, given their bit columns; returns bools."""
    if "var" in node:
        return bits[node["var"]]
    if "const" in node:
        return np.full(size, bool(node["const"]))
    if "not" in node:
        return ~evaluate_columns(node["not"], bits, size)
    if "and" in node:
        a, b = node["and"]
        return evaluate_columns(a, bits, size) & evaluate_columns(b, bits, size)
    a, b = node["or"]
    return evaluate_columns(a, bits, size) | evaluate_columns(b, bits, size)


def evaluate_many(node: Formula, states: np.ndarray) -> np.ndarray:
    """Evaluate on an array of state bitmasks at once; returns bools."""
    n = max(variables(node), default=-1) + 1
    return evaluate_columns(node, bit_columns(states, n), states.size)
