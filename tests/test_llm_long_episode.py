"""Issue 42: the LLM agent's context policy plays a paper-scale, 1,000-turn episode to its end.

One trading v6 Challenge task (1,000 days, its witness as long as its budget) and one energy v6
Challenge task (1,000 days, 1,100 turns, a 1,000-action witness) are each run with
``arena-gen run --agent llm --max-prompt-tokens`` against the loopback server, which plays the
witness; every request is measured at the server the way the policy measures it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from fake_openai import FakeOpenAI

from arena_gen.agents.llm_context import approx_tokens
from arena_gen.cli import main
from arena_gen.core.suite_io import read_suite, write_suite
from arena_gen.runner.rundir import RunDir
from arena_gen.scoring.score import score_run
from arena_gen.suite.build import build_suite

KEY = "sk-test-long-episode"
#: The turns of each episode (its witness: 1,000 days).
TURNS = 1000
CAP = 4000  # tokens: binds from about turn 15 (a trading turn adds ~230), so it cuts often


@pytest.mark.slow
@pytest.mark.parametrize(("env", "version", "budget"), [("trading", 6, TURNS),
                                                        ("energy", 6, 1100)])
def test_thousand_turn_episode_under_the_prompt_cap(tmp_path: Path, env: str, version: int,
                                                    budget: int) -> None:
    built = build_suite("challenge", 7, [env], versions={env: version}, counts={env: 1})
    suite = write_suite(tmp_path / "challenge", built.manifest, built.tasks)
    (task,) = read_suite(suite).all_tasks()  # a world with regimes reads back
    assert task.env_version == version
    assert task.budget == budget and len(task.certificate.witness) == TURNS
    out = tmp_path / "run"
    with FakeOpenAI([task], key=KEY) as server:
        result = CliRunner().invoke(main, [
            "run", "--suite", str(suite), "--agent", "llm", "--model", "m", "--out", str(out),
            "--max-prompt-tokens", str(CAP), "--timeout", "30", "--display", "plain"],
            env={"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": server.url})
    assert result.exit_code == 0, result.output
    (rec,) = RunDir(out).records()
    assert (rec["end_reason"], rec["steps"], rec["success"]) == ("success", TURNS, True)
    assert "error" not in rec or rec["error"] is None
    assert [t["action"] for t in rec["turns"]] == list(task.certificate.witness)
    # one request a turn (no retry, no context error), each within the cap as the policy counts
    assert [s.turn for s in server.seen] == list(range(1, TURNS + 1))
    sizes = [approx_tokens(s.body["messages"]) for s in server.seen]
    assert max(sizes) <= CAP < sum(sizes) / TURNS * 1.5
    assert all(t["retries"] == 0 and t.get("context", {}).get("context_errors", 0) == 0
               for t in rec["turns"])
    # the window was cut (turns dropped) and still carries history at the end
    last = rec["turns"][-1]["context"]
    assert last["turns_dropped"] > 900 and last["turns_shown"] >= 5
    assert last["turns_shown"] + last["turns_dropped"] == TURNS - 1
    assert server.seen[-1].past_turns == last["turns_shown"]
    summary = score_run(out)  # replays the 1,000 actions through the game
    assert summary["overall"]["success_rate"] == 100.0
    assert summary["overall"]["infra_errors"] == 0
    (line,) = [json.loads(x) for x in (out / "findings.jsonl").read_text().splitlines()]
    assert line["replay"] == {"budget": budget, "invalid_turns": 0, "loop_turns": 0,
                              "steps": TURNS, "success": True}
    assert not any(line["flags"].values())
