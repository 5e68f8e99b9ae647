"""What a new user tripped on (#41): outputs that repeated themselves, said nothing, or were
missing; each test fails on the code before its fix."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

from arena_gen.agents.human import HumanAgent
from arena_gen.agents.llm_prompts import build_messages
from arena_gen.cli import main
from arena_gen.core import registry
from arena_gen.core.episode import run_episode
from arena_gen.core.suite_io import read_task, resolve_suite
from arena_gen.envs.repo.game_v2 import ABSENT
from arena_gen.runner import run as run_module
from arena_gen.runner.run import RunConfig
from arena_gen.scoring import report_plots
from arena_gen.scoring.report_data import EnvSteps
from tests.opened_files import opened

TRADING = "reference-data/odyssey-arena/trading/test_trade_config_1.json"


def test_import_prints_no_rows_of_dashes(shared_dir: Path, tmp_path: Path) -> None:
    """A fixed-horizon env has no N, exact minimum or floor: one line, not a row of '-' per
    task."""
    result = CliRunner().invoke(main, ["import", "odyssey-arena", str(shared_dir / TRADING),
                                       "--out", str(tmp_path / "imp"), "--display", "plain"])
    assert result.exit_code == 0, result.output
    assert "trading-import-0-0000" in result.output
    for line in result.output.splitlines():
        cells = line.split()
        assert not (len(cells) > 1 and all(c == "-" for c in cells[1:])), line


def test_show_reveal_prints_the_intro_once() -> None:
    result = CliRunner().invoke(main, ["show", "lights-lite-7-0000", "--suite", "lite",
                                       "--reveal"])
    assert result.exit_code == 0, result.output
    assert result.output.count("There are 10 bulbs") == 1
    assert "State: off off" in result.output and "-- hidden world --" in result.output


@pytest.mark.parametrize("task_id", ["lights-lite-7-0000", "trading-lite-7-0000",
                                     "energy-lite-7-0000", "repo-lite-7-0000"])
def test_with_rules_prompts_do_not_call_the_rules_hidden(task_id: str) -> None:
    """The intro is stored in the task (its env version owns it), so the prompt layer rewords
    it where the rules are shown; the inductive prompt keeps it as it is."""
    task = read_task("lite", task_id)
    obs = str(registry.for_task(task).make(task).reset()[0])

    def task_part(rules: str | None) -> str:
        text = build_messages(env=task.env, public=task.public, rules_text=rules, history=[],
                              observation=obs, window=None, budget=task.budget,
                              version=task.env_version)[1]["content"]
        return text.split("## Actions")[0] + text.split("## Current observation")[1]

    told = task_part(task.rules_text)
    assert "must discover" not in told and "hidden" not in told.lower(), told
    assert str(task.public["intro"]) in task_part(None)


def test_a_player_shown_the_rules_is_not_told_they_are_hidden() -> None:
    task = read_task("lite", "lights-lite-7-0000")
    shown: list[str] = []
    plan = iter(task.certificate.witness)
    run_episode(task, HumanAgent(read=lambda prompt: next(plan), write=shown.append),
                mode="with-rules")
    text = "\n".join(shown)
    assert "Rules:" in text and "under the rules disclosed below" in text
    assert "must discover" not in text


def test_overlap_reads_only_the_envs_of_the_second_suite_it_needs(tmp_path: Path) -> None:
    stream = tmp_path / "lights"
    result = CliRunner().invoke(main, ["stream", "lights", "--level", "lite", "--seed", "7",
                                       "--count", "2", "--out", str(stream), "--jobs", "1",
                                       "--display", "none"])
    assert result.exit_code == 0, result.output
    lite = resolve_suite("lite")
    with opened() as paths:
        result = CliRunner().invoke(main, ["overlap", str(stream), "lite", "--jobs", "1",
                                           "--display", "plain"])
    assert result.exit_code == 0, result.output
    assert os.path.realpath(lite / "lights.jsonl") in paths
    for env in ("trading", "energy", "repo"):
        assert os.path.realpath(lite / f"{env}.jsonl") not in paths, env
    assert "lights" in result.output and "trading" not in result.output


@pytest.mark.parametrize(("suite", "task_id"), [("lite", "trading-lite-7-0000"),
                                                ("odyssey-lite", "trading-import-0-0000")])
def test_the_oracle_agents_normalized_profit_is_one(suite: str, task_id: str,
                                                    tmp_path: Path) -> None:
    """It divides by the profit of the witness the oracle plays (v4: the W-known planner's,
    0.74 on this task; v1: the perfect-foresight oracle's), not by another oracle's (4.20)."""
    out = tmp_path / "run"
    result = CliRunner().invoke(main, ["run", "--suite", suite, "--env", "trading", "--tasks",
                                       task_id, "--agent", "oracle", "--out", str(out),
                                       "--display", "none"])
    assert result.exit_code == 0, result.output
    result = CliRunner().invoke(main, ["score", str(out), "--display", "none"])
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["overall"]["normalized_profit"] == pytest.approx(1.0, abs=1e-5)


def test_the_resume_hint_names_the_program_as_typed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The Quickstart runs ``.venv/bin/arena-gen``; the hint must run where it is pasted."""
    real = run_module._execute

    def interrupted(pending: list[Any], cfg: RunConfig) -> Any:
        for record in real(pending, cfg):
            yield record
            raise KeyboardInterrupt

    monkeypatch.setattr(run_module, "_execute", interrupted)
    monkeypatch.setattr(sys, "argv", [".venv/bin/arena-gen", "run"])
    out = tmp_path / "run"
    result = CliRunner().invoke(main, ["run", "--suite", "lite", "--env", "lights", "--tasks",
                                       "lights-lite-7-0000", "--agent", "random", "--attempts",
                                       "2", "--out", str(out), "--display", "plain"])
    assert result.exit_code == 1, result.output
    assert "continue with: .venv/bin/arena-gen run --suite lite" in result.output


def test_sigterm_ends_a_run_like_ctrl_c(tmp_path: Path) -> None:
    """``kill`` gives the saved count and the resume command, and loses no finished episode
    (it ended silently with exit 143)."""
    out = tmp_path / "run"
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena_gen.cli", "run", "--suite", "lite", "--env", "lights",
         "--agent", "heuristic", "--attempts", "50", "--jobs", "1", "--out", str(out),
         "--display", "plain", "--heartbeat", "0"],
        cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = out / "trajectories.jsonl"
    deadline = time.monotonic() + 120
    while not (lines.is_file() and lines.read_text().count("\n") >= 2):
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()[0]
        time.sleep(0.2)
    proc.send_signal(signal.SIGTERM)
    output = proc.communicate(timeout=120)[0]
    assert proc.returncode == 1, output
    saved = len(lines.read_text().splitlines())
    assert f"interrupted: {saved} of 1500 episodes are finished and saved in {out}" in output
    assert "--resume" in output and saved >= 2


def _summary(envs: dict[str, dict[str, Any]], curve: list[float] | None = None) -> dict:
    return {"envs": envs, "curves": {env: {"evolution": curve or []} for env in envs}}


def test_bar_plots_of_all_zero_data_show_the_whole_range() -> None:
    """All-zero success used to draw on an empty 0-0.05 axis with fractional ticks."""
    zero = _summary({"lights": {"success_rate": 0.0, "success_rate_se": 0.0,
                                "token_efficiency": 0.0}})
    fig = report_plots.bar_figure(["lights"], [("run", zero)], "success_rate",
                                  "success_rate_se", "Success rate", "success (%)")
    assert fig.axes[0].get_ylim() == (0.0, 100.0)
    fig = report_plots.bar_figure(["lights"], [("run", zero)], "token_efficiency", None,
                                  "Token efficiency", "per 1M tokens")
    assert fig.axes[0].get_ylim() == (0.0, 1.0)


def test_a_single_value_histogram_and_curve_look_right() -> None:
    """Every attempt took 7 turns: '1 bin ... at 7', whole-turn ticks, room either side."""
    steps = EnvSteps("lights", [("run", [7, 7, 7])], 50)
    drawn = report_plots.steps_figure(steps)
    assert drawn is not None
    fig, hist = drawn
    assert hist.bins == 1 and "1 bin of 1 turn at 7;" in hist.caption()
    lo, hi = fig.axes[0].get_xlim()
    assert lo <= 5 and hi >= 9
    fig.canvas.draw()
    assert all(float(t).is_integer() for t in fig.axes[0].get_xticks())
    assert all(float(t).is_integer() for t in fig.axes[0].get_yticks())
    one = _summary({"lights": {}}, curve=[1.0])
    fig = report_plots.evolution_figure("lights", [("run", one)])
    fig.canvas.draw()
    assert all(float(t).is_integer() for t in fig.axes[0].get_xticks())
    assert fig.axes[0].lines[0].get_marker() == "o"


def test_a_matplotlib_that_fails_to_import_leaves_the_plots_out_said_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "run"
    result = CliRunner().invoke(main, ["run", "--suite", "lite", "--env", "lights", "--tasks",
                                       "lights-lite-7-0000", "--agent", "random", "--out",
                                       str(out), "--display", "none"])
    assert result.exit_code == 0, result.output

    def broken() -> Any:
        raise ImportError("libfreetype.so.6: cannot open shared object file")

    monkeypatch.setattr(report_plots, "_pyplot", broken)
    result = CliRunner().invoke(main, ["report", str(out), "--html", str(tmp_path / "r.html")])
    assert result.exit_code == 0, result.output
    assert result.output.count("no plots") == 1 and "libfreetype" in result.output
    page = (tmp_path / "r.html").read_text()
    assert "could not be imported" in page and "<img class='plot'" not in page


@pytest.mark.parametrize(("suite", "task_id"), [("odyssey-lite", "repo-import-0-0003"),
                                                ("lite", "repo-lite-7-0003")])
def test_repo_script_status_remembered_per_configuration_is_the_rule_itself(
        suite: str, task_id: str) -> None:
    """The facts' per-script status comes from a memo per configuration (#41: two thirds of a
    repo step on error-driven sequences); it must be what the run-time rule says, on random
    configurations as well as those the heuristic visits, and after the memo is cleared."""
    task = read_task(suite, task_id)
    game = registry.for_task(task).make_game(task)
    rng = np.random.default_rng(41)
    sizes = [len(v) for v in game.rules.versions]  # a version index per package, or ABSENT
    configs = [game.initial().installed]
    for _ in range(300):
        configs.append(tuple(ABSENT if (x := int(rng.integers(-1, n))) < 0 else x
                             for n in sizes))
    for installed in configs * 2:
        want = {p: game.script_failure(installed, p) is None for p in game.rules.entrypoints}
        assert game.scripts_ok(installed) == want
    game.__dict__["_ok_memo"].clear()
    assert game.scripts_ok(configs[1]) == {
        p: game.script_failure(configs[1], p) is None for p in game.rules.entrypoints}
