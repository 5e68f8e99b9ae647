"""Issue 42: the LLM agent's context policy plays a paper-scale, 1,000-turn episode to its end.

One Challenge task of each env at the paper's scale is run with ``arena-gen run --agent llm
--max-prompt-tokens`` against the loopback server, which plays the witness; every request is
measured at the server the way the policy measures it. Trading v6 (1,000 days, its witness as
long as its budget) and energy v8 (1,000 days, 1,100 turns, 4-6 named sites) have 1,000-action
witnesses; lights
v6 and repo v6 (1,000 turns, minima of a few hundred) get a prelude of wasted turns first
(malformed actions, invalid commands, a reply with no action tag: each costs a turn with the
env's feedback and leaves the state as it was), so the witness ends on turn 1,000.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from fake_openai import FakeOpenAI

from arena_gen.agents.llm import MAX_ACTION_CHARS
from arena_gen.agents.llm_context import approx_tokens
from arena_gen.agents.llm_parse import reply_action
from arena_gen.cli import main
from arena_gen.core.registry import make_game
from arena_gen.core.suite_io import read_suite, write_suite
from arena_gen.runner.rundir import RunDir
from arena_gen.scoring.score import score_run
from arena_gen.suite.build import build_suite

KEY = "sk-test-long-episode"
#: The turns of each episode (the prelude and the witness).
TURNS = 1000
#: Replies that waste a turn without changing the state, cycled (no two in a row are equal, so
#: no turn is a loop): lights' and repo's invalid actions, and a reply without an action tag.
WASTE = {"lights": ("<action>B9999</action>", "<action>hello</action>", "No tag, sorry.",
                    "<action>-1</action>"),
         "repo": ("<action>pip frobnicate</action>", "<action>pip install</action>",
                  "No tag, sorry.", "<action>python</action>", "<action>ls -la</action>")}
CAP = 4000  # tokens: binds from about turn 15 (a trading turn adds ~230), so it cuts often


@pytest.mark.slow
@pytest.mark.parametrize(("env", "version", "budget"), [("trading", 6, TURNS),
                                                        ("energy", 8, 1100),
                                                        ("lights", 6, TURNS),
                                                        ("repo", 6, TURNS)])
def test_thousand_turn_episode_under_the_prompt_cap(tmp_path: Path, env: str, version: int,
                                                    budget: int) -> None:
    built = build_suite("challenge", 7, [env], versions={env: version}, counts={env: 1})
    suite = write_suite(tmp_path / "challenge", built.manifest, built.tasks)
    (task,) = read_suite(suite).all_tasks()  # a world with regimes reads back
    assert task.env_version == version
    witness = list(task.certificate.witness)
    wasted = TURNS - len(witness)
    assert task.budget == budget and (wasted > 0) == (env in WASTE)
    cycle = WASTE.get(env, ())
    prelude = [cycle[i % len(cycle)] for i in range(wasted)]
    played = [reply_action(r, MAX_ACTION_CHARS) for r in prelude] + witness
    out = tmp_path / "run"
    with FakeOpenAI([task], key=KEY, prelude={task.id: prelude}) as server:
        result = CliRunner().invoke(main, [
            "run", "--suite", str(suite), "--agent", "llm", "--model", "m", "--out", str(out),
            "--max-prompt-tokens", str(CAP), "--timeout", "30", "--display", "plain"],
            env={"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": server.url})
    assert result.exit_code == 0, result.output
    (rec,) = RunDir(out).records()
    assert (rec["end_reason"], rec["steps"], rec["success"]) == ("success", TURNS, True)
    assert "error" not in rec or rec["error"] is None
    assert [t["action"] for t in rec["turns"]] == played
    # each wasted turn: invalid, the env's own feedback for it from the start state
    game = make_game(task)
    start = game.initial()
    for turn, action in zip(rec["turns"][:wasted], played, strict=False):
        state, event = game.act(start, action)
        assert state == start and not event.valid
        assert (turn["valid"], turn["feedback"]) == (False, event.feedback)
        assert turn["feedback"].startswith(("Invalid action: ", "ERROR: "))
    assert [bool(t.get("no_action_tag")) for t in rec["turns"][:wasted]] == [
        "<action>" not in r for r in prelude]
    if wasted:  # the last wasted turn's feedback reaches the model with the witness's first turn
        assert rec["turns"][wasted - 1]["feedback"] in server.seen[wasted].prompt
    # one request a turn (no retry, no context error), each within the cap as the policy counts
    assert [s.turn for s in server.seen] == list(range(1, TURNS + 1))
    sizes = [approx_tokens(s.body["messages"]) for s in server.seen]
    assert max(sizes) <= CAP < sum(sizes) / TURNS * 1.5
    assert all(t["retries"] == 0 and t.get("context", {}).get("context_errors", 0) == 0
               for t in rec["turns"])
    # the window was cut (most turns dropped) and still carries history at the end
    last = rec["turns"][-1]["context"]
    assert last["turns_dropped"] > 800 and last["turns_shown"] >= 5  # repo: 882 of 999
    assert last["turns_shown"] + last["turns_dropped"] == TURNS - 1
    assert server.seen[-1].past_turns == last["turns_shown"]
    summary = score_run(out)  # replays the 1,000 actions through the game
    assert summary["overall"]["success_rate"] == 100.0
    assert summary["overall"]["infra_errors"] == 0
    (line,) = [json.loads(x) for x in (out / "findings.jsonl").read_text().splitlines()]
    assert line["replay"] == {"budget": budget, "invalid_turns": wasted, "loop_turns": 0,
                              "steps": TURNS, "success": True}
    assert not any(line["flags"].values())
