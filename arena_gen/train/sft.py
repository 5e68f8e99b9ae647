"""SFT data for warm starts: the LLM agent's own prompts, answered by the planner or the oracle.

Each task is played once by the LLM agent (:class:`~arena_gen.agents.llm.LLMAgent`, either
harness) whose chat client does not call a model: it answers each request with the teacher's
action for the observation just seen, written as the agent's parser reads it
(:func:`~arena_gen.agents.llm_prompts.played_text`, ``<action>...</action>``). So every prompt
is the one the LLM agent sends (its own code builds it, history and harness included) and every
reply is one it would play. A teacher action that the parser would not give back unchanged
(surrounding spaces, a code fence) is an error, never a silently different episode.

Lines of the JSONL output are chat records ``{"messages": [...], ...}``: with the ``arena-gen``
harness, whose prompt only appends, one line per episode (the last request's messages and the
last reply: every assistant message is a teacher action); with the ``odyssey`` harness, which
rebuilds one user message each step, one line per step. The other keys name the task, env,
harness, mode, teacher and (odyssey) the step. Only successful episodes are written unless
``keep_failures``.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from arena_gen.agents.llm import LLMAgent
from arena_gen.agents.llm_client import Completion
from arena_gen.agents.llm_prompts import played_text
from arena_gen.agents.registry import make_agent
from arena_gen.core.agent import Reply, TaskView
from arena_gen.core.episode import run_episode
from arena_gen.core.errors import ArenaGenError
from arena_gen.core.parallel import map_unordered
from arena_gen.core.protocol import DEFAULT_HARNESS, check_harness
from arena_gen.core.task import Task
from arena_gen.runner.run import RULES_AGENTS

#: The agents whose actions an export may record.
TEACHERS = ("planner", "oracle")
#: The model name the recorded requests carry (no model is called).
MODEL = "export-sft"


def default_mode(teacher: str) -> str:
    """The prompt mode an export uses unless told: the planner's prompts disclose the rules it
    reads; the oracle's are inductive (its privileged view is the teacher's, not the prompt's)."""
    return "with-rules" if teacher in RULES_AGENTS else "inductive"


class TeacherClient:
    """A chat client that answers each request with ``next`` in the agent's action format and
    keeps every request's messages."""

    def __init__(self) -> None:
        self.next = ""
        self.requests: list[list[dict[str, str]]] = []

    async def complete(self, payload: dict[str, Any], rng: np.random.Generator) -> Completion:
        self.requests.append(json.loads(json.dumps(payload["messages"])))
        return Completion(played_text(self.next), None, None, "stop", 0)

    async def aclose(self) -> None:
        return None


class TeacherForcedLLM:
    """The LLM agent playing the teacher's actions: the episode is the teacher's, the requests
    the LLM agent's."""

    name = MODEL
    privileged = False

    def __init__(self, teacher: str, task: Task, harness: str = DEFAULT_HARNESS) -> None:
        if teacher not in TEACHERS:
            raise ArenaGenError(f"--agent must be one of {', '.join(TEACHERS)}, got {teacher!r}")
        self.client = TeacherClient()
        self.llm = LLMAgent(model=MODEL, client=self.client,  # type: ignore[arg-type]
                            harness=check_harness(harness))
        self.harness = self.llm.harness
        self.task = task
        self.teacher_name = teacher
        self.teacher = make_agent(teacher, task.env, version=task.env_version)
        self.replies: list[str] = []

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        self.llm.reset(view, mode, np.random.default_rng(0))  # its rng only jitters retries
        own = "with-rules" if self.teacher_name in RULES_AGENTS else mode
        privileged = bool(getattr(self.teacher, "privileged", False))
        self.teacher.reset(TaskView.of(self.task, own, privileged=privileged), own, rng)
        self.replies = []

    def act(self, observation: str) -> Reply:
        said = self.teacher.act(observation)
        action = said.action if isinstance(said, Reply) else str(said)
        self.client.next = action
        reply = asyncio.run(self.llm.aact(observation))
        if reply.action != action:
            raise ArenaGenError(f"task {self.task.id}: the {self.teacher_name}'s action "
                                f"{action!r} reads back as {reply.action!r} through the LLM "
                                f"agent's parser")
        self.replies.append(played_text(action))
        return reply


@dataclass
class Exported:
    """One task's export: its chat records and the episode's outcome."""

    task_id: str
    success: bool
    end_reason: str
    steps: int
    records: list[dict[str, Any]] = field(default_factory=list)


def chat_records(agent: TeacherForcedLLM, meta: dict[str, Any]) -> list[dict[str, Any]]:
    """The chat records of a played episode (see the module docstring)."""
    requests, replies = agent.client.requests, agent.replies
    if not requests:
        return []
    if agent.harness != DEFAULT_HARNESS:
        return [{"messages": [*messages, {"role": "assistant", "content": reply}],
                 **meta, "step": step}
                for step, (messages, reply) in enumerate(zip(requests, replies, strict=True),
                                                         start=1)]
    final = [*requests[-1], {"role": "assistant", "content": replies[-1]}]
    for messages, reply in zip(requests, replies, strict=True):  # the prompt only appends
        n = len(messages)
        if final[:n] != messages or final[n] != {"role": "assistant", "content": reply}:
            raise ArenaGenError(f"task {meta['task_id']}: a request is not a prefix of the "
                                f"episode's last one; the one-line export does not apply")
    return [{"messages": final, **meta}]


def export_task(args: tuple[Task, str, str, str, bool]) -> Exported:
    """Play one task with the teacher behind the LLM agent and return its chat records."""
    task, teacher, harness, mode, keep_failures = args
    agent = TeacherForcedLLM(teacher, task, harness)
    record = run_episode(task, agent, mode=mode)
    if record["end_reason"] in ("agent_error", "env_error"):
        raise ArenaGenError(f"task {task.id}: the {teacher} episode ended in "
                            f"{record['end_reason']}: {record.get('error', '')}")
    done = Exported(task.id, bool(record["success"]), record["end_reason"], record["steps"])
    if done.success or keep_failures:
        meta = {"task_id": task.id, "env": task.env, "env_version": task.env_version,
                "harness": agent.harness, "mode": mode, "agent": teacher,
                "success": done.success}
        done.records = chat_records(agent, meta)
    return done


def export_sft(tasks: Sequence[Task], teacher: str, *, harness: str = DEFAULT_HARNESS,
               mode: str | None = None, keep_failures: bool = False,
               jobs: int = 1) -> Iterator[Exported]:
    """Export every task (in the given order, played by ``jobs`` workers)."""
    if teacher not in TEACHERS:
        raise ArenaGenError(f"--agent must be one of {', '.join(TEACHERS)}, got {teacher!r}")
    mode = mode or default_mode(teacher)
    check_harness(harness)
    todo = [(t, teacher, harness, mode, keep_failures) for t in tasks]
    ready: dict[str, Exported] = {}
    order = iter(t.id for t in tasks)
    following = next(order, None)
    for done in map_unordered(export_task, todo, jobs=jobs):
        ready[done.task_id] = done
        while following is not None and following in ready:
            yield ready.pop(following)
            following = next(order, None)


def write_jsonl(path: str | os.PathLike[str], records: Sequence[dict[str, Any]]) -> None:
    """Write chat records, one JSON object a line, through a temporary file (all or nothing:
    a failed write, a full disk say, removes the temporary file and leaves ``path`` as it was)."""
    out = Path(path)
    tmp = out.with_name(f".{out.name}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
            for rec in records:
                fh.write(json.dumps(rec, ensure_ascii=False, separators=(",", ":")) + "\n")
        os.replace(tmp, out)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


__all__ = ["TEACHERS", "Exported", "TeacherClient", "TeacherForcedLLM", "chat_records",
           "default_mode", "export_sft", "export_task", "write_jsonl"]
