"""LLM agent pieces without a server: prompts, action extraction, backoff, response parsing."""

from __future__ import annotations

import email.utils
import json

import numpy as np
import pytest
from conftest import built_tasks
from hypothesis import given
from hypothesis import strategies as st

from arena_gen.agents.llm import LLMAgent
from arena_gen.agents.llm_client import (
    backoff_delay,
    parse_completion,
    parse_retry_after,
)
from arena_gen.agents.llm_prompts import (
    NO_ACTION,
    Turn,
    build_messages,
    disclosed_intro,
    extract_action,
    split_reasoning,
)
from arena_gen.core import registry
from arena_gen.core.agent import TaskView
from arena_gen.core.registry import make_env


def test_action_is_the_last_tag_outside_think() -> None:
    answer, reasoning = split_reasoning("<think>try <action>1</action></think>ok <action>2"
                                        "</action> no, <action> 3 </action>")
    assert extract_action(answer) == "3" and reasoning == "try <action>1</action>"
    assert extract_action("<ACTION>```json\n{\"buy\": {}}\n```</ACTION>") == '{"buy": {}}'
    assert extract_action("I pick 3") is None
    assert extract_action("<action></action>") == ""


def test_unbalanced_think_blocks() -> None:
    # the server dropped the opening tag (vLLM reasoning models)
    answer, reasoning = split_reasoning("hmm <action>9</action></think><action>4</action>")
    assert extract_action(answer) == "4" and reasoning == "hmm <action>9</action>"
    # truncated mid-thought: no action
    answer, reasoning = split_reasoning("<action>1</action> <think>so maybe <action>2</action>")
    assert extract_action(answer) == "1" and reasoning == "so maybe <action>2</action>"


@given(st.text(max_size=200))
def test_extraction_never_raises(text: str) -> None:
    answer, _ = split_reasoning(text)
    action = extract_action(answer)
    assert action is None or isinstance(action, str)


@pytest.mark.parametrize("window", [None, 0, 1, 3])
def test_history_window(window: int | None) -> None:
    history = [Turn(f"obs {i}", str(i) if i != 2 else None) for i in range(5)]
    msgs = build_messages(env="lights", public={"intro": "Goal: all on.", "n": 4},
                          rules_text=None, history=history, observation="obs now",
                          window=window, budget=20, version=None)
    shown = 5 if window is None else window
    # system, the opening user message, then (action played, next observation) per turn shown
    assert [m["role"] for m in msgs] == ["system", "user"] + ["assistant", "user"] * shown
    assert "## Current observation (turn 6 of 20)\nobs now" in msgs[-1]["content"]
    opening = msgs[1]["content"]
    assert opening.startswith("## Task\nGoal: all on.\n\n## Actions\n")
    assert f"## Current observation (turn {6 - shown} of 20)\n" in opening
    assert ("## Earlier turns" in opening) == (shown < 5)
    if shown < 5:
        left = "Turn 1 is" if shown == 4 else f"Turns 1-{5 - shown} are"
        assert f"## Earlier turns\n{left} not shown" in opening
    played = [m["content"] for m in msgs if m["role"] == "assistant"]
    expected = [NO_ACTION if i == 2 else f"<action>{i}</action>" for i in range(5 - shown, 5)]
    assert played == expected
    assert all("## Rules" not in m["content"] for m in msgs)


def test_prompt_only_appends() -> None:
    """Each turn's messages are the last turn's plus one action and one observation."""
    public = {"intro": "Goal: all on.", "n": 4}
    history: list[Turn] = []
    last: list[dict[str, str]] | None = None
    for i in range(6):
        msgs = build_messages(env="lights", public=public, rules_text="R", history=history,
                              observation=f"obs {i}", window=None, budget=20, version=None)
        if last is not None:
            assert msgs[:len(last)] == last and len(msgs) == len(last) + 2
        last = msgs
        history.append(Turn(f"obs {i}", None if i == 3 else str(i)))


def test_every_env_prompt_has_goal_grammar_examples_and_rules(env_name: str) -> None:
    task = built_tasks(env_name, count=1)[0]
    env = make_env(task)
    obs, _ = env.reset()
    for mode in ("inductive", "with-rules"):
        agent = LLMAgent(model="m", api_key="k")
        agent.reset(TaskView.of(task, mode), mode, np.random.default_rng(0))
        user = agent.messages(obs)[-1]["content"]
        # a with-rules prompt words the intro as disclosed (never "hidden rules to discover")
        intro = task.public["intro"] if mode == "inductive" else disclosed_intro(
            task.public["intro"])
        assert intro in user
        assert user.count(intro) == 1  # the first observation drops its intro
        assert "Action format:" in user and user.count("<action>") >= 2
        assert (task.rules_text in user) == (mode == "with-rules")
    assert registry.get(env_name).grammar is not None  # every built-in env has examples


def test_grammar_examples_are_valid_actions(env_name: str) -> None:
    """The examples shown to the model are accepted by the env itself."""
    task = built_tasks(env_name, count=1)[0]
    examples = registry.for_task(task).load("grammar").examples(task.public)
    assert examples
    for example in examples:
        env = make_env(task)
        env.reset()
        _, _, _, _, info = env.step(example)
        assert info["valid"], (example, info["feedback"])


def test_payload() -> None:
    agent = LLMAgent(model="m", temperature=0.2, max_tokens=99, history=2, api_key="k")
    task = built_tasks("lights", count=1)[0]
    agent.reset(TaskView.of(task, "inductive"), "inductive", np.random.default_rng(0))
    body = agent.payload("State: off")
    assert body["model"] == "m" and body["temperature"] == 0.2 and body["max_tokens"] == 99
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    with pytest.raises(ValueError, match="model"):
        LLMAgent(model="")


def test_retry_after_and_backoff() -> None:
    assert parse_retry_after("3") == 3.0 and parse_retry_after("0.25") == 0.25
    assert parse_retry_after(None) is None and parse_retry_after("soon") is None
    assert parse_retry_after("-5") == 0.0 and parse_retry_after("nan") is None
    date = email.utils.formatdate(1_000_030, usegmt=True)
    assert parse_retry_after(date, now=1_000_000) == pytest.approx(30.0)
    rng = np.random.default_rng(1)
    delays = [backoff_delay(r, 1.0, 60.0, rng) for r in range(8)]
    for r, d in enumerate(delays):
        assert 0.5 * min(60, 2 ** r) <= d <= min(60, 2 ** r)
    assert backoff_delay(0, 0.01, 60.0, rng, retry_after=5.0) == 5.0
    assert backoff_delay(0, 0.01, 2.0, rng, retry_after=3600.0) == 2.0  # capped


def test_parse_completion() -> None:
    body = {"choices": [{"message": {"content": [{"type": "text", "text": "a"},
                                                  {"type": "text", "text": "b"}],
                                     "reasoning_content": "r"}, "finish_reason": "length"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15,
                      "completion_tokens_details": {"reasoning_tokens": 3}}}
    content, reasoning, usage, finish = parse_completion(json.dumps(body).encode())
    assert (content, reasoning, finish) == ("ab", "r", "length")
    assert usage == {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15,
                     "reasoning_tokens": 3}
    _, _, usage, _ = parse_completion(b'{"choices": [{"message": {"content": "x"}}], '
                                      b'"usage": {"prompt_tokens": 7, "completion_tokens": 2}}')
    assert usage == {"prompt_tokens": 7, "completion_tokens": 2, "total_tokens": 9}
    none = parse_completion(b'{"choices": [{"message": {"content": null}}]}')
    assert none == ("", None, None, None)
    for bad in (b'{"choices": [{"mess', b"[]", b'{"choices": []}', b'{"error": "x"}',
                b'{"choices": [{"message": 3}]}', b"\xff"):
        with pytest.raises(ValueError):
            parse_completion(bad)


def test_registry_builds_the_llm_agent() -> None:
    from arena_gen.agents.registry import make_agent

    agent = make_agent("llm", registry.names()[0], {"model": "m", "history": 4})
    assert isinstance(agent, LLMAgent) and agent.history_window == 4
