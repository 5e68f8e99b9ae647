"""The LLM prompt and tools state the action grammar of the task's own env version (issue 42):
an energy v7 task names its sites, and a reply that follows the prompt is played."""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

import numpy as np
import pytest
from fake_openai import FakeOpenAI, Out, Seen

from arena_gen.agents.llm import LLMAgent
from arena_gen.agents.llm_prompts import grammar_text
from arena_gen.agents.llm_tools import tool_schemas
from arena_gen.core import registry
from arena_gen.core.episode import run_episode
from arena_gen.core.suite_io import read_suite
from arena_gen.core.task import Certificate, Task

KEY = "sk-task-grammar"
EXAMPLE = re.compile(r"Examples of the action part of a reply:\n<action>(.*?)</action>")


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    return KEY


@cache
def energy_v7_challenge() -> Task:
    """One drawn energy v7 Challenge world as a task of a few turns (prompts read its public
    view; nothing here needs its certificate, so it is not verified)."""
    spec = registry.get("energy", 7)
    draft = spec.load("sampler")(spec.load("presets")["challenge"],
                                 np.random.SeedSequence([7, 1, 3, 0, 0]))
    cert = Certificate(solvable=True, method="lp", min_steps=None, witness=[],
                       verifier_version=1, seconds=None)
    return Task(id="energy-challenge-7-0000", env="energy", env_version=7, suite="challenge",
                seed_path=[7, 1, 3, 0, 0], params=draft.params, budget=3, public=draft.public,
                world=draft.world, rules_text=draft.rules_text, rubric=draft.rubric,
                certificate=cert)


def test_energy_v7_prompt_and_tools_name_its_sites() -> None:
    task = energy_v7_challenge()
    sites = list(task.public["sites"])
    assert len(sites) >= 4 and all(re.fullmatch(r"(wind|solar)\d", s) for s in sites)
    text = grammar_text("energy", task.public, version=7)
    [example, *_] = EXAMPLE.findall(text)
    assert list(json.loads(example)) == ["thermal", *sites, "battery"]
    assert '"wind":' not in text and '"solar":' not in text  # v5's sources are not named
    [schema] = tool_schemas("energy", task.public, version=7)
    parameters = schema["function"]["parameters"]
    assert parameters["required"] == ["thermal", *sites, "battery"]
    assert list(parameters["properties"]) == parameters["required"]
    # without the task's version, the newest released grammar (v5's four sources) is stated
    [old] = tool_schemas("energy", task.public, version=None)
    assert old["function"]["parameters"]["required"] == ["thermal", "wind", "solar", "battery"]


def follow_the_prompt(seen: Seen) -> Out:
    """The reply of a model that copies the prompt: its first example, or a call filling every
    required field of the offered tool."""
    tools = seen.body.get("tools")
    if tools:
        function = tools[0]["function"]
        args = dict.fromkeys(function["parameters"]["required"], 10)
        return Out(content="", tool_calls=[(function["name"], json.dumps(args))],
                   finish_reason="tool_calls")
    [example, *_] = EXAMPLE.findall(seen.prompt)
    return Out(content=f"As the examples show. <action>{example}</action>")


@pytest.mark.parametrize("action_format", ["text", "tools"])
def test_a_reply_following_the_energy_v7_prompt_is_played(action_format: str) -> None:
    task = energy_v7_challenge()
    with FakeOpenAI([task], key=KEY, fault=follow_the_prompt) as server:
        agent = LLMAgent(model="fake-model", base_url=server.url, timeout=5.0, retries=1,
                         backoff=0.001, action_format=action_format)
        record = run_episode(task, agent)
    turns = record["turns"]
    assert len(turns) == task.budget == len(server.seen)
    assert all(t["valid"] and "tool_error" not in t for t in turns), turns[0]
    sites = task.public["sites"]
    assert all(set(json.loads(t["action"])) == {"thermal", *sites, "battery"} for t in turns)


def released_tasks() -> list[Task]:
    """One task per (suite, env, env version) of the released suites."""
    out: dict[tuple[str, str, int], Task] = {}
    for name in ("lite", "challenge", "challenge-moderate", "odyssey-lite"):
        for task in read_suite(name).all_tasks():
            out.setdefault((name, task.env, task.env_version), task)
    return list(out.values())


@pytest.mark.parametrize("task", released_tasks(), ids=lambda t: f"{t.id}-v{t.env_version}")
def test_every_released_task_is_prompted_with_examples_its_game_plays(task: Task) -> None:
    """Odyssey-lite's trading v1 tasks were shown v5's ``"expect"``, which v1 refuses."""
    text = grammar_text(task.env, task.public, version=task.env_version)
    examples = re.findall(r"<action>(.*?)</action>", text)
    assert examples
    for example in examples:
        env = registry.make_env(task)
        env.reset()
        info: dict[str, Any] = env.step(example)[4]
        assert info["valid"], (example, info["feedback"])
