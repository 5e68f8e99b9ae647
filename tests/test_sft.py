"""``arena-gen export-sft`` (issue #27): the LLM agent's own prompts with the planner's or the
oracle's actions; every export replays to success, and its prompts are the ones the LLM agent
sends to a real (loopback) OpenAI-compatible server."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner
from fake_openai import FakeOpenAI, Out, Seen

from arena_gen.agents.harness import first_action
from arena_gen.agents.llm import LLMAgent
from arena_gen.agents.llm_parse import extract_action
from arena_gen.cli import main
from arena_gen.core.agent import TaskView
from arena_gen.core.budget import protocol_for
from arena_gen.core.errors import ArenaGenError
from arena_gen.core.registry import make_env
from arena_gen.core.suite_io import read_manifest, read_suite, resolve_suite
from arena_gen.core.task import Task
from arena_gen.runner.async_exec import run_episode_async
from arena_gen.train.sft import TeacherForcedLLM, export_sft, export_task

ENVS = ["lights", "trading", "energy", "repo"]


@functools.cache
def lite_tasks(env: str, count: int = 2) -> tuple[Task, ...]:
    """The first ``count`` tasks of ``env`` in the released Lite suite."""
    root, manifest = read_manifest(resolve_suite("lite"))
    ids = sorted(t for t in manifest["tasks"] if t.startswith(f"{env}-"))[:count]
    return tuple(read_suite(root, envs=[env], task_ids=ids).all_tasks())


def replay(task: Task, records: list[dict[str, Any]], harness: str) -> bool:
    """Parse the assistant messages with the harness's parser and play them: success?"""
    if harness == "arena-gen":
        assert len(records) == 1
        replies = [m["content"] for m in records[0]["messages"] if m["role"] == "assistant"]
        parse = extract_action
    else:
        assert [r["step"] for r in records] == list(range(1, len(records) + 1))
        replies = [r["messages"][-1]["content"] for r in records]
        assert all(r["messages"][-1]["role"] == "assistant" for r in records)
        parse = first_action
    env = make_env(task, None if harness == "arena-gen" else protocol_for(harness, task))
    env.reset()
    for reply in replies:
        action = parse(reply)
        assert action is not None, reply
        _, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            break
    return bool(env.success)


@pytest.mark.parametrize("harness", ["arena-gen", "odyssey"])
@pytest.mark.parametrize("teacher", ["oracle", "planner"])
@pytest.mark.parametrize("env", ENVS)
def test_the_export_replays_to_success(env: str, teacher: str, harness: str) -> None:
    tasks = lite_tasks(env)
    done = list(export_sft(tasks, teacher, harness=harness))
    assert [d.task_id for d in done] == [t.id for t in tasks]
    for task, exported in zip(tasks, done, strict=True):
        assert exported.success, (task.id, exported.end_reason)
        assert replay(task, exported.records, harness)
        first = exported.records[0]
        assert first["task_id"] == task.id and first["agent"] == teacher
        assert first["mode"] == ("with-rules" if teacher == "planner" else "inductive")
        rules = task.rules_text or ""
        assert (rules[:200] in first["messages"][0 if harness == "odyssey" else 1]["content"]
                ) == (teacher == "planner")


def witness_answers(task: Task) -> Any:
    """A fault for the loopback server answering the witness, one request per step."""
    def fault(seen: Seen) -> Out:
        plan = task.certificate.witness
        return Out(content=f"<think>step {seen.index}</think> So: "
                           f"<action>{plan[min(seen.index, len(plan) - 1)]}</action>")
    return fault


@pytest.mark.parametrize("harness", ["arena-gen", "odyssey"])
@pytest.mark.parametrize("env", ENVS)
def test_the_prompts_are_those_the_llm_agent_sends(env: str, harness: str) -> None:
    task = lite_tasks(env, 1)[0]
    with FakeOpenAI([task], fault=witness_answers(task)) as server:
        agent = LLMAgent(model="m", base_url=server.url, api_key="k", retries=0,
                         harness=harness)
        record = asyncio.run(run_episode_async(task, agent, mode="inductive"))
        sent = [s.body["messages"] for s in server.seen]
    assert record["success"]
    exported = export_task((task, "oracle", harness, "inductive", False))
    if harness == "arena-gen":
        (line,) = exported.records
        assert line["messages"][:-1] == sent[-1]  # the whole dialogue, every turn's prompt
        assert all(line["messages"][:len(m)] == m for m in sent)
    else:
        assert [r["messages"][:-1] for r in exported.records] == sent
    users = [m for line in exported.records for m in line["messages"] if m["role"] == "user"]
    assert users and all(m in [x for s in sent for x in s] for m in users)


def test_a_teacher_action_the_parser_would_change_is_an_error() -> None:
    task = lite_tasks("lights", 1)[0]
    agent = TeacherForcedLLM("oracle", task)
    agent.teacher.act = lambda observation: " 0 "  # type: ignore[method-assign]
    agent.reset(TaskView.of(task, "inductive"), "inductive", np.random.default_rng(0))
    with pytest.raises(ArenaGenError, match="reads back as '0'"):
        agent.act("observation")


def test_failures_are_left_out_unless_kept() -> None:
    task = lite_tasks("lights", 1)[0]
    short = dataclasses.replace(task, budget=1)
    assert task.certificate.min_steps > 1
    left = export_task((short, "oracle", "arena-gen", "inductive", False))
    kept = export_task((short, "oracle", "arena-gen", "inductive", True))
    assert not left.success and left.records == []
    assert kept.records and kept.records[0]["success"] is False


def test_cli_writes_chat_jsonl(tmp_path: Path) -> None:
    tasks = lite_tasks("lights")
    out = tmp_path / "sft.jsonl"
    result = CliRunner().invoke(main, [
        "export-sft", "lite", "--agent", "oracle", "--env", "lights", "--tasks",
        ",".join(t.id for t in tasks), "--out", str(out), "--jobs", "1", "--display", "plain"])
    assert result.exit_code == 0, result.output
    lines = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert [x["task_id"] for x in lines] == [t.id for t in tasks]
    assert all(x["messages"][0]["role"] == "system" for x in lines)
    assert "won" in result.output
    bad = CliRunner().invoke(main, ["export-sft", "lite", "--agent", "random", "--out",
                                    str(out)])
    assert bad.exit_code == 2
