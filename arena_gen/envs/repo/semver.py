"""Versions and version ranges of the repo env: one ``M.m`` algebra for every repo version.

The repo games, samplers, verifiers and agents all read, compare and print versions here, so a
range means one thing everywhere. A version is ``(major, minor)``, compared as a tuple; a clause
is ``(op, version)`` with ``op`` in :data:`OPS`; a range is a list of clauses that must all hold.

Version text has two readers, because the games read it differently:

* :func:`parse_version` (strict, the v1 command grammar): exactly ``M.m``, no leading zeros,
  at most four digits each; anything else raises :class:`SpecError`.
* :func:`read_version` (lenient, as in the released OdysseyArena game, v2 and v3): the first
  ``M[.m[.p]]`` number in the text, the patch ignored (``1.2.3`` is 1.2).

Worlds store ranges as text (``>=1.0,<2.0``) or as ``[op, "M.m"]`` pairs;
:func:`split_spec` and :func:`join_spec` convert between the two without reading the versions.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

Version = tuple[int, int]
Clause = tuple[str, Version]

#: Every comparison operator of a clause.
OPS = ("==", ">=", "<=", "!=", ">", "<")
_VERSION = re.compile(r"(0|[1-9][0-9]{0,3})\.(0|[1-9][0-9]{0,3})")
_NUMBER = re.compile(r"(\d+)(?:\.(\d+))?(?:\.(\d+))?")
_CLAUSE = re.compile(r"(==|>=|<=|!=|>|<)(.*)")
_CLAUSE_TEXT = re.compile(r"(==|>=|<=|!=|>|<)([\d.]+)$")


class SpecError(ValueError):
    """A malformed version or range; the message says why and how to write it."""


def parse_version(text: str) -> Version:
    """Parse ``M.m`` into ``(M, m)``; anything else (``1``, ``1.2.3``, ``v1.0``) is an error."""
    match = _VERSION.fullmatch(text)
    if match is None:
        raise SpecError(f"version {text[:20]!r} is not of the form M.m (e.g. 1.2)")
    return int(match.group(1)), int(match.group(2))


def read_version(text: str) -> Version:
    """The first ``M[.m[.p]]`` number in ``text`` as ``(M, m)`` (lenient, as released)."""
    m = _NUMBER.search((text or "").strip())
    if not m:
        raise SpecError(f"no version number in {text!r}")
    return int(m.group(1)), int(m.group(2) or 0)


def version_text(version: Version) -> str:
    """Render ``(1, 2)`` as ``1.2``."""
    return f"{version[0]}.{version[1]}"


def holds(version: Version, op: str, target: Version) -> bool:
    """Whether one clause ``op target`` holds for ``version``."""
    if op == "==":
        return version == target
    if op == "!=":
        return version != target
    if op == ">":
        return version > target
    if op == ">=":
        return version >= target
    if op == "<":
        return version < target
    if op == "<=":
        return version <= target
    raise ValueError(f"unknown operator {op!r}")


def satisfies(version: Version, clauses: list[Clause] | tuple[Clause, ...]) -> bool:
    """Whether a version satisfies every clause."""
    return all(holds(version, op, target) for op, target in clauses)


def parse_spec(text: str) -> list[Clause]:
    """Parse comma-joined clauses like ``>=1.0,<2.0`` strictly (no spaces, versions ``M.m``);
    an empty spec is an error."""
    if not text:
        raise SpecError("empty version specifier")
    clauses: list[Clause] = []
    for part in text.split(","):
        match = _CLAUSE.fullmatch(part)
        if match is None:
            raise SpecError(f"{part[:20]!r} is not a clause; use one of == >= <= > < != "
                            f"followed by M.m, joined by commas")
        clauses.append((match.group(1), parse_version(match.group(2))))
    return clauses


def spec_text(clauses: list[Clause] | tuple[Clause, ...]) -> str:
    """Render clauses back to ``>=1.0,<2.0``."""
    return ",".join(f"{op}{version_text(v)}" for op, v in clauses)


def normalise(clauses: list[Clause], available: Sequence[Version]) -> list[Clause]:
    """A request reduced as released: equalities win (all equal and available, else none);
    otherwise the first-listed tightest lower and upper bounds; [] when nothing matches."""
    equal = [t for op, t in clauses if op == "=="]
    if equal:
        return [("==", equal[0])] if all(e == equal[0] for e in equal) and \
            equal[0] in available else []
    lows = [(t, op == ">=") for op, t in clauses if op in (">=", ">")]
    ups = [(t, op == "<=") for op, t in clauses if op in ("<=", "<")]
    low = max(lows, key=lambda x: x[0]) if lows else None
    up = min(ups, key=lambda x: x[0]) if ups else None
    out: list[Clause] = []
    if low is not None:
        out.append((">=" if low[1] else ">", low[0]))
    if up is not None:
        out.append(("<=" if up[1] else "<", up[0]))
    if not any(satisfies(v, out) for v in available):
        return []
    return out


def split_spec(spec: str) -> list[list[str]]:
    """``>=1.0,<2.0`` -> ``[[">=", "1.0"], ["<", "2.0"]]`` (the world format's clause pairs)."""
    out = []
    for part in spec.split(","):
        m = _CLAUSE_TEXT.match(part)
        if m is None:
            raise SpecError(f"cannot read the range {spec!r}")
        out.append([m.group(1), m.group(2)])
    return out


def join_spec(clauses: list[list[str]]) -> str:
    """``[[">=", "1.0"], ["<", "2.0"]]`` -> ``>=1.0,<2.0``."""
    return ",".join(f"{op}{t}" for op, t in clauses)
