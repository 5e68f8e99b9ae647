"""The Python API (#40): docs/python-api.md's examples run as written, the names are the
CLI's own functions, and ``import arena_gen`` still loads none of them."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import arena_gen

DOC = Path(__file__).resolve().parent.parent / "docs" / "python-api.md"


def doc_code() -> str:
    """Every ``python`` code block of the page, in order, as one script."""
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert len(blocks) >= 3
    return "\n".join(blocks)


def test_the_pages_examples_run_in_a_fresh_python(tmp_path: Path) -> None:
    script = tmp_path / "examples.py"
    script.write_text(doc_code(), encoding="utf-8")
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["lights 4 50", "100.0 True"]


def test_importing_arena_gen_does_not_load_the_api() -> None:
    code = ("import sys, arena_gen\nassert 'arena_gen.api' not in sys.modules\n"
            "assert 'gymnasium' not in sys.modules\n"
            "arena_gen.load_suite\nassert 'arena_gen.api' in sys.modules\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_unknown_names_still_raise_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_thing"):
        arena_gen.no_such_thing  # noqa: B018


def test_run_refuses_a_folder_holding_a_run(tmp_path: Path) -> None:
    from arena_gen.core.errors import ArenaGenError

    kw = {"tasks": ["lights-lite-7-0000"]}
    arena_gen.run("lite", "random", tmp_path / "r", **kw)
    with pytest.raises(ArenaGenError, match="already holds a run"):
        arena_gen.run("lite", "random", tmp_path / "r", **kw)
