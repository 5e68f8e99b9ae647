"""Strict parsing for the Repo System env: ``M.m`` versions, specifiers and terminal commands.

The same specifier parser reads the agent's ``pip install`` requirements and the ranges stored in
a world, so a range means one thing everywhere. Every rejection raises :class:`CommandError`
with a one-line reason and a usage hint; nothing is guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

USAGE = ("usage: pip install NAME | pip install NAME==M.m | pip install 'NAME>=M.m,<M.m' | "
         "pip install python==3.X | pip uninstall NAME | pip list | pip show NAME | repo tree | "
         "python run.py | python <script path>")

OPS = ("==", ">=", "<=", "!=", ">", "<")
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_\-]*")
_VERSION = re.compile(r"(0|[1-9][0-9]{0,3})\.(0|[1-9][0-9]{0,3})")
_CLAUSE = re.compile(r"(==|>=|<=|!=|>|<)(.*)")

Version = tuple[int, int]
Clause = tuple[str, Version]


class CommandError(ValueError):
    """A malformed command; the message says why and how to write it."""


def parse_version(text: str) -> Version:
    """Parse ``M.m`` into ``(M, m)``; anything else (``1``, ``1.2.3``, ``v1.0``) is an error."""
    match = _VERSION.fullmatch(text)
    if match is None:
        raise CommandError(f"version {text[:20]!r} is not of the form M.m (e.g. 1.2)")
    return int(match.group(1)), int(match.group(2))


def version_text(version: Version) -> str:
    """Render ``(1, 2)`` as ``1.2``."""
    return f"{version[0]}.{version[1]}"


def parse_spec(text: str) -> list[Clause]:
    """Parse comma-joined clauses like ``>=1.0,<2.0`` (no spaces); an empty spec is an error."""
    if not text:
        raise CommandError("empty version specifier")
    clauses: list[Clause] = []
    for part in text.split(","):
        match = _CLAUSE.fullmatch(part)
        if match is None:
            raise CommandError(f"{part[:20]!r} is not a clause; use one of == >= <= > < != "
                               f"followed by M.m, joined by commas")
        clauses.append((match.group(1), parse_version(match.group(2))))
    return clauses


def matches(version: Version, clauses: list[Clause]) -> bool:
    """Whether a version satisfies every clause."""
    for op, bound in clauses:
        ok = {"==": version == bound, "!=": version != bound, ">=": version >= bound,
              "<=": version <= bound, ">": version > bound, "<": version < bound}[op]
        if not ok:
            return False
    return True


def spec_text(clauses: list[Clause]) -> str:
    """Render clauses back to ``>=1.0,<2.0``."""
    return ",".join(f"{op}{version_text(v)}" for op, v in clauses)


@dataclass(frozen=True)
class Command:
    """A parsed command: ``kind`` plus its package name, specifier or script path."""

    kind: str  # install | python | uninstall | list | show | tree | run | script
    name: str = ""
    spec: tuple[Clause, ...] = ()
    path: str = ""


def _requirement(token: str) -> tuple[str, list[Clause]]:
    if len(token) >= 2 and token[0] == token[-1] and token[0] in "'\"":
        token = token[1:-1]
    match = _NAME.match(token)
    if match is None:
        raise CommandError(f"{token[:30]!r} does not start with a package name; {USAGE}")
    name, rest = match.group(0), token[match.end():]
    return name, (parse_spec(rest) if rest else [])


def parse_command(text: str, scripts: tuple[str, ...]) -> Command:
    """Parse one terminal command strictly; raise CommandError naming the problem."""
    if not isinstance(text, str):
        raise CommandError(f"a command is text; {USAGE}")
    tokens = text.split()
    if not tokens:
        raise CommandError(f"empty command; {USAGE}")
    head = tokens[:2]
    if head == ["pip", "install"]:
        if len(tokens) == 2:
            raise CommandError(f"pip install needs a package name; {USAGE}")
        if len(tokens) > 3:
            raise CommandError("one package per command, written without spaces "
                               "(e.g. pip install pkg1>=1.0,<2.0)")
        name, spec = _requirement(tokens[2])
        if name == "python":
            if len(spec) != 1 or spec[0][0] != "==":
                raise CommandError("select Python with an exact version, "
                                   "e.g. pip install python==3.10")
            return Command("python", name, tuple(spec))
        return Command("install", name, tuple(spec))
    if head == ["pip", "uninstall"]:
        if len(tokens) != 3:
            raise CommandError("pip uninstall takes exactly one package name "
                               "(e.g. pip uninstall pkg1)")
        name, spec = _requirement(tokens[2])
        if spec:
            raise CommandError("pip uninstall takes a bare package name, without a version")
        return Command("uninstall", name)
    if tokens == ["pip", "list"]:
        return Command("list")
    if head == ["pip", "show"]:
        if len(tokens) != 3 or _NAME.fullmatch(tokens[2]) is None:
            raise CommandError("pip show takes exactly one package name (e.g. pip show pkg1)")
        return Command("show", tokens[2])
    if tokens == ["repo", "tree"]:
        return Command("tree")
    if tokens[0] == "python":
        if len(tokens) != 2:
            raise CommandError(f"python takes exactly one script path; {USAGE}")
        path = tokens[1].removeprefix("./")
        if path == "run.py":
            return Command("run", path=path)
        if path in scripts:
            return Command("script", path=path)
        raise CommandError(f"python: can't open file {tokens[1][:60]!r}: no such script "
                           f"(see repo tree)")
    if tokens[0] == "pip":
        raise CommandError(f"ERROR: Unknown command {' '.join(tokens[:2])[:40]!r}; {USAGE}")
    raise CommandError(f"ERROR: Unknown command {tokens[0][:40]!r}; {USAGE}")
