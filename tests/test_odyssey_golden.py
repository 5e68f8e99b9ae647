"""The odyssey harness's prompts, pinned byte for byte: the env packages own the per-env text
and reply rules, and moving them there (or anywhere) must not change one character."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pytest
import toy_env
from harness_util import ODYSSEY_GOLDEN, drive, odyssey_golden_prompts

from arena_gen.core import registry
from arena_gen.core.odyssey import GENERIC_ROLE, OdysseyPrompt, PastTurn, Play
from arena_gen.core.registry import OdysseyProfile
from arena_gen.suite.build import build_suite


def test_odyssey_prompts_are_unchanged() -> None:
    expected = json.loads(ODYSSEY_GOLDEN.read_text(encoding="utf-8"))
    got = odyssey_golden_prompts()
    assert sorted(got) == sorted(expected)
    for key, messages in expected.items():
        assert got[key] == messages, key


@pytest.fixture()
def counter() -> Iterator[None]:
    """The toy counter env: v1 with its own odyssey prompt and reply rule, v2 with none."""
    profile = OdysseyProfile(steps=5, window=2, prompt=OdysseyPrompt(
        role="You are counting.", entry=lambda s: f"{s.action} -> {s.after.state}",
        joiner=" | ", state=lambda s: s.state), reply=_only_up)
    registry.register(dataclasses.replace(toy_env.spec(1), odyssey=profile))
    registry.register(toy_env.spec(2))
    try:
        yield
    finally:
        registry.unregister("counter")


def _only_up(action: str | None, public: Mapping[str, Any], turns: Sequence[PastTurn]) -> Play:
    """A reply rule of the toy's: anything but ``up`` is a lost step."""
    return Play(action or "", kept=action == "up")


def _prompts(version: int, replies: list[str]) -> list[str]:
    """The odyssey user messages of a counter task of ``version`` answering ``replies``."""
    task = dataclasses.replace(build_suite("lite", 5, ["counter"]).tasks["counter"][0],
                               env_version=version, world={"target": 99})
    client, _ = drive(task, replies, harness="odyssey")
    return [p["messages"][0]["content"] for p in client.payloads]


def test_an_env_without_a_profile_gets_the_generic_prompt(counter: None) -> None:
    text = _prompts(2, ["<action>up</action>", "no tag", "<action>down</action>"])[3]
    assert text.startswith(f"{GENERIC_ROLE}\n\n## Goal\nReach the hidden target.\n\n"
                           "## Actions\nAction format: free text.\n\n## Steps so far\n")
    steps = text.split("## Steps so far\n")[1].split("\n\n## Current state\n")[0]
    assert steps.split("\n\n") == [  # every turn kept, the state seen then the action
        "Value: 0\nAction sent: up", "value 2\nValue: 2\nAction sent: ",
        "Invalid action: '' is not up or down.\nValue: 2\nAction sent: down"]


def test_the_task_versions_profile_words_the_prompt_and_rules_the_replies(
        counter: None) -> None:
    texts = _prompts(1, ["<action>up</action>", "<action>down</action>", "<action>up</action>",
                         "<action>up</action>"])
    assert texts[0].startswith("You are counting.\n\n")
    # three kept steps (the down is lost), the last two shown
    assert "## Steps so far\nup -> Value: 1 | up -> Value: 2\n\n" in texts[4]
    assert "## Current state\nValue: 2\n" in texts[4]  # the state line alone
