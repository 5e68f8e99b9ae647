"""The architecture's promises, kept by the code: layers and env independence (import-linter),
no import cycle anywhere, no string import across a package boundary, and no version of an env
importing a newer one."""

from __future__ import annotations

import graphlib
import re
import shutil
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "arena_gen"
LINT = Path(sys.executable).parent / "lint-imports"


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("arena_gen")


def lint(root: Path) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` on the package under ``root`` (the contracts of setup.cfg)."""
    return subprocess.run([str(LINT), "--config", str(root / "setup.cfg"), "--no-cache"],
                          cwd=root, env={"PYTHONPATH": str(root), "PATH": ""}, text=True,
                          capture_output=True, timeout=300)


def test_the_contracts_hold() -> None:
    result = lint(REPO)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.mark.parametrize(("module", "imported", "contract"), [
    ("core/canon.py", "arena_gen.scoring.score", "Layers"),  # core reaching up to scoring
    ("suite/build.py", "arena_gen.runner.run", "Layers"),  # suite orchestration below the runner
    ("envs/lights/sampler.py", "arena_gen.envs.trading.game_v1", "independent"),
    ("proofs/check.py", "arena_gen.envs.lights.bfs", "Layers"),  # the checker beside the search
])
def test_a_forbidden_import_breaks_a_contract(tmp_path: Path, module: str, imported: str,
                                              contract: str) -> None:
    """A copy of the package with one forbidden import added fails the linter CI runs."""
    shutil.copytree(PACKAGE, tmp_path / "arena_gen",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "setup.cfg", tmp_path / "setup.cfg")
    assert lint(tmp_path).returncode == 0  # the unedited copy holds
    with open(tmp_path / "arena_gen" / module, "a", encoding="utf-8") as fh:
        fh.write(f"\nimport {imported}  # noqa\n")
    result = lint(tmp_path)
    assert result.returncode != 0
    assert "BROKEN" in result.stdout and contract in result.stdout


def test_no_import_cycle_anywhere(graph: grimp.ImportGraph) -> None:
    """Module-level and function-level imports alike (grimp sees both)."""
    order = graphlib.TopologicalSorter(
        {m: graph.find_modules_directly_imported_by(m) for m in graph.modules})
    try:
        order.prepare()
    except graphlib.CycleError as exc:
        pytest.fail(f"import cycle: {' -> '.join(exc.args[1])}")


def test_the_cycle_check_can_fail() -> None:
    with pytest.raises(graphlib.CycleError):
        graphlib.TopologicalSorter({"a": {"b"}, "b": {"a"}}).prepare()


def _sources() -> list[tuple[Path, str]]:
    return [(p, p.read_text(encoding="utf-8")) for p in sorted(PACKAGE.rglob("*.py"))]


def test_no_string_import_crosses_a_package_boundary() -> None:
    """The only dynamic import is a Lazy part, resolved inside the package that declared it;
    no code names another module as a ``module:attr`` string."""
    dynamic = [str(p.relative_to(REPO)) for p, text in _sources()
               if re.search(r"(?<![\"'\w])(import_module|__import__|exec|eval)\(", text)]
    assert dynamic == ["arena_gen/core/registry.py"]
    registry = (PACKAGE / "core" / "registry.py").read_text(encoding="utf-8")
    assert registry.count("import_module(") == 1
    assert 'import_module(f"{self.package}.{module_name}")' in registry
    named = [(str(p.relative_to(REPO)), m) for p, text in _sources()
             for m in re.findall(r"[\"']arena_gen(?:\.\w+)+:\w+[\"']", text)]
    assert named == []


def test_generic_modules_name_no_env() -> None:
    """Outside ``arena_gen/envs/<env>/`` no code imports an env package (docstrings may use an
    env as an example)."""
    envs = {p.name for p in (PACKAGE / "envs").iterdir() if (p / "__init__.py").is_file()}
    assert envs == {"lights", "trading", "energy", "repo"}
    pattern = re.compile(r"^\s*(from|import) arena_gen\.envs\.(" + "|".join(envs) + r")\b",
                         re.M)
    offenders = [str(p.relative_to(REPO)) for p, text in _sources()
                 if not p.is_relative_to(PACKAGE / "envs") and pattern.search(text)]
    assert offenders == []


VERSIONED = re.compile(r"^arena_gen\.envs\.(\w+)\.(?:[\w.]+\.)?\w+_v(\d+)$")


def test_no_version_imports_a_newer_one(graph: grimp.ImportGraph) -> None:
    """``game_v1`` (or any ``*_v1`` module) of an env never imports that env's ``*_v2``: a
    released version is frozen, and a newer one may only build on older ones."""
    bad = []
    for module in sorted(graph.modules):
        found = VERSIONED.match(module)
        if not found:
            continue
        for imported in graph.find_modules_directly_imported_by(module):
            other = VERSIONED.match(imported)
            if other and other.group(1) == found.group(1) and int(other.group(2)) > int(
                    found.group(2)):
                bad.append(f"{module} -> {imported}")
    assert bad == []
    assert VERSIONED.match("arena_gen.envs.repo.agents.heuristic_v2").groups() == ("repo", "2")
