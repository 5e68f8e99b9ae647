"""Strict command and specifier parsing of the repo env."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena_gen.envs.repo.common import SCRIPTS
from arena_gen.envs.repo.parse import CommandError, parse_command
from arena_gen.envs.repo.semver import SpecError, parse_spec, parse_version, satisfies, spec_text


def test_versions_are_major_minor_only() -> None:
    assert parse_version("1.2") == (1, 2)
    assert parse_version("3.10") == (3, 10)
    for bad in ("1", "1.2.3", "v1.0", "01.2", "1.", ".1", "1.a", ""):
        with pytest.raises(SpecError, match="M.m"):
            parse_version(bad)


def test_spec_clauses_and_matching() -> None:
    clauses = parse_spec(">=1.0,<2.0,!=1.1")
    assert spec_text(clauses) == ">=1.0,<2.0,!=1.1"
    assert satisfies((1, 0), clauses) and satisfies((1, 2), clauses)
    assert not satisfies((1, 1), clauses) and not satisfies((2, 0), clauses)
    for bad in ("=1.0", ">=1", ">= 1.0", "~=1.0", ">=1.0,", ""):
        with pytest.raises(SpecError):
            parse_spec(bad)


@pytest.mark.parametrize("text,kind,name", [
    ("pip install pkg1", "install", "pkg1"),
    ("  pip   install   pkg1==1.2 ", "install", "pkg1"),
    ("pip install 'pkg1>=1.0,<2.0'", "install", "pkg1"),
    ("pip install python==3.10", "python", "python"),
    ("pip uninstall pkg3", "uninstall", "pkg3"),
    ("pip list", "list", ""),
    ("pip show pkg2", "show", "pkg2"),
    ("repo tree", "tree", ""),
    ("python run.py", "run", ""),
    ("python ./core/smoke.py", "script", ""),
])
def test_valid_commands(text: str, kind: str, name: str) -> None:
    cmd = parse_command(text, SCRIPTS)
    assert (cmd.kind, cmd.name) == (kind, name)


@pytest.mark.parametrize("text,why", [
    ("", "empty command"),
    ("pip install", "needs a package name"),
    ("pip install pkg1 pkg2", "one package per command"),
    ("pip install pkg1 >= 1.0", "one package per command"),
    ("pip install pkg1==1", "M.m"),
    ("pip install pkg1=1.0", "not a clause"),
    ("pip install python>=3.9", "exact version"),
    ("pip uninstall pkg1==1.0", "bare package name"),
    ("pip uninstall", "exactly one package"),
    ("pip show", "exactly one package"),
    ("pip freeze", "Unknown command"),
    ("conda install pkg1", "Unknown command"),
    ("python other.py", "no such script"),
    ("python run.py now", "exactly one script"),
])
def test_rejections_say_why(text: str, why: str) -> None:
    with pytest.raises(CommandError, match=why):
        parse_command(text, SCRIPTS)


def test_unknown_command_has_usage_hint() -> None:
    with pytest.raises(CommandError, match="usage: pip install NAME"):
        parse_command("make all", SCRIPTS)


@given(st.text(max_size=60))
def test_parser_never_raises_anything_else(text: str) -> None:
    try:
        parse_command(text, SCRIPTS)
    except CommandError as exc:
        assert str(exc)
