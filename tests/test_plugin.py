"""An env from outside arena-gen: a package installed with pip announces it in the
``arena_gen.envs`` entry-point group, and the CLI builds, verifies (and rebuilds), runs and
scores it with no edit of arena-gen; the released suites do not change.

The plugin is ``tests/data/plugin`` (``arena_gen_dial``), written by following
docs/adding-an-env.md. It is installed with ``pip install --target`` into a temporary folder
put on ``PYTHONPATH``, so the developer's environment is never changed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PLUGIN = Path(__file__).parent / "data" / "plugin"
BIN = Path(sys.executable).parent


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The plugin, installed by pip into a folder of its own (not the test environment)."""
    root = tmp_path_factory.mktemp("plugin")
    source = shutil.copytree(PLUGIN, root / "src")  # pip's build writes beside the sources
    target = root / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                    "--target", str(target), str(source)],
                   check=True, capture_output=True, text=True, timeout=300)
    assert list(target.glob("arena_gen_dial-*.dist-info"))
    return target


def cli(site: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(site))
    return subprocess.run([str(BIN / "arena-gen"), *args], cwd=cwd, env=env, text=True,
                          capture_output=True, timeout=600)


def python(site: Path, code: str) -> str:
    env = dict(os.environ, PYTHONPATH=str(site))
    return subprocess.run([sys.executable, "-c", code], env=env, text=True, check=True,
                          capture_output=True, timeout=120).stdout


def test_the_plugin_is_discovered_but_joins_no_released_suite(site: Path) -> None:
    out = json.loads(python(site, "import json\nfrom arena_gen.core import registry\n"
                                  "print(json.dumps([registry.names(), "
                                  "registry.suite_envs('lite'), "
                                  "registry.get('dial').package]))"))
    assert out == [["lights", "trading", "energy", "repo", "dial"],
                   ["lights", "trading", "energy", "repo"], "arena_gen_dial"]


def test_build_verify_rebuild_run_and_score_a_plugin_env(site: Path, tmp_path: Path) -> None:
    built = cli(site, "build", "--suite", "lite", "--env", "dial", "--seed", "3", "--out",
                "suite", "--no-cache", "--display", "plain", cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    lines = (tmp_path / "suite" / "dial.jsonl").read_text().splitlines()
    tasks = [json.loads(line) for line in lines]
    assert len(tasks) == 4 and all(t["env"] == "dial" for t in tasks)
    for task in tasks:  # the exact minimum on a wrapping dial, proven by the plugin's BFS
        size, target = task["world"]["size"], task["world"]["target"]
        assert task["certificate"]["min_steps"] == min(target, size - target)
        assert task["rubric"] == [{"id": "at_target",
                                   "text": "The dial shows the hidden target."}]
    verified = cli(site, "verify", "suite", "--rebuild", "--display", "plain", cwd=tmp_path)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "byte-identical" in verified.stdout
    for agent in ("oracle", "random"):
        ran = cli(site, "run", "--suite", "suite", "--agent", agent, "--out", agent,
                  "--display", "plain", cwd=tmp_path)
        assert ran.returncode == 0, ran.stderr
        scored = cli(site, "score", agent, "--display", "plain", cwd=tmp_path)
        assert scored.returncode == 0, scored.stderr
    summary = json.loads((tmp_path / "oracle" / "summary.json").read_text())
    assert summary["envs"]["dial"]["success_rate"] == 100.0
    random = json.loads((tmp_path / "random" / "summary.json").read_text())
    assert random["envs"]["dial"]["success_rate"] < 100.0


def test_a_tampered_plugin_task_fails_verify(site: Path, tmp_path: Path) -> None:
    """The plugin's tasks get the same checks as built-in ones: a renamed rubric id fails."""
    assert cli(site, "build", "--suite", "lite", "--env", "dial", "--seed", "3", "--out",
               "suite", "--no-cache", "--display", "plain", cwd=tmp_path).returncode == 0
    path = tmp_path / "suite" / "dial.jsonl"
    path.write_text(path.read_text().replace('"at_target"', '"at_goal"', 1))
    verified = cli(site, "verify", "suite", "--display", "plain", cwd=tmp_path)
    assert verified.returncode != 0
    assert "dial" in verified.stdout + verified.stderr
