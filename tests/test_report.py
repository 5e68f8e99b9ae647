"""Scoring real runs end to end, and the HTML report rendered in headless Chromium."""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from chain_util import reseal

from arena_gen.core.calibration import rung_rates
from arena_gen.core.suite_io import write_suite
from arena_gen.runner.run import RunConfig, run_suite, summarize
from arena_gen.runner.rundir import RunDir
from arena_gen.scoring.report import write_report
from arena_gen.scoring.score import score_run
from arena_gen.suite.build import build_suite


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


@pytest.fixture(scope="module")
def ladder_runs(runs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
                ) -> Iterator[dict[str, Path]]:
    """Runs on a calibrated toy suite: every certificate carries a baseline ladder (random,
    heuristic, planner) and the manifest its calibration rates (``test_ladder``'s counter env;
    requests ``runs`` first so the Lite build does not include it)."""
    from test_ladder import calibrated_spec

    from arena_gen.core import registry

    registry.register(calibrated_spec())
    try:
        root = tmp_path_factory.mktemp("ladder")
        built = build_suite("lite", 7, ["counter"])
        suite = write_suite(root / "suite", built.manifest, built.tasks)
        out = {}
        for agent, attempts in (("oracle", 1), ("random", 2)):
            out[agent] = run_suite(RunConfig(suite=str(suite), agent=agent, attempts=attempts,
                                             out=str(root / f"counter-{agent}"))).path
            score_run(out[agent])
        yield out
    finally:
        registry.unregister("counter")


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
    counts = summarize(RunDir(runs["random"]).records())
    for env, c in counts.items():
        assert summary["envs"][env]["success_rate"] == pytest.approx(
            100 * c["success"] / c["episodes"], abs=1e-3)


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return name
    if os.environ.get("CI") or os.environ.get("ARENA_GEN_REQUIRE_CHROMIUM"):
        pytest.fail("no Chromium, and CI must render the report: .ci/run installs Debian's "
                    "chromium and sets ARENA_GEN_REQUIRE_CHROMIUM=1")
    pytest.skip("no Chromium on this machine (.ci/run installs Debian's chromium)")


FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def render(page: Path, tmp_path: Path) -> tuple[str, Path]:
    """The page's DOM after its scripts ran, and a screenshot, from headless Chromium; a
    Chromium that cannot run fails the test (never a skip)."""
    browser = chromium()
    with tempfile.TemporaryDirectory() as profile:
        done = subprocess.run([browser, *FLAGS, f"--user-data-dir={profile}",
                               "--virtual-time-budget=5000", "--dump-dom", page.as_uri()],
                              capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "</html>" in done.stdout, (
        f"Chromium could not render the report (exit {done.returncode}): {done.stderr[-800:]}")
    shot = tmp_path / "report.png"
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run([browser, *FLAGS, f"--user-data-dir={profile}",
                        "--window-size=1400,2400", f"--screenshot={shot}", page.as_uri()],
                       capture_output=True, timeout=120)
    return done.stdout, shot


def check_attr(dom: str, name: str) -> str:
    found = re.search(rf'id="render-check"[^>]*\s{name}="([^"]*)"', dom) or re.search(
        rf'\s{name}="([^"]*)"[^>]*id="render-check"', dom)
    assert found, f"render-check has no {name}"
    return found.group(1)


def test_html_report_renders_in_chromium(runs: dict[str, Path], ladder_runs: dict[str, Path],
                                         tmp_path: Path) -> None:
    from arena_gen.core.suite_io import read_suite
    from arena_gen.scoring.definitions import ATTEMPT, LADDER
    from arena_gen.scoring.report import STEPS_X, STEPS_Y

    for path in runs.values():
        score_run(path)
    order = [runs["oracle"], runs["random"], ladder_runs["oracle"], ladder_runs["random"]]
    page = write_report(order, tmp_path / "report.html")
    text = page.read_text()
    assert "http://" not in text and "https://" not in text  # self-contained, offline
    dom, shot = render(page, tmp_path)
    assert check_attr(dom, "data-done") == "yes"
    assert re.search(r'<div id="render-check" [^>]*hidden', dom)  # no debug text shown
    assert "not rendered" not in dom and "plots rendered" not in dom
    envs = sorted({*json.loads((runs["oracle"] / "summary.json").read_text())["envs"],
                   "counter"})
    plots = 4 + 2 * len(envs)
    assert check_attr(dom, "data-plots") == check_attr(dom, "data-plots-rendered") == str(plots)
    assert check_attr(dom, "data-table-rows") == str(2 * (len(envs) - 1 + 1) + 2 * 2)
    assert shot.is_file() and shot.stat().st_size > 20_000

    # Definitions beside each table: metrics, ladder, task drill-down (one source).
    assert check_attr(dom, "data-definitions") == "3"
    for d in (*LADDER.values(), *ATTEMPT.values()):
        assert html.escape(d.definition, quote=False) in dom, d.label

    # The ladder: per suite and env, each rung with its Wilson interval, beside each run; an
    # env whose certificates carry none says so.
    expected_rows = 0
    for pair in ((runs["oracle"], runs["random"]), (ladder_runs["oracle"], ladder_runs["random"])):
        suite = read_suite(RunDir(pair[0]).read_meta()["suite_path"])
        for env, tasks in suite.tasks.items():
            ladders = [t.certificate.facts["ladder"] for t in tasks
                       if "ladder" in t.certificate.facts]
            if ladders:
                expected_rows += len(rung_rates(ladders)) + len(pair)
            else:
                assert f"{env}: no baseline ladder in these certificates" in dom
    assert check_attr(dom, "data-ladder-rows") == str(expected_rows)
    suite = read_suite(RunDir(ladder_runs["oracle"]).read_meta()["suite_path"])
    rungs = suite.manifest["calibration"]["counter"]["rungs"]
    section = dom[dom.index(f'id="ladder-{suite.manifest["suite_sha256"][:12]}-counter"'):]
    section = section[:section.index("</table>")]
    for rung, row in rungs.items():
        lo, hi = row["ci95"]
        cells = (f"<td>{row['tasks_solved']} / {row['tasks']}</td><td>{row['successes']} / "
                 f"{row['attempts']}</td><td>{100 * row['rate']:.1f}</td>"
                 f"<td>[{100 * lo:.1f}, {100 * hi:.1f}]</td>")
        assert f'data-rung="{rung}"' in section and cells in section, rung
    assert {"random", "heuristic", "planner"} <= set(rungs)
    oracle_row = section[section.index('data-rung="this run: oracle (counter-oracle)"'):]
    assert oracle_row.split("</tr>")[0].count("8 / 8") == 2  # 8 tasks, 8 attempts solved
    assert "Calibration targets (suite manifest)" in dom

    # Step histograms: one per env, axes labelled, bins stated.
    hists = re.findall(r'<figure class="hist"[^>]*>', dom)
    assert len(hists) == len(envs) == int(check_attr(dom, "data-histograms"))
    for fig in hists:
        assert f'data-xlabel="{STEPS_X}"' in fig and f'data-ylabel="{STEPS_Y}"' in fig
    assert re.search(r"counter: step histogram \(x: steps \(agent turns per attempt\), "
                     r"\d+ bins of \d+ turns? from \d+ to \d+; y: attempts \(count\); "
                     r"dashed line: the turn budget \(12\)\)", dom)

    # Drill-down: one entry per task; a random attempt's steps, score and evidence.
    n_tasks = sum(len(json.loads((p / "run.json").read_text())["tasks"])
                  for p in (runs["random"], ladder_runs["random"]))
    assert check_attr(dom, "data-tasks") == str(n_tasks)
    line = json.loads((ladder_runs["random"] / "findings.jsonl").read_text().splitlines()[0])
    entry = dom[dom.index(f'<details class="task" id="task-{line["task_id"]}">'):]
    entry = entry[:entry.index("</details>")]
    record = next(r for r in RunDir(ladder_runs["random"]).records()
                  if r["task_id"] == line["task_id"] and r["attempt"] == line["attempt"])
    assert f"<td>{line['attempt']}</td><td>{record['steps']}</td>" in entry
    for finding in line["findings"]:
        assert html.escape(finding["evidence"], quote=False) in entry
    assert "Baseline ladder: random (inductive)" in entry


def test_missing_runs_are_counted_not_scored(runs: dict[str, Path], tmp_path: Path) -> None:
    copy = Path(shutil.copytree(runs["random"], tmp_path / "partial"))
    path = copy / "trajectories.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    reseal(copy, [json.loads(x) for x in lines[1:]])  # the first (task, attempt) never ran
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
    from arena_gen.scoring.report_data import build_model

    text = build_report([runs["oracle"], runs["random"]])
    keys = build_model([runs["oracle"], runs["random"]]).metric_keys
    assert keys[keys.index("pass_at_1") + 1] == "pass_at_2"   # the random run's k
    trading = next(r for r in text.split("<tr>") if r.startswith("<td>trading</td>"))
    cells = [c.split("</td>")[0] for c in trading.split("<td>")[3:]]
    column = dict(zip(keys, cells, strict=True))
    assert column["trajectory_efficiency"] == "n/a" and column["loop_ratio"] == "n/a"
    assert column["avg_at_k_profit"] != "n/a"
    assert "–" not in text  # undefined reads n/a, not a dash
    for key in TABLE_METRICS:
        assert f"<td>{heading(key)}</td>" in text, key          # the definitions table
        d = definition_of(key)
        assert d is not None and d.definition.replace("'", "&#x27;") in text, key


def test_report_templates_ship_as_package_data() -> None:
    """The page's templates are found through importlib.resources, and setup.cfg's package
    data names every file in templates/, so a non-editable install carries them."""
    import configparser
    import fnmatch
    from importlib import resources

    from arena_gen.scoring.report_html import template_text

    templates = resources.files("arena_gen.scoring") / "templates"
    names = sorted(p.name for p in templates.iterdir() if p.is_file())
    assert {"report.html", "parts.html"} <= set(names)
    assert template_text("report.html").startswith("<!doctype html>")
    config = configparser.ConfigParser()
    config.read(Path(__file__).resolve().parents[1] / "setup.cfg")
    patterns = [p.strip() for p in
                config["options.package_data"]["arena_gen.scoring"].split(",")]
    for name in names:
        assert any(fnmatch.fnmatch(f"templates/{name}", p) for p in patterns), name


def test_template_pieces_escape_values_but_not_filled_pieces() -> None:
    from arena_gen.scoring.report_html import join, part

    cell = part("metrics_cell", value="<script>alert(1)</script>")
    assert cell == "<td>&lt;script&gt;alert(1)&lt;/script&gt;</td>"
    row = part("metrics_row", env="a&b", run="'x'", cells=join([cell, cell]))
    assert row == f"<tr><td>a&amp;b</td><td>&#x27;x&#x27;</td>{cell}{cell}</tr>"


def test_html_report_escapes_run_and_finding_text(runs: dict[str, Path], tmp_path: Path) -> None:
    """A run's agent name and a finding's evidence holding markup show as text in the page
    (the report refuses edited outputs, so the hostile text goes into its model)."""
    from arena_gen.scoring.report_check import check_run
    from arena_gen.scoring.report_data import build_model
    from arena_gen.scoring.report_html import render_page

    score_run(runs["random"])
    copy = Path(shutil.copytree(runs["random"], tmp_path / "hostile"))
    evil = "<script>alert(1)</script>"
    checked = check_run(copy)
    checked.summary["run"]["agent"]["name"] = evil
    checked.findings[0]["findings"][0]["evidence"] = evil
    text = render_page(build_model([copy], [checked]), [])
    assert "<script>alert" not in text
    assert text.count("<script>") == 1  # the page's own render check, nothing else
    escaped = html.escape(evil)
    assert f"<li><b>{escaped} (hostile)</b>: suite" in text  # the run list
    assert f"<span class='evidence'>{escaped}</span>" in text


def test_report_scores_unscored_runs_and_works_without_matplotlib(
        runs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``report`` on a run never scored (no summary.json) scores it first, and on the default
    install (no matplotlib) writes every table with a notice in place of the plots."""
    from click.testing import CliRunner

    import arena_gen.scoring.report as report
    from arena_gen.cli import main

    copy = Path(shutil.copytree(runs["random"], tmp_path / "unscored"))
    for name in ("summary.json", "summary.csv", "findings.jsonl"):
        (copy / name).unlink(missing_ok=True)
    monkeypatch.setattr(report, "plots_available", lambda: False)
    out = tmp_path / "r.html"
    result = CliRunner().invoke(main, ["report", str(copy), "--html", str(out)])
    assert result.exit_code == 0, result.output
    assert f"scored {copy}" in result.output and "no plots" in result.output
    summary = json.loads((copy / "summary.json").read_text())
    assert summary == score_run(copy)  # what `arena-gen score` writes
    text = out.read_text()
    assert report.NO_PLOTS.replace("'", "&#x27;") in text and "<img class='plot'" not in text
    assert "Pass@2" in text  # the run's k in the metrics table
    # a second report finds the run scored and does not score it again
    again = CliRunner().invoke(main, ["report", str(copy), "--html", str(out)])
    assert again.exit_code == 0 and f"scored {copy}" not in again.output
