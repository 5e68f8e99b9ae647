"""Prefix-stable prompts (#24 row 15): each request of an episode extends the previous one, so a
server's prefix cache (llama.cpp, vLLM) reuses every earlier turn; measured on the loopback
server over the serialized messages of consecutive requests, for every env, with no limit, under
``max_prompt_tokens`` and under context-length errors (where only a truncation turn may rewrite).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from typing import Any

import pytest
from conftest import built_tasks
from fake_openai import CONTEXT_ERRORS, FakeOpenAI, Out, Seen

from arena_gen.agents.llm import LLMAgent
from arena_gen.core.task import Task
from arena_gen.runner.async_exec import run_episode_async

TURNS = 40
#: the share of the previous request's characters a request must start with
SHARED = 0.95


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-prefix")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def shared_prefix(a: str, b: str) -> int:
    """Characters ``a`` and ``b`` share from the start."""
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def serialized(seen: Seen) -> str:
    """A request's messages as the server received them (JSON, in order)."""
    return json.dumps(seen.body["messages"], ensure_ascii=False)


def episode(task: Task, fault: Any, **over: Any) -> tuple[dict[str, Any], list[Seen]]:
    """One episode of the LLM agent against the loopback server: its record and the requests
    the server answered (one per turn; context-length refusals left out)."""
    answered: list[Seen] = []

    def reply(seen: Seen) -> Out:
        out = fault(seen)
        if out.status == 200:
            answered.append(seen)
        return out

    async def go(player: LLMAgent) -> dict[str, Any]:
        try:
            return await run_episode_async(task, player)
        finally:
            if player.client is not None:
                await player.client.aclose()

    with FakeOpenAI([task], fault=reply) as server:
        player = LLMAgent(model="fake-model", base_url=server.url, timeout=5.0, retries=1,
                          backoff=0.001, **over)
        record = asyncio.run(go(player))
    assert len(answered) == record["steps"] == TURNS and record.get("error") is None
    return record, answered


def task_of(env: str) -> Task:
    """The env's first lite task, cut to ``TURNS`` turns."""
    return dataclasses.replace(built_tasks(env, count=1)[0], budget=TURNS)


def same_reply(seen: Seen) -> Out:
    """Every turn the same tagged reply (valid or not: the episode runs its whole budget)."""
    return Out(content="<think>keep going</think><action>0</action>")


def truncations(record: dict[str, Any]) -> list[int]:
    """Indexes of the turns whose prompt dropped more turns than the turn before's did."""
    dropped = [t.get("context", {}).get("turns_dropped", 0) for t in record["turns"]]
    return [i for i in range(1, len(dropped)) if dropped[i] != dropped[i - 1]]


def ratios(answered: list[Seen]) -> list[float]:
    """Per request after the first: its shared prefix with the previous one, as a share of the
    previous request's characters."""
    texts = [serialized(s) for s in answered]
    return [shared_prefix(a, b) / len(a) for a, b in zip(texts, texts[1:], strict=False)]


def test_every_request_extends_the_last(env_name: str) -> None:
    record, answered = episode(task_of(env_name), same_reply)
    shares = ratios(answered)
    assert truncations(record) == [] and len(shares) == TURNS - 1
    assert min(shares) >= SHARED, [round(s, 3) for s in shares]
    # the messages themselves only grow: the previous request's list is the next one's head
    for a, b in zip(answered, answered[1:], strict=False):
        assert b.body["messages"][:len(a.body["messages"])] == a.body["messages"]


def test_max_prompt_tokens_rewrites_only_on_truncation_turns(env_name: str) -> None:
    task = task_of(env_name)
    _, free = episode(task, same_reply)
    sizes = [sum(len(m["content"]) for m in s.body["messages"]) for s in free]
    limit = -(-sizes[12] // 4)  # the prompt of turn 13 fits exactly: later turns are cut
    record, answered = episode(task, same_reply, max_prompt_tokens=limit)
    cut = truncations(record)
    assert 2 <= len(cut) <= TURNS // 3, cut  # cut a quarter further, so not every turn
    shares = ratios(answered)
    kept = [s for i, s in enumerate(shares, start=1) if i not in cut]
    assert min(kept) >= SHARED, [round(s, 3) for s in shares]
    assert all(sum(len(m["content"]) for m in s.body["messages"]) <= limit * 4 for s in answered)


@pytest.mark.parametrize("flavor", ["llama.cpp", "openai"])
def test_context_errors_rewrite_only_on_truncation_turns(env_name: str, flavor: str) -> None:
    task = task_of(env_name)
    _, free = episode(task, same_reply)
    chars = len(free[12].prompt)  # the server's window ends after turn 13's prompt

    def fault(seen: Seen) -> Out:
        if len(seen.prompt) > chars:
            return Out(status=400, body=CONTEXT_ERRORS[flavor])
        return same_reply(seen)

    record, answered = episode(task, fault)
    errors = sum(t.get("context", {}).get("context_errors", 0) for t in record["turns"])
    cut = truncations(record)
    assert 1 <= errors <= 6 and 2 <= len(cut) <= TURNS // 3, (errors, cut)
    shares = ratios(answered)
    kept = [s for i, s in enumerate(shares, start=1) if i not in cut]
    assert min(kept) >= SHARED, [round(s, 3) for s in shares]
