"""Dependencies: every package ``pip install`` pulls in is imported by arena_gen, and extras too.

``Requires-Dist`` of the installed distribution (``importlib.metadata``) is compared with the
imports found in arena_gen's own source (parsed, not imported), so a dependency that no module
uses, or an extra whose package nothing imports, fails here.
"""

from __future__ import annotations

import ast
import re
from importlib.metadata import packages_distributions, requires
from pathlib import Path

import pytest
from click.testing import CliRunner

PACKAGE = Path(__file__).resolve().parent.parent / "arena_gen"
MARKER_EXTRA = re.compile(r"""extra\s*==\s*['"]([^'"]+)['"]""")


def imported_modules() -> set[str]:
    """Top-level names of every absolute import in arena_gen's modules."""
    found: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    return found


def requirements() -> dict[str | None, list[str]]:
    """Distribution names from Requires-Dist, by extra (None: the default install)."""
    out: dict[str | None, list[str]] = {}
    for line in requires("arena-gen") or []:
        name = re.split(r"[\s<>=!~;\[]", line, maxsplit=1)[0]
        extra = MARKER_EXTRA.search(line)
        out.setdefault(extra.group(1) if extra else None, []).append(name)
    return out


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def import_names(dist: str) -> set[str]:
    """The top-level modules a distribution provides (as installed here)."""
    return {mod for mod, dists in packages_distributions().items()
            if normalize(dist) in {normalize(d) for d in dists}}


def test_every_default_requirement_is_imported() -> None:
    imported = imported_modules()
    default = requirements()[None]
    assert "numpy" in default and "click" in default
    unused = [d for d in default if not import_names(d) & imported]
    assert unused == []


@pytest.mark.parametrize("extra,dist,module", [("report", "matplotlib", "matplotlib"),
                                               ("ray", "ray", "ray"),
                                               ("inspect", "inspect-ai", "inspect_ai"),
                                               ("sign", "cryptography", "cryptography")])
def test_extras_hold_what_optional_paths_import(extra: str, dist: str, module: str) -> None:
    reqs = requirements()
    assert [normalize(d) for d in reqs[extra]] == [dist]
    assert module in import_names(dist) & imported_modules()


def test_the_dev_extra_can_run_the_signing_tests() -> None:
    assert "cryptography" in {normalize(d) for d in requirements()["dev"]}
    assert "cryptography" not in {normalize(d) for d in requirements()[None]}


def test_dropped_packages_stay_out_of_the_default_install() -> None:
    default = {normalize(d) for d in requirements()[None]}
    assert not default & {"networkx", "z3-solver", "matplotlib", "ray", "inspect-ai"}


def test_report_without_matplotlib_names_the_extra(tmp_path, monkeypatch) -> None:
    """Without matplotlib the report is still written (tables, no plots) and says how to add
    the plots; what a folder that is no run gets is the run error, not a missing extra."""
    import sys

    from arena_gen.cli import main
    from arena_gen.scoring.report import plots_available

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import raises ImportError
    assert plots_available() is False
    result = CliRunner().invoke(main, ["report", str(tmp_path), "--html",
                                       str(tmp_path / "r.html")])
    assert result.exit_code == 1 and "no run.json (not a run directory)" in result.output


def test_the_verifiers_extra_is_what_its_module_imports() -> None:
    """``[verifiers]`` lives in a venv of its own (it needs openai<3, dev openai>=3.4), so this
    checks the declaration and the import without the package installed."""
    reqs = requirements()
    assert [normalize(d) for d in reqs["verifiers"]] == ["verifiers"]
    assert "verifiers" in imported_modules()
    assert not {normalize(d) for d in reqs["dev"]} & {"verifiers"}
