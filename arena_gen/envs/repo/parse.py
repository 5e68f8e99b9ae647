"""Strict parsing of the Repo System v1 terminal commands.

The strict specifier parser of :mod:`.semver` reads the agent's ``pip install`` requirements and
the ranges stored in a world, so a range means one thing everywhere. Every rejection raises
:class:`CommandError` with a one-line reason and a usage hint; nothing is guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from arena_gen.envs.repo.semver import Clause, SpecError, parse_spec

USAGE = ("usage: pip install NAME | pip install NAME==M.m | pip install 'NAME>=M.m,<M.m' | "
         "pip install python==3.X | pip uninstall NAME | pip list | pip show NAME | repo tree | "
         "python run.py | python <script path>")

_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_\-]*")


class CommandError(ValueError):
    """A malformed command; the message says why and how to write it."""


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
    try:
        return name, (parse_spec(rest) if rest else [])
    except SpecError as exc:
        raise CommandError(str(exc)) from None


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
