"""Costs before and during a run (#40): ``run --dry-run`` (episodes, model calls from the budgets,
tokens from the first prompts and the context policy, the cost at given prices),
``--max-cost`` and ``--max-total-tokens`` stopping a run cleanly and resumably, and the
README Quickstart's workload sentence checked against the Lite suite's budgets."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fake_openai import FakeOpenAI

from arena_gen.agents.llm import LLMAgent
from arena_gen.agents.llm_context import approx_tokens
from arena_gen.cli import main
from arena_gen.core.agent import TaskView
from arena_gen.core.suite_io import read_suite
from arena_gen.runner.estimate import ASSUMED_REPLY_TOKENS, estimate, prompt_tokens
from arena_gen.runner.rundir import RunDir

ROOT = Path(__file__).resolve().parent.parent
LITE = read_suite("lite")
TRADING = LITE.tasks["trading"][0]
LIGHTS = LITE.tasks["lights"][0]


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-costs")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def run(server: FakeOpenAI, out: Path, *extra: str, task: Any = TRADING) -> Any:
    return CliRunner().invoke(main, [
        "run", "--suite", "lite", "--env", task.env, "--tasks", task.id, "--agent", "llm",
        "--model", "fake-model", "--base-url", server.url, "--out", str(out),
        "--display", "plain", "--heartbeat", "0", *extra])


# -- the estimate ----------------------------------------------------------------------------------
def test_prompt_tokens_follow_the_context_policy() -> None:
    assert prompt_tokens(100, 10, 4, None, None) == 100 + 110 + 120 + 130
    assert prompt_tokens(100, 10, 4, 1, None) == 100 + 110 + 110 + 110
    assert prompt_tokens(100, 10, 4, None, 115) == 100 + 110 + 115 + 115
    assert prompt_tokens(100, 10, 4, 0, None) == 400
    # the whole history: B x p0 + g x B(B-1)/2
    assert prompt_tokens(321, 17, 120, None, None) == 120 * 321 + 17 * 120 * 119 // 2


def test_estimate_is_built_from_the_agents_own_first_prompt() -> None:
    config = {"model": "m"}
    est = estimate([LIGHTS], "llm", config, "inductive", 3)
    agent = LLMAgent(model="m")
    from arena_gen.core.registry import make_env

    obs, _ = make_env(LIGHTS).reset()
    agent.reset(TaskView.of(LIGHTS, "inductive"), "inductive", None)  # type: ignore[arg-type]
    assert est.first_prompts == approx_tokens(agent.messages(obs, 0))
    assert (est.episodes, est.calls) == (3, 3 * LIGHTS.budget)
    assert est.completion_tokens == 3 * LIGHTS.budget * ASSUMED_REPLY_TOKENS
    bounded = estimate([LIGHTS], "llm", {**config, "max_tokens": 50, "history": 2},
                       "inductive", 3)
    assert bounded.completion_tokens == 3 * LIGHTS.budget * 50
    assert bounded.prompt_tokens < est.prompt_tokens
    # a baseline makes no model calls worth tokens: its turns only
    oracle = estimate([LIGHTS], "oracle", None, "inductive", 2)
    assert (oracle.calls, oracle.prompt_tokens) == (2 * LIGHTS.budget, 0)


def test_estimate_is_close_to_what_a_whole_episode_sends(tmp_path: Path) -> None:
    """Attack: a real trading episode (fixed 120-day horizon) against the estimate of it."""
    with FakeOpenAI([TRADING], keep=False) as server:
        result = run(server, tmp_path / "run")
    assert result.exit_code == 0, result.output
    [record] = RunDir(tmp_path / "run").records()
    sent = sum(t["tokens"]["prompt_tokens"] for t in record["turns"])  # the server's chars / 4
    assert len(record["turns"]) == TRADING.budget
    est = estimate([TRADING], "llm", {"model": "m"}, "inductive", 1)
    assert 0.8 < est.prompt_tokens / sent < 1.25, (est.prompt_tokens, sent)


# -- run --dry-run ---------------------------------------------------------------------------------
def test_dry_run_prints_the_workload_and_cost_and_sends_nothing(tmp_path: Path) -> None:
    out = tmp_path / "run"
    with FakeOpenAI([LIGHTS]) as server:
        result = run(server, out, "--attempts", "4", "--price-in", "0.15", "--price-out",
                     "0.6", "--dry-run", task=LIGHTS)
        assert server.seen == []
    assert result.exit_code == 0, result.output
    assert not out.exists()
    est = estimate([LIGHTS], "llm", {"model": "fake-model"}, "inductive", 4)
    cost = (est.prompt_tokens * 0.15 + est.completion_tokens * 0.6) / 1e6
    text = " ".join(result.output.split())
    assert f"model calls (at most) {4 * LIGHTS.budget:,}" in text
    assert f"prompt tokens (about) {est.prompt_tokens / 1e6:,.2f}M" in text
    assert f"cost ${cost:,.2f}" in text
    assert "episodes 4" in text
    assert f"first prompts {est.first_prompts:,} on average" in text
    without = run(server, out, "--dry-run", task=LIGHTS)
    assert "give --price-in and --price-out" in without.output


def test_dry_run_of_a_resumed_run_counts_what_is_left(tmp_path: Path) -> None:
    out = tmp_path / "run"
    with FakeOpenAI([LIGHTS]) as server:
        assert run(server, out, "--attempts", "1", task=LIGHTS).exit_code == 0
        result = run(server, out, "--attempts", "3", "--resume", "--dry-run", task=LIGHTS)
    assert result.exit_code == 0, result.output
    assert f"model calls (at most) {2 * LIGHTS.budget:,}" in " ".join(result.output.split())


# -- caps during a run -----------------------------------------------------------------------------
def test_max_total_tokens_stops_cleanly_and_resumes(tmp_path: Path) -> None:
    out = tmp_path / "run"
    one = ["--max-connections", "1"]  # two episodes open at once, one request in flight
    with FakeOpenAI([TRADING], keep=False) as server:
        assert run(server, tmp_path / "full", *one).exit_code == 0
        [whole] = RunDir(tmp_path / "full").records()
        spent = sum(t["tokens"]["total_tokens"] for t in whole["turns"])
        cap = spent * 2 + spent // 2  # two and a half episodes
        before = len(server.seen)
        stopped = run(server, out, *one, "--attempts", "4", "--max-total-tokens", str(cap))
        calls = len(server.seen) - before
        assert stopped.exit_code == 1
        text = " ".join(stopped.output.split())
        assert f"stopped: the run's tokens reached --max-total-tokens {cap}" in text
        assert "2 of 4 episodes are saved" in text
        assert "continue with --resume and a higher cap: arena-gen run" in text
        # stopped within a turn of the cap: two episodes, then the other two (played turn
        # about, their tokens growing with the turn) until the cap, and nothing after it
        per_turn = [t["tokens"]["total_tokens"] for t in whole["turns"]]
        n = next(n for n in range(TRADING.budget) if 2 * spent + 2 * sum(per_turn[:n]) >= cap)
        assert abs(calls - (2 * TRADING.budget + 2 * n)) <= 2, (calls, n)
        assert len(RunDir(out).records()) == 2
        before = len(server.seen)
        again = run(server, out, *one, "--attempts", "4", "--max-total-tokens", str(cap),
                    "--resume")
        assert again.exit_code == 1 and "reached --max-total-tokens" in again.output
        assert len(server.seen) == before  # already over the cap: nothing is asked
        done = run(server, out, *one, "--attempts", "4", "--max-total-tokens", str(10 * cap),
                   "--resume")
    assert done.exit_code == 0, done.output
    records = RunDir(out).records()
    assert sorted(r["attempt"] for r in records) == [0, 1, 2, 3]
    assert all(len(r["turns"]) == TRADING.budget for r in records)


def test_max_cost_stops_at_the_price(tmp_path: Path) -> None:
    out = tmp_path / "run"
    with FakeOpenAI([TRADING], keep=False) as server:
        no_prices = run(server, out, "--max-cost", "1")
        assert no_prices.exit_code == 2 and "--max-cost needs --price-in" in no_prices.output
        assert run(server, tmp_path / "full").exit_code == 0
        [whole] = RunDir(tmp_path / "full").records()
        prompt = sum(t["tokens"]["prompt_tokens"] for t in whole["turns"])
        completion = sum(t["tokens"]["completion_tokens"] for t in whole["turns"])
        # $2 per 1M prompt tokens, $8 per 1M completion tokens: two and a half episodes
        cap = 2.5 * (prompt * 2 + completion * 8) / 1e6
        stopped = run(server, out, "--attempts", "3", "--max-connections", "1",
                      "--price-in", "2", "--price-out", "8", "--max-cost", f"{cap:.6f}")
    assert stopped.exit_code == 1, stopped.output
    text = " ".join(stopped.output.split())
    assert f"stopped: the run's cost reached --max-cost {float(f'{cap:.6f}'):g} USD" in text
    assert "2 of 3 episodes are saved" in text
    assert len(RunDir(out).records()) == 2


# -- the README's workload sentence ----------------------------------------------------------------
def test_quickstart_workload_sentence_matches_the_lite_budgets() -> None:
    text = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    per_env = {env: {t.budget for t in tasks} for env, tasks in LITE.tasks.items()}
    assert all(len(b) == 1 for b in per_env.values())  # one budget per env in Lite
    budget = {env: sum(t.budget for t in tasks) for env, tasks in LITE.tasks.items()}
    horizon = budget["trading"] + budget["energy"]  # played whole
    until = budget["lights"] + budget["repo"]  # fewer when solved
    sentence = re.search(
        r"a Lite attempt of every task is at most ([\d,]+) model calls, the turn budgets: "
        r"([\d,]+) turns of trading and energy \((\d+) and (\d+) turns per task for their "
        r"120-day horizons, nearly always played whole\) plus up to ([\d,]+) of lights and repo "
        r"\((\d+) and (\d+) turns per task, fewer when solved\), so k = 4 is at most ([\d,]+) "
        r"model calls", text)
    assert sentence, "the Quickstart's workload sentence is missing"
    numbers = [int(g.replace(",", "")) for g in sentence.groups()]
    assert numbers == [horizon + until, horizon, *per_env["trading"], *per_env["energy"],
                       until, *per_env["lights"], *per_env["repo"], 4 * (horizon + until)]
    assert until == 5100  # the figure the old sentence had as 9,600


@pytest.mark.slow
def test_quickstart_cost_sentence_matches_the_dry_run() -> None:
    """The README's tokens and dollars are what ``--dry-run`` estimates for its command."""
    text = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    found = re.search(r"estimates about (\d+)M prompt tokens and (\d+)M completion tokens, "
                      r"about \$(\d+) at gpt-4o-mini's prices \(\$0.15 and \$0.60 per 1M\).*?"
                      r"`--history 20` estimates (\d+)M tokens, \$(\d+)\)", text)
    assert found
    tasks = LITE.all_tasks()
    whole = estimate(tasks, "llm", {"model": "gpt-4o-mini"}, "inductive", 4)
    window = estimate(tasks, "llm", {"model": "gpt-4o-mini", "history": 20}, "inductive", 4)

    def usd(e: Any) -> float:
        return (e.prompt_tokens * 0.15 + e.completion_tokens * 0.6) / 1e6

    assert [int(g) for g in found.groups()] == [
        round(whole.prompt_tokens / 1e6), round(whole.completion_tokens / 1e6),
        round(usd(whole)), round(window.prompt_tokens / 1e6), round(usd(window))]
