"""Readable results (#24 rows 1, 2, 13, 14): the score table shows Avg@k and Pass@k for the
run's k, fits 80 columns without cutting a cell, shows tokens and (with prices) the cost, as the
HTML report does; the run table counts agent errors; a long episode has a heartbeat and a rate
with precision."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import REPO
from fake_openai import CONTEXT_ERRORS, FakeOpenAI, Out
from rich.console import Console

from arena_gen.cli import main
from arena_gen.core.suite_io import read_suite, write_suite
from arena_gen.core.task import Task
from arena_gen.runner.rundir import RunDir
from arena_gen.scoring.report import build_report
from arena_gen.scoring.score import Attempt, aggregate
from arena_gen.scoring.table import count_text, legend, score_table
from arena_gen.suite.build import build_suite
from arena_gen.ui import Reporter, rate

LITE = REPO / "suites" / "lite"
WIDTHS = (80, 100, 160, 200)


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A one-task suite: the released lite lights task 0, rebuilt (fast to read)."""
    version = json.loads((LITE / "manifest.json").read_text(encoding="utf-8"))["env_versions"]
    built = build_suite("lite", 7, ["lights"], counts={"lights": 1}, versions=version)
    return write_suite(tmp_path_factory.mktemp("suite") / "lite", built.manifest, built.tasks)


@pytest.fixture(scope="module")
def task(suite: Path) -> Task:
    (only,) = read_suite(suite).all_tasks()
    return only


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-readable")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def cli(*args: str, **env: str) -> Any:
    return CliRunner().invoke(main, list(args), env=env or None)


def llm_run(suite: Path, out: Path, server: FakeOpenAI, *more: str) -> Any:
    return cli("run", "--suite", str(suite), "--agent", "llm", "--model", "fake", "--out",
               str(out), "--retries", "0", "--display", "plain", *more,
               OPENAI_BASE_URL=server.url)


@pytest.fixture(scope="module")
def llm_4(suite: Path, task: Task, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An LLM run of 4 attempts against the loopback server (which plays the witness and
    reports prompt and completion tokens)."""
    out = tmp_path_factory.mktemp("llm") / "run"
    with FakeOpenAI([task]) as server:
        result = CliRunner().invoke(
            main, ["run", "--suite", str(suite), "--agent", "llm", "--model", "fake",
                   "--out", str(out), "--attempts", "4", "--display", "plain"],
            env={"OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "sk-test-readable"})
    assert result.exit_code == 0, result.output
    return out


def tokens_of(run: Path) -> tuple[int, int]:
    """Prompt and completion tokens over the run's turns, read from the trajectories."""
    turns = [t for r in RunDir(run).records() for t in r["turns"]]
    return (sum(t["tokens"]["prompt_tokens"] for t in turns),
            sum(t["tokens"]["completion_tokens"] for t in turns))


def attempt(task: str, n: int, success: bool) -> Attempt:
    return Attempt(task_id=task, env="lights", level="n=10", attempt=n,
                   score=100.0 if success else 0.0, perfect=success,
                   record={"steps": 5, "turns": [{"valid": True, "tokens": {
                       "prompt_tokens": 1000, "completion_tokens": 100}}] * 5})


# -- row 1: Avg@k and Pass@k for the run's k -----------------------------------------------------
def test_table_shows_avg_and_pass_at_the_runs_k() -> None:
    """Task A succeeds once in 4, B never: Avg@4 = 12.5 and Pass@4 = 50 (Pass@1 would be
    12.5 too: the old table's only pass column)."""
    summary = aggregate([attempt("A", 0, True), *(attempt("A", i, False) for i in (1, 2, 3)),
                         *(attempt("B", i, False) for i in range(4))], 4)
    table = score_table(summary)
    assert table.headers == ["env", "tasks", "Avg@4 %", "Pass@4 %", "credit %", "tokens",
                             "infra"]
    rows = {r[0]: r for r in table.rows}
    assert rows["lights"] == ["lights", "2", "12.5", "50", "12.5", "44k", "0"]
    assert rows["overall"][1:] == rows["lights"][1:]
    assert "  n=10" not in rows  # an env's only level repeats its row: left out
    assert legend(summary, table.keys)[0].startswith("Avg@4: success averaged over each")


def test_cli_score_and_report_show_pass_at_4(llm_4: Path) -> None:
    result = cli("score", str(llm_4), "--display", "plain")
    assert result.exit_code == 0, result.output
    header = next(x for x in result.output.splitlines() if x.startswith("env "))
    assert header.split() == ["env", "tasks", "Avg@4", "%", "Pass@4", "%", "credit", "%",
                              "ind.eff", "tokens", "infra"]  # ind.eff: a lights run
    overall = next(x for x in result.output.splitlines() if x.startswith("overall"))
    assert overall.split()[:4] == ["overall", "1", "100", "100"]
    text = build_report([llm_4])
    assert "Pass@4 (%)" in text and "Avg@4 (%)" in text
    keys = re.findall(r"<th title='[^']*'>([^<]*)</th>", text.split("class='metrics'")[1]
                      .split("</thead>")[0])
    assert keys[:6] == ["success (%)", "Avg@4 (%)", "Avg credit@4 (%)", "Pass@1 (%)",
                        "Pass@4 (%)", "traj. eff. (% per agent call)"]


# -- row 2: readable at 80 columns ---------------------------------------------------------------
@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("metrics", [None, "all"])
def test_score_table_never_cuts_a_cell(llm_4: Path, width: int, metrics: str | None) -> None:
    """Through the CLI at $COLUMNS columns, rich display: no cell cut to ``…``, no line past
    the width, every figure of the summary in the output."""
    args = ["score", str(llm_4), "--display", "rich", "--price-in", "2.5", "--price-out", "10"]
    result = cli(*args, *(["--metrics", metrics] if metrics else []), COLUMNS=str(width))
    assert result.exit_code == 0, result.output
    assert "…" not in result.output
    assert max(len(line) for line in result.output.splitlines()) <= width
    summary = json.loads((llm_4 / "summary.json").read_text())
    k = 4
    table = score_table(summary, [metrics] if metrics else None, summary["prices"])
    for row in table.rows:
        for value in row[1:]:
            assert value in result.output
    if metrics is None:  # the default columns fit side by side even at 80
        assert f"Avg@{k} %" in result.output and f"Pass@{k} %" in result.output


@pytest.mark.parametrize("width", WIDTHS)
def test_reporter_table_at_a_consoles_width(width: int) -> None:
    """A summary of lite's shape (4 envs, levels, a missing attempt) on a rich Console of that
    width: never a cut cell, never a line past the width; the default columns side by side."""
    attempts = [Attempt(task_id=f"{env}-{i}", env=env, level=f"n={6 + i % 5}", attempt=a,
                        score=33.333333, perfect=(i + a) % 3 == 0,
                        record={"steps": 120, "turns": [{"valid": True, "tokens": {
                            "prompt_tokens": 123_456, "completion_tokens": 7_890}}]})
                for env in ("energy", "lights", "repo", "trading") for i in range(30)
                for a in range(4)]
    summary = aggregate(attempts, 4, missing=[("lights", "n=6")])
    prices = {"input_usd_per_1m": 3.0, "output_usd_per_1m": 15.0}
    for metrics in (None, ["all"]):
        buf = io.StringIO()
        ui = Reporter("rich", Console(width=width, file=buf, highlight=False, soft_wrap=True))
        table = score_table(summary, metrics, prices)
        ui.table("Scores of runs/some-model-name-with-dashes, harness arena-gen, 4 attempt(s) "
                 "per task (written to summary.json, summary.csv, findings.jsonl)",
                 table.headers, table.rows, long_columns=table.long_headers)
        out = buf.getvalue()
        assert "…" not in out
        assert max(len(line) for line in out.splitlines()) <= width
        if metrics is None:
            head = next(x for x in out.splitlines() if x.startswith("env "))
            assert head.split("  ")[-1] == "missing" and "Pass@4 %" in head
        cost = 30 * 4 * (123_456 * 3.0 + 7_890 * 15.0) / 1e6  # an env: 30 tasks x 4 attempts
        assert f"{cost:.2f}" == "58.65" and "58.65" in out and "234.58" in out  # and overall


def test_default_columns_fit_80_at_k_10_with_everything() -> None:
    """k = 10, prices, a missing attempt, a 4-digit cost: still side by side at 80 columns."""
    attempts = [Attempt(task_id=f"trading-{i}", env="trading", level="x", attempt=a,
                        score=12.345678, perfect=a == 0,
                        record={"steps": 120, "turns": [{"valid": True, "tokens": {
                            "prompt_tokens": 9_876_543, "completion_tokens": 123_456}}]})
                for i in range(30) for a in range(10)]
    summary = aggregate(attempts, 10, missing=[("trading", "x")])
    table = score_table(summary, None, {"input_usd_per_1m": 3.0, "output_usd_per_1m": 15.0})
    buf = io.StringIO()
    Reporter("rich", Console(width=80, file=buf)).table("t", table.headers, table.rows)
    head = buf.getvalue().splitlines()[1]
    assert head.split() == ["env", "tasks", "Avg@10", "%", "Pass@10", "%", "credit", "%",
                            "tokens", "cost", "$", "infra", "missing"]
    overall = next(x for x in buf.getvalue().splitlines() if x.startswith("overall"))
    # 300 attempts x (9876543 + 123456) tokens; 300 x (9876543 x 3 + 123456 x 15) / 1e6 USD
    assert overall.split()[-4:] == ["3G", "9444.44", "0", "1"]


# -- tokens and cost -----------------------------------------------------------------------------
def test_tokens_and_cost_in_the_table_summary_and_html(llm_4: Path) -> None:
    prompt, completion = tokens_of(llm_4)
    assert prompt > 0 and completion > 0
    result = cli("score", str(llm_4), "--display", "plain", "--price-in", "2.5",
                 "--price-out", "10", "--metrics", "tokens,prompt_tokens,completion_tokens,cost")
    assert result.exit_code == 0, result.output
    summary = json.loads((llm_4 / "summary.json").read_text())
    assert summary["prices"] == {"input_usd_per_1m": 2.5, "output_usd_per_1m": 10.0}
    lights = summary["envs"]["lights"]
    assert (lights["prompt_tokens"], lights["completion_tokens"]) == (prompt, completion)
    cost = (prompt * 2.5 + completion * 10.0) / 1e6
    overall = next(x for x in result.output.splitlines() if x.startswith("overall")).split()
    assert overall[1:4] == [count_text(prompt + completion), count_text(prompt),
                            count_text(completion)]
    assert float(overall[4]) == pytest.approx(cost, rel=5e-3)
    import csv

    with (llm_4 / "summary.csv").open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    over = next(r for r in rows if r["env"] == "*")
    assert float(over["cost_usd"]) == pytest.approx(cost, rel=1e-6)  # the CSV prices it too
    text = build_report([llm_4])
    assert "cost (USD)" in text
    row = next(r for r in text.split("<tr>") if r.startswith("<td>overall</td>"))
    assert f"<td>{overall[4]}</td>" in row and f"<td>{prompt + completion}</td>" in row
    # scored again without prices: no cost anywhere, the tokens still shown
    result = cli("score", str(llm_4), "--display", "plain")
    assert "prices" not in json.loads((llm_4 / "summary.json").read_text())
    assert "cost_usd" not in (llm_4 / "summary.csv").read_text()
    assert "cost" not in result.output and "tokens" in result.output
    assert "cost (USD)" not in build_report([llm_4])


def test_price_and_metric_mistakes_are_named_before_scoring(llm_4: Path) -> None:
    result = cli("score", str(llm_4), "--price-in", "1")
    assert result.exit_code == 1 and "--price-in and --price-out go together" in result.output
    result = cli("score", str(llm_4), "--metrics", "pass_at_5")
    assert result.exit_code == 1 and "pass_at_1 .. pass_at_4" in result.output
    result = cli("score", str(llm_4), "--metrics", "avg_at_kk")
    assert result.exit_code == 1 and "unknown metric 'avg_at_kk'" in result.output
    result = cli("score", str(llm_4), "--metrics", "cost")
    assert result.exit_code == 1 and "needs --price-in" in result.output


# -- row 13: agent_error counted in the run table ------------------------------------------------
def test_agent_error_is_counted_and_shown(suite: Path, tmp_path: Path) -> None:
    """The first prompt over the server's window: the episode ends agent_error; the run table
    counts it in its own column and a line names it with the first error, like env_error."""
    body = CONTEXT_ERRORS["llama.cpp"]
    with FakeOpenAI([], fault=lambda s: Out(status=400, body=body)) as server:
        result = llm_run(suite, tmp_path / "run", server)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    header = next(x for x in lines if x.startswith("env "))
    assert header.split("  ")[-1].strip() == "agent errors"
    row = next(x for x in lines if x.startswith("lights "))
    assert row.split() == ["lights", "1", "0", "(0.0", "%)", "0", "0", "0", "1"]
    said = " ".join(lines)
    assert "1 episode(s) ended in agent_error" in said and "ContextLengthError" in said


# -- row 14: heartbeat and rate ------------------------------------------------------------------
def test_count_text_and_rate_have_precision() -> None:
    assert [count_text(n) for n in (812, 45_600, 1_234_567)] == ["812", "45.6k", "1.23M"]
    assert rate(200, 526.3) == "0.38 turns/s"  # the 9-minute episode: not "0 turns/s"
    assert rate(125, 10) == "12.5 turns/s" and rate(2539, 1) == "2539 turns/s"
    assert rate(0, 0) == "0.00 turns/s"


def test_heartbeat_while_an_episode_runs(suite: Path, task: Task, tmp_path: Path) -> None:
    """One slow episode (40 ms a reply): heartbeat lines every 50 ms show the turns played so
    far while no episode has finished, and the end line's rate has two decimals."""
    with FakeOpenAI([task], delay=0.04) as server:
        result = llm_run(suite, tmp_path / "run", server, "--heartbeat", "0.05")
    assert result.exit_code == 0, result.output
    beats = [x for x in result.output.splitlines() if "0/1 episodes done" in x]
    assert len(beats) >= 2, result.output
    turns = [int(m.group(1)) for x in beats if (m := re.search(r", (\d+) turns, ", x))]
    assert turns[-1] >= 1 and turns == sorted(turns)
    assert re.search(r"\d+:\d\d:\d\d elapsed", beats[-1])
    end = next(x for x in result.output.splitlines() if x.startswith("run llm: 1/1"))
    assert re.search(r"\d+\.\d+ turns/s\)$", end), end  # not rounded to an integer
    with FakeOpenAI([task], delay=0.04) as server:
        quiet = llm_run(suite, tmp_path / "quiet", server, "--heartbeat", "0")
    assert quiet.exit_code == 0 and "episodes done" not in quiet.output
