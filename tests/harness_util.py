"""Drive the LLM agent through real episodes with a scripted in-process client (no network)."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from arena_gen.agents.llm import LLMAgent
from arena_gen.agents.llm_client import Completion
from arena_gen.core.task import Task
from arena_gen.runner.async_exec import run_episode_async
from arena_gen.suite.build import generate_task

GOLDEN = Path(__file__).parent / "data" / "arena_gen_prompts.json"


class ScriptedClient:
    """Answers each request with the next scripted reply and keeps every request body."""

    def __init__(self, replies: Sequence[str], finish: str | None = None) -> None:
        self.replies, self.finish = list(replies), finish
        self.payloads: list[dict[str, Any]] = []

    async def complete(self, payload: dict[str, Any], rng: np.random.Generator) -> Completion:
        self.payloads.append(json.loads(json.dumps(payload)))
        text = self.replies[min(len(self.payloads), len(self.replies)) - 1]
        return Completion(text, None, None, self.finish, 0)

    async def aclose(self) -> None:
        return None


#: The env versions of the Lite suite released until 2026-12-02, whose first tasks the golden
#: prompts were recorded on: those versions stay registered, so their tasks rebuild from seed 7
#: byte for byte and the goldens keep pinning every character of the prompt code.
GOLDEN_VERSIONS = {"lights": 2, "trading": 2, "energy": 2, "repo": 3}
#: Their sha256 in that suite's manifest (git history).
GOLDEN_SHA256 = {
    "lights": "dbf402998c46da0497e8aa33ecc4c3704be83a63b3964f56f999232602e780a1",
    "trading": "4c632afc76cf06305810a831b2bb50a26a5d418159e1635535c10ba846b15c32",
    "energy": "8f7c082213ea968cc98a22c6cd955560162d168bae9065fc5f89b8701948abe7",
    "repo": "5e164e5262f365529d25d54298cd721c0cca6743761ca2bc5bf0a048437b0349",
}


@functools.cache
def _golden_task(env: str) -> Task:
    task = generate_task(env, "lite", 7, 0, version=GOLDEN_VERSIONS[env]).task
    assert task.sha256 == GOLDEN_SHA256[env], f"{env}: the golden task no longer rebuilds"
    return task


def lite_task(env: str) -> Task:
    """The first Lite task of one env at the golden versions (a fixed task for golden
    prompts), rebuilt from its seed; a copy, so a test may change it."""
    return dataclasses.replace(_golden_task(env))


def drive(task: Task, replies: Sequence[str], *, mode: str = "inductive",
          **agent_args: Any) -> tuple[ScriptedClient, dict[str, Any]]:
    """Play one episode of ``task`` answering ``replies`` in order: (client, trajectory)."""
    client = ScriptedClient(replies, agent_args.pop("finish", None))
    agent = LLMAgent(model="m", client=client, **agent_args)  # type: ignore[arg-type]
    record = asyncio.run(run_episode_async(task, agent, mode=mode))
    return client, record


#: Fixed replies per env for the golden arena-gen prompts (a malformed reply in each).
GOLDEN_REPLIES: dict[str, list[str]] = {
    "lights": ["<action>0</action>", "<action>1</action>", "no tag", "<action>2</action>",
               "<action>0</action>", "<action>3</action>"],
    "trading": ['<action>{"buy": {"S0": 10}}</action>', "<action>oops</action>",
                "<action>{}</action>", '<action>{"sell": {"S0": 5}}</action>'],
    "energy": ['<action>{"thermal": 250, "wind": 120, "solar": 80, "battery": 0}</action>',
               "<action>{bad</action>", "nothing",
               '<action>{"thermal": 240, "wind": 130, "solar": 90, "battery": -10}</action>'],
    "repo": ["<action>repo tree</action>", "<action>pip list</action>", "hmm",
             "<action>python run.py</action>"],
}


def golden_prompts(turns: int = 4) -> dict[str, list[dict[str, Any]]]:
    """The request bodies of the first ``turns`` turns of each env's fixed task and replies."""
    out = {}
    for env, replies in GOLDEN_REPLIES.items():
        task = lite_task(env)
        cut = dataclasses.replace(task, budget=turns)
        client, _ = drive(cut, replies)
        out[env] = client.payloads[:turns]
    return out


ODYSSEY_GOLDEN = Path(__file__).parent / "data" / "odyssey_prompts.json"

#: Fixed replies per env for the golden odyssey prompts: each env's lost-step and replay rules.
ODYSSEY_REPLIES: dict[str, list[str]] = {
    "lights": ["<action>0", "<action>x</action>", "no tag", "<action>1</action>",
               "<action>99</action>", "<action>2</action>"],
    "trading": ['<action>{"buy": {"S0": 10}}</action>', "<action>oops</action>", "no tag",
                '<action>{"buy": {}, "sell": {"S0": 5}}</action>', "<action>{}</action>"],
    # the first task's witness, rounded (kept here so the replies never move with the suite)
    "energy": ["nothing yet",
               '<action>{"thermal": 324.5, "wind": 125.0, "solar": 19.8, "battery": 0}</action>',
               "<action>{bad</action>", "nothing",
               '<action>{"thermal": 295.2, "wind": 121.0, "solar": 19.8, "battery": -2.5}',
               "<action></action>",
               '<action>{"thermal": 262.6, "wind": 115.4, "solar": 14.1, "battery": -2.5}'
               "</action>"],
    "repo": ["<action>repo tree</action>", "<action>pip list</action>", "hmm",
             "<action>python run.py</action>", "<action></action>"],
}


def odyssey_golden_prompts(turns: int = 6, with_rules: int = 2) -> dict[str, list[str]]:
    """The odyssey user messages of each env's fixed task: the first ``turns`` turns in
    inductive mode, the first ``with_rules`` in with-rules mode (keys ``env/mode``)."""
    out = {}
    for env, replies in ODYSSEY_REPLIES.items():
        for mode, count in (("inductive", turns), ("with-rules", with_rules)):
            client = _Ending(replies, count)
            agent = LLMAgent(model="m", client=client, harness="odyssey")  # type: ignore[arg-type]
            asyncio.run(run_episode_async(lite_task(env), agent, mode=mode))
            out[f"{env}/{mode}"] = [p["messages"][0]["content"] for p in client.payloads]
    return out


class _Ending(ScriptedClient):
    """A scripted client that ends the episode (as an agent error) after ``turns`` requests,
    so a golden prompt never plays the odyssey harness's full step budget."""

    def __init__(self, replies: Sequence[str], turns: int) -> None:
        super().__init__(replies)
        self.turns = turns

    async def complete(self, payload: dict[str, Any], rng: np.random.Generator) -> Completion:
        if len(self.payloads) >= self.turns:
            raise RuntimeError("the golden prompts are recorded")
        return await super().complete(payload, rng)
