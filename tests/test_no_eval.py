"""No eval/exec of anything, anywhere in the package (task files are untrusted input)."""

from __future__ import annotations

import re
from pathlib import Path

import arena_gen

PACKAGE = Path(arena_gen.__file__).parent


def test_package_never_calls_eval_or_exec() -> None:
    offenders = [f"{p.relative_to(PACKAGE)}:{i}"
                 for p in PACKAGE.rglob("*.py")
                 for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
                 if re.search(r"eval\(|exec\(", line)]
    assert offenders == []
