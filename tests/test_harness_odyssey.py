"""``--harness odyssey``: the OdysseyArena reference protocol, checked on real episodes."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest
from click.testing import CliRunner
from harness_util import GOLDEN, drive, golden_prompts, lite_task

from arena_gen.agents.harness import ODYSSEY_STOP, first_action
from arena_gen.cli import main
from arena_gen.core.budget import protocol_for
from arena_gen.core.records import RunMeta

ENERGY_OK = '<action>{"thermal": 300, "wind": 120, "solar": 80, "battery": 0}</action>'


def prompt(payload: dict) -> str:
    """The one user message of an odyssey request."""
    assert [m["role"] for m in payload["messages"]] == ["user"]
    return payload["messages"][0]["content"]


def test_arena_gen_prompts_are_unchanged() -> None:
    assert golden_prompts() == json.loads(GOLDEN.read_text(encoding="utf-8"))


def test_first_tag_counts_and_a_missing_close_is_tolerated() -> None:
    assert first_action("think <action> 3 </action> then <action>4</action>") == "3"
    assert first_action("so <ACTION>{\"buy\": {}}") == '{"buy": {}}'  # stopped on </action>
    assert first_action("no tag at all") is None
    assert first_action("<action></action>") == ""


def test_stop_sequence_and_first_tag_in_a_real_episode() -> None:
    task = dataclasses.replace(lite_task("lights"), budget=3)
    client, record = drive(task, ["<action>0", "<action>1</action><action>2</action>"],
                           harness="odyssey", finish="stop")
    assert all(p["stop"] == ODYSSEY_STOP == ["</action>"] for p in client.payloads)
    assert [t["action"] for t in record["turns"][:2]] == ["0", "1"]
    assert record["harness"] == "odyssey"
    arena, _ = drive(task, ["<action>0</action>"])
    assert "stop" not in arena.payloads[0]


@pytest.mark.parametrize(("env", "steps"), [("lights", 200), ("trading", 120),
                                            ("energy", 120), ("repo", 120)])
def test_step_budget(env: str, steps: int) -> None:
    task = lite_task(env)
    assert protocol_for("odyssey", task).budget == steps
    assert protocol_for("arena-gen", task).budget is None


def test_trading_shows_exactly_the_last_50_turns_and_no_order_feedback() -> None:
    replies = [f'<action>{{"buy": {{"S0": {i + 1}}}}}</action>' for i in range(55)]
    client, record = drive(lite_task("trading"), replies, harness="odyssey")
    text = prompt(client.payloads[55])
    orders = re.findall(r"Order sent: (.*)", text)
    assert len(orders) == 50 and orders[0] == '{"buy": {"S0": 6}}'
    assert orders[-1] == '{"buy": {"S0": 55}}'
    feedback = record["turns"][54]["feedback"]
    assert feedback and feedback not in text and "Turns left" not in text


def test_energy_window_is_40_and_malformed_replies_are_lost_days() -> None:
    task = lite_task("energy")
    plan = [f"<action>{a}</action>" for a in task.certificate.witness]  # survives the horizon
    replies = plan[:2] + ["<action>{broken</action>"] + plan[2:44] + ["none"] + plan[45:]
    client, record = drive(task, replies, harness="odyssey")
    assert record["budget"] == 120 and record["steps"] == 120
    assert record["final_info"]["day"] == 119  # one lost step: the horizon is out of reach
    text = prompt(client.payloads[45])
    assert len(re.findall(r"Dispatch sent: ", text)) == 40  # 44 kept entries, last 40 shown
    assert "broken" not in prompt(client.payloads[3])  # the lost step leaves no history entry
    days = [t["state"]["day"] for t in record["turns"][:4]]
    assert days == [1, 2, 2, 3]  # the malformed reply spent a step, not a day
    assert [t["valid"] for t in record["turns"][:4]] == [True, True, False, True]
    replay = record["turns"][45]  # no tag: the last JSON action is played again
    assert replay["replayed_previous"] is True and replay["no_action_tag"] is True
    assert replay["action"] == task.certificate.witness[43]
    assert replay["valid"] is True and replay["state"]["day"] == 45


def test_energy_all_malformed_spends_the_120_steps_on_day_0() -> None:
    _, record = drive(lite_task("energy"), ["<action>nope</action>"], harness="odyssey")
    assert record["steps"] == 120 and record["end_reason"] == "budget"
    assert record["final_info"]["day"] == 0 and not record["success"]


def test_lights_and_repo_keep_the_full_history() -> None:
    replies = ["<action>0</action>", "<action>x</action>"] * 30
    client, record = drive(dataclasses.replace(lite_task("lights"), budget=200), replies,
                           harness="odyssey")
    assert record["steps"] == 200  # invalid replies spend steps
    text = prompt(client.payloads[60])
    assert len(re.findall(r"^Action 0: ", text, re.M)) == 30  # every valid step, none of "x"
    assert "Action x" not in text
    client, record = drive(lite_task("repo"), ["<action>repo tree</action>"] * 70,
                           harness="odyssey")
    text = prompt(client.payloads[69])
    assert "--- Step 1 ---" in text and "--- Step 69 ---" in text


def test_disclosure_energy_intro_is_qualitative_and_no_turns_left() -> None:
    client, _ = drive(dataclasses.replace(lite_task("energy"), budget=2), [ENERGY_OK] * 2,
                      harness="odyssey")
    text = prompt(client.payloads[1])
    task = lite_task("energy")
    for formula in ("Ramp =", "Cost =", "Day stability =", "1280", "min(1,", "Turns left",
                    "turns left", str(task.budget)):
        assert formula not in text
    assert f"{task.public['target_stability']:.3f}" in text and "actual = rated" in text
    for env in ("lights", "trading", "repo"):
        client, _ = drive(dataclasses.replace(lite_task(env), budget=2), ["<action>0</action>"],
                          harness="odyssey")
        assert all("Turns left" not in prompt(p) for p in client.payloads)


def test_run_json_records_the_harness() -> None:
    assert RunMeta.model_json_schema()["properties"]["harness"]["default"] == "arena-gen"
    result = CliRunner().invoke(main, ["run", "--suite", "lite", "--agent", "random",
                                       "--harness", "odyssey", "--out", "/nonexistent/x"])
    assert result.exit_code != 0 and "--agent llm only" in result.output


def test_inspect_solver_uses_the_same_prompt_builder() -> None:
    pytest.importorskip("inspect_ai")
    from inspect_ai.model import get_model

    from arena_gen.agents.llm import LLMAgent
    from arena_gen.core.agent import TaskView
    from arena_gen.inspect.solver import ModelAgent

    task = lite_task("trading")
    view = TaskView.of(task, "inductive", privileged=False)
    ours = LLMAgent(model="m", harness="odyssey")
    theirs = ModelAgent(get_model("mockllm/model"), harness="odyssey")
    for agent in (ours, theirs):
        agent.reset(view, "inductive", None)  # type: ignore[arg-type]
    assert ours.messages("Day 0 of 120.") == theirs.messages("Day 0 of 120.")
    assert theirs.config().stop_seqs == ["</action>"]
