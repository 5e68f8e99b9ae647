"""Importing the released OdysseyArena lights data; the ``import`` CLI; the heuristic agent."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import built_tasks, built_tasks_of

from arena_gen.cli import main
from arena_gen.core import registry
from arena_gen.core.agent import TaskView
from arena_gen.core.errors import ArenaGenError
from arena_gen.core.suite_io import read_suite
from arena_gen.envs.lights.agents.heuristic import LightsHeuristicAgent
from arena_gen.envs.lights.importer import (
    ImportFormatError,
    importer,
)
from arena_gen.envs.lights.verify import verify
from arena_gen.suite.importer import (
    MAX_ENTRIES_PER_FILE,
    ImportFileError,
    detect_env,
    import_tasks,
    meets_released_floor,
)

RELEASED = "reference-data/odyssey-arena/lights/test_turnonlights_lite_251030.json"
# Exact minima of the 30 released tasks, by idx (BFS; the SAT path agrees).
MINIMA = [8, 11, 7, 8, 8, 12, 10, 10, 9, 11, 11, 9, 9, 13, 9, 11, 15, 11, 11, 13, 9, 11, 14, 12,
          16, 12, 10, 12, 14, 10]
BELOW_FLOOR = [0, 2, 3, 4, 8, 11, 12, 14, 20]  # released tasks whose minimum is under 10


def test_released_tasks_import_with_exact_minima(shared_dir: Path) -> None:
    tasks = import_tasks("lights", [shared_dir / RELEASED])
    assert len(tasks) == 30
    assert all(t.certificate.solvable and t.certificate.method == "bfs" for t in tasks)
    minima = [t.certificate.min_steps for t in tasks]
    assert minima == MINIMA and min(minima) == 7 and max(minima) == 16
    assert [t.params["source_idx"] for t in tasks if t.certificate.min_steps < 10] == BELOW_FLOOR
    assert all(t.budget == 200 and t.params["level"] == t.world["n"] for t in tasks)
    assert tasks[0].world["order"] == [2, 5, 3, 1, 4, 0]
    assert tasks[0].rules_text.splitlines()[5] == "B5: not B2"


def test_sat_path_confirms_released_minima(shared_dir: Path) -> None:
    drafts = importer(shared_dir / RELEASED)
    for idx in (2, 16, 24, 29):
        cert = verify(drafts[idx], method="sat", bfs_prefix=0, max_conflicts=None)
        assert cert.min_steps == MINIMA[idx]


def _write(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize("data, message", [
    ({"idx": 0}, "non-empty JSON list"),
    ([{"idx": 0, "level": 2}], "no custom_logic"),
    ([{"idx": 0, "level": 3, "custom_logic": {"B0": "True", "B1": "B0"}}], "does not match"),
    ([{"idx": 0, "level": 2, "custom_logic": {"B0": "True", "B2": "B0"}}], "B0..B1"),
    ([{"idx": 0, "level": 2, "custom_logic": {"B0": "True", "B1": "__import__('os')"}}],
     "column 1"),
    ([{"idx": 0, "level": 2, "custom_logic": {"B0": "True", "B1": "B1"}}], "reads itself"),
    ([{"idx": 0, "level": 2, "custom_logic": {"B0": "True", "B1": "B7"}}], "out of range"),
    ([{"idx": 4, "level": 2, "custom_logic": {"B0": "True", "B1": "B0"}},
      {"idx": 5, "level": 2, "custom_logic": {"B0": "True", "B1": "B0"}},
      {"idx": 4, "level": 2, "custom_logic": {"B0": "True", "B1": "not B0"}}],
     r"bad.json, at \$\[2\]\.idx: idx 4 repeats \$\[0\]\.idx"),
])
def test_bad_files_are_rejected_clearly(tmp_path: Path, data: object, message: str) -> None:
    with pytest.raises(ImportFormatError, match=message):
        importer(_write(tmp_path, data))


def test_registered_importer() -> None:
    assert registry.get("lights", 1).load("importer") is importer
    assert registry.get("lights", 1).load("heuristic") is LightsHeuristicAgent
    assert registry.newest_with("lights", "importer").version == 1


def test_import_cli(shared_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "imported"
    result = CliRunner().invoke(main, ["import", "odyssey-arena", str(shared_dir / RELEASED),
                                       "--out", str(out), "--display", "plain"])
    assert result.exit_code == 0, result.output
    assert "9 lights task(s) fall below the released 10-step floor" in result.output
    assert "lights-import-0-0002" in result.output
    suite = read_suite(out)
    assert [t.certificate.min_steps for t in suite.tasks["lights"]] == MINIMA
    # plain verify re-proves the imported suite (it once crashed with KeyError: 'min_len')
    verified = CliRunner().invoke(main, ["verify", str(out), "--display", "plain"])
    assert verified.exit_code == 0 and "all certificates hold" in verified.output, verified.output


def test_import_refuses_what_verify_would_reject(tmp_path: Path) -> None:
    """An entry whose bulbs wait on each other (B0 on B1, B1 on B0) verifies honestly as
    unsolvable, which plain verify rejects: import used to write it anyway; now it writes
    nothing and names the entry."""
    cyclic = _write(tmp_path, [{"idx": 0, "level": 2, "custom_logic": {"B0": "B1", "B1": "B0"}}])
    out = tmp_path / "imported"
    result = CliRunner().invoke(main, ["import", "odyssey-arena", str(cyclic), "--out", str(out),
                                       "--display", "plain"])
    assert result.exit_code != 0
    assert ("the imported suite would not verify, so nothing was written: "
            "lights-import-0-0000: unsolvable (bad.json entry 0)") in result.output, result.output
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["bad.json"]
    # a solvable entry of the same file shape still imports, and verifies
    fine = _write(tmp_path, [{"idx": 0, "level": 2, "custom_logic": {"B0": "True", "B1": "B0"}}])
    result = CliRunner().invoke(main, ["import", "odyssey-arena", str(fine), "--out", str(out),
                                       "--display", "plain"])
    assert result.exit_code == 0, result.output
    assert CliRunner().invoke(main, ["verify", str(out), "--display", "plain"]).exit_code == 0


def test_detect_env_and_released_floor(tmp_path: Path) -> None:
    logic = {"B0": "True", "B1": "B0", "B2": "B0 and B1"}
    path = _write(tmp_path, [{"idx": 4, "level": 3, "custom_logic": logic}])
    assert detect_env(path) == "lights"
    with pytest.raises(ArenaGenError, match="no importer accepts"):
        (tmp_path / "other").mkdir()
        detect_env(_write(tmp_path / "other", [{"nothing": 1}]))
    tasks = import_tasks("lights", [path])
    assert tasks[0].certificate.min_steps == 3 and meets_released_floor(tasks[0]) is False
    assert [t.id for t in tasks if meets_released_floor(t) is False] == [tasks[0].id]
    assert meets_released_floor(built_tasks("trading", count=1)[0]) is None


def test_a_file_with_too_many_entries_is_refused_before_verifying(tmp_path: Path) -> None:
    entry = {"idx": 0, "level": 1, "custom_logic": {"B0": "True"}}
    path = _write(tmp_path, [{**entry, "idx": i} for i in range(MAX_ENTRIES_PER_FILE + 1)])
    with pytest.raises(ImportFileError, match=f"holds {MAX_ENTRIES_PER_FILE + 1} lights entries"):
        import_tasks("lights", [path])
    (tmp_path / "ok").mkdir()
    assert len(import_tasks("lights", [_write(tmp_path / "ok", [{**entry, "idx": i}
                                                                for i in range(3)])])) == 3


def test_import_cli_rejects_foreign_file(tmp_path: Path) -> None:
    path = _write(tmp_path, [{"nothing": 1}])
    result = CliRunner().invoke(main, ["import", "odyssey-arena", str(path), "--out",
                                       str(tmp_path / "o"), "--env", "lights"])
    assert result.exit_code != 0 and "custom_logic" in result.output


def _play(agent: LightsHeuristicAgent, task) -> tuple[bool, int]:  # type: ignore[no-untyped-def]
    env = registry.make_env(task)
    obs, _ = env.reset(seed=0)
    agent.reset(TaskView.of(task, "inductive"), "inductive", np.random.default_rng(0))
    steps = 0
    while True:
        obs, _, terminated, truncated, _ = env.step(agent.act(obs))
        steps += 1
        if terminated or truncated:
            return env.success, steps


def test_heuristic_agent_solves_easy_lite_tasks() -> None:
    tasks = built_tasks_of("lights", 1, count=30)
    results = [_play(LightsHeuristicAgent(), tasks[i]) for i in (5, 11, 13)]
    assert all(ok for ok, _ in results), results
    assert all(steps <= 200 for _, steps in results)
    assert not LightsHeuristicAgent.privileged


def test_heuristic_agent_never_reads_the_world() -> None:
    task = built_tasks("lights", count=1)[0]
    agent = LightsHeuristicAgent()
    view = TaskView.of(task, "inductive")
    assert view.world is None and view.rules_text is None
    agent.reset(view, "inductive", np.random.default_rng(0))
    assert agent.act("Invalid action: junk.\nState: off\nTurns left: 3") in {
        str(b) for b in range(task.world["n"])}
