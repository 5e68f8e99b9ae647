"""Scoring real runs end to end, and the HTML report rendered in headless Chromium."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from arena_gen.core.suite_io import write_suite
from arena_gen.generator.build import build_suite
from arena_gen.runner.run import RunConfig, run_suite, summarize
from arena_gen.scoring.report import write_report
from arena_gen.scoring.score import score_run


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("runs")
    built = build_suite("lite", 7, counts={env: 2 for env in build_suite_envs()})
    suite = write_suite(root / "suite", built.manifest, built.tasks)
    out = {}
    for agent, attempts in (("oracle", 1), ("random", 2)):
        out[agent] = run_suite(RunConfig(suite=str(suite), agent=agent, attempts=attempts,
                                         out=str(root / agent))).path
    return out


def build_suite_envs() -> list[str]:
    from arena_gen.core import registry

    return registry.names()


def test_oracle_run_scores_100_everywhere(runs: dict[str, Path]) -> None:
    summary = score_run(runs["oracle"])
    for env, metrics in summary["envs"].items():
        assert metrics["success_rate"] == 100.0, env
        assert metrics["avg_at_k"] == 100.0, env
    assert summary["overall"]["success_rate"] == 100.0
    assert (runs["oracle"] / "findings.jsonl").is_file()
    assert (runs["oracle"] / "summary.csv").read_text().startswith("env,level,")


def test_random_run_scores_match_the_runner(runs: dict[str, Path]) -> None:
    summary = score_run(runs["random"])
    from arena_gen.runner.rundir import RunDir

    counts = summarize(RunDir(runs["random"]).records())
    for env, c in counts.items():
        assert summary["envs"][env]["success_rate"] == pytest.approx(
            100 * c["success"] / c["episodes"], abs=1e-3)


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return name
    if os.environ.get("CI"):  # CI must render the report, never skip it
        pytest.fail("no Chromium in CI: .ci/run installs Debian's chromium")
    pytest.skip("no Chromium on this machine (.ci/run installs Debian's chromium)")


def test_html_report_renders_in_chromium(runs: dict[str, Path], tmp_path: Path) -> None:
    for path in runs.values():
        score_run(path)
    html = write_report([runs["oracle"], runs["random"]], tmp_path / "report.html")
    text = html.read_text()
    assert "http://" not in text and "https://" not in text  # self-contained, offline
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync"]
    with tempfile.TemporaryDirectory() as profile:
        dom = subprocess.run([chromium(), *flags, f"--user-data-dir={profile}",
                              "--virtual-time-budget=5000", "--dump-dom", html.as_uri()],
                             capture_output=True, text=True, timeout=120).stdout
    with tempfile.TemporaryDirectory() as profile:
        shot = tmp_path / "report.png"
        subprocess.run([chromium(), *flags, f"--user-data-dir={profile}",
                        "--window-size=1400,2400", f"--screenshot={shot}", html.as_uri()],
                       capture_output=True, timeout=120)
    n_envs = len(json.loads((runs["oracle"] / "summary.json").read_text())["envs"])
    plots = 4 + 2 * n_envs
    assert f'data-plots="{plots}"' in dom and f'data-plots-rendered="{plots}"' in dom
    assert f'data-table-rows="{2 * (n_envs + 1)}"' in dom
    assert shot.is_file() and shot.stat().st_size > 20_000


def test_missing_runs_are_counted_not_scored(runs: dict[str, Path], tmp_path: Path) -> None:
    copy = Path(shutil.copytree(runs["random"], tmp_path / "partial"))
    path = copy / "trajectories.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[1:]))  # the first (task, attempt) never ran
    summary = score_run(copy)
    dropped = json.loads(lines[0])
    assert summary["overall"]["missing"] == 1
    assert summary["overall"]["scored"] == len(lines) - 1
    assert summary["envs"][dropped["env"]]["missing"] == 1


def test_html_report_defines_and_marks_undefined_metrics(runs: dict[str, Path]) -> None:
    from arena_gen.scoring.definitions import definition_of, heading
    from arena_gen.scoring.report import TABLE_METRICS, build_report

    for path in runs.values():
        score_run(path)
    text = build_report([runs["oracle"], runs["random"]])
    trading = next(r for r in text.split("<tr>") if r.startswith("<td>trading</td>"))
    cells = [c.split("</td>")[0] for c in trading.split("<td>")[3:]]
    column = dict(zip(TABLE_METRICS, cells, strict=True))
    assert column["trajectory_efficiency"] == "n/a" and column["loop_ratio"] == "n/a"
    assert column["avg_at_k_profit"] != "n/a"
    assert "–" not in text  # undefined reads n/a, not a dash
    for key in TABLE_METRICS:
        assert f"<td>{heading(key)}</td>" in text, key          # the definitions table
        d = definition_of(key)
        assert d is not None and d.definition.replace("'", "&#x27;") in text, key
