"""A ``verifiers`` environment (the ``[verifiers]`` extra, ``verifiers`` 0.4 ``v1`` API).

``load_environment(env=..., level=..., mode=...)`` returns a ``verifiers`` ``Env`` whose taskset
(this module's id, ``arena_gen.train.verifiers_env``) yields arena-gen tasks: the certified stream
of ``env`` at ``level`` from ``seed`` (endless), or a suite's tasks (``suite=``). An episode is
multi-turn: the model is shown the LLM agent's first prompt (goal, action grammar, the rules in
``with-rules`` mode, first observation: :func:`~arena_gen.agents.llm_prompts .build_messages`),
each reply's last ``<action>`` tag is played through the env (no tag: the empty action, the env's
malformed-action feedback, one turn spent), and the next observation is the next user turn until
the episode ends; an action is cut to the LLM agent's 4096 characters (``reply_action``), so a 20
MB reply is neither played nor stored whole. The rubric is arena-gen's judge: the actions are
replayed through the task's game (:func:`~arena_gen.scoring.judge.replay_trajectory`) and the
reward ``arena_gen_success`` is 1 when the replay succeeds; metrics record the rubric items met,
the steps and the certified minimum. With ``reward="dense"`` the episode is played through
:func:`~arena_gen.train.shaping.shaped` (the certified potential-based shaping, every env): the
reward stays the judge's, and the per-turn shaped rewards are written to the trace's ``info``
(``arena_gen_turn_rewards``, one per turn; their sum is the metric ``arena_gen_shaped_return``) for
a trainer that assigns per-turn credit (``verifiers`` 0.4 has no per-turn reward of its own: its
per-token advantages are the trainer's to assign).

The model is called by this module's harness, in-process (``verifiers`` lets a harness run its
loop in-process as long as every model call goes through the rollout's interception endpoint):
no harness program, runtime install or network beyond the model endpoint. Importing this module
imports ``verifiers``; nothing else in arena-gen imports it.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any, Literal

import httpx
import verifiers.v1 as vf

from arena_gen.agents.llm import MAX_ACTION_CHARS
from arena_gen.agents.llm_parse import reply_action
from arena_gen.agents.llm_prompts import SYSTEM, build_messages, observation_text
from arena_gen.core import registry
from arena_gen.core.suite_io import read_suite, resolve_suite
from arena_gen.core.task import Task
from arena_gen.scoring.judge import replay_trajectory
from arena_gen.train.released import released_fingerprints
from arena_gen.train.shaping import shaped
from arena_gen.train.stream import StreamJob, draw, stream, stream_task_id

#: This module's taskset (and harness and env) id for ``verifiers``.
TASKSET_ID = "arena_gen_verifiers"


class ArenaGenConfig(vf.TasksetConfig):  # type: ignore[misc]
    """Which arena-gen tasks a taskset yields and how the model is shown them."""

    env: str = "lights"
    level: str = "lite"
    mode: Literal["inductive", "with-rules"] = "inductive"
    seed: int = 0
    suite: str | None = None
    version: int | None = None
    #: "dense": per-turn certified shaped rewards in the trace's info (the module docstring).
    reward: Literal["sparse", "dense"] = "sparse"


class ArenaGenData(vf.TaskData):  # type: ignore[misc]
    info: dict[str, Any]
    """Where the arena-gen task comes from (stream index or suite and task id) and the mode."""


class ArenaGenTask(vf.Task[ArenaGenData, vf.State, vf.TaskConfig]):  # type: ignore[misc]
    pass


def arena_task(info: dict[str, Any]) -> Task:
    """The arena-gen task a taskset row names (drawn again: streams reproduce by index)."""
    if "suite" in info:
        return read_suite(resolve_suite(info["suite"]), task_ids=[info["task_id"]]).task(
            info["task_id"])
    job = StreamJob(info["env"], info["version"], info["level"], info["seed"], info["index"],
                    False, released_fingerprints(info["env"]))
    return draw(job).task


class ArenaGenTaskset(vf.Taskset[ArenaGenTask, ArenaGenConfig]):  # type: ignore[misc]
    """arena-gen tasks: a stream (endless) or a suite's tasks of one env."""

    @property
    def INFINITE(self) -> bool:  # noqa: N802 (verifiers' name)
        return self.config.suite is None

    def load(self) -> Iterator[ArenaGenTask]:
        cfg = self.config
        mode: dict[str, Any] = {"mode": cfg.mode}
        if cfg.reward == "dense":
            mode["reward"] = "dense"
        if cfg.suite is not None:
            tasks = read_suite(resolve_suite(cfg.suite), envs=[cfg.env]).tasks.get(cfg.env, [])
            for task in tasks:
                yield ArenaGenTask(ArenaGenData(
                    name=task.id, prompt=None, system_prompt=SYSTEM,
                    info={"suite": str(cfg.suite), "task_id": task.id, **mode}), cfg.task)
            return
        found = stream(cfg.env, cfg.level, cfg.seed, version=cfg.version, count=0)
        for index in itertools.count():
            yield ArenaGenTask(ArenaGenData(
                name=stream_task_id(cfg.env, cfg.level, cfg.seed, index), prompt=None,
                system_prompt=SYSTEM,
                info={"env": cfg.env, "version": found.version, "level": cfg.level,
                      "seed": cfg.seed, "index": index, **mode}), cfg.task)


class ArenaGenChatConfig(vf.HarnessConfig):  # type: ignore[misc]
    pass


class ArenaGenChat(vf.Harness[ArenaGenChatConfig]):  # type: ignore[misc]
    """One chat completion per segment, in-process, through the rollout's interception."""

    APPENDS_SYSTEM_PROMPT = True
    SUPPORTS_RESUME = True
    EXECUTES_CODE = False
    NEEDS_CONTAINER = False

    async def launch(self, ctx: Any, trace: Any, runtime: Any, endpoint: str, secret: str,
                     mcp_urls: dict[str, str], data: Any, **_: Any) -> Any:
        system, prompt = self.resolve_prompt(data)
        messages: list[dict[str, Any]] = [] if system is None else [
            {"role": "system", "content": system}]
        if isinstance(prompt, str):
            messages.append({"role": "user", "content": prompt})
        else:
            messages.extend(m if isinstance(m, dict) else m.model_dump(exclude_none=True)
                            for m in prompt or [])
        body = {"model": ctx.model, "messages": messages}
        async with httpx.AsyncClient(timeout=None) as client:
            answer = await client.post(f"{endpoint.rstrip('/')}/chat/completions", json=body,
                                       headers={"Authorization": f"Bearer {secret}"})
        ok = answer.status_code < 400
        return vf.ProgramResult(exit_code=0 if ok else 1, stdout="",
                                stderr="" if ok else answer.text[:2000])


class ArenaGenEnvConfig(vf.EnvConfig):  # type: ignore[misc]
    #: the model is called in-process (the harness runs no program): a local runtime, no sandbox
    player: vf.AgentConfig = vf.AgentConfig(runtime=vf.SubprocessConfig())


class ArenaGenEnv(vf.Env[ArenaGenEnvConfig]):  # type: ignore[misc]
    """One arena-gen episode per task, judged by arena-gen's judge (the module docstring)."""

    async def run(self, task: Any, agents: Any) -> None:
        info = dict(task.data.info)
        job = arena_task(info)
        base = registry.make_env(job)
        dense = info.get("reward") == "dense"
        env = shaped(base) if dense else base
        observation, _ = env.reset()
        intro = str(job.public.get("intro", ""))
        rules = job.rules_text if info.get("mode") == "with-rules" else None
        first = build_messages(env=job.env, public=job.public, rules_text=rules, history=[],
                               observation=observation, window=None, budget=base.budget,
                               version=job.env_version)
        turns: list[dict[str, Any]] = []
        rewards: list[float] = []
        async with agents.player.interaction(task) as interaction:
            segment = await interaction.turn(first[1]["content"])
            while not segment.terminated:
                action = reply_action(segment.last_reply or "", MAX_ACTION_CHARS)
                observation, reward, terminated, truncated, facts = env.step(action)
                turns.append({"action": action, "valid": bool(facts["valid"])})
                rewards.append(float(reward))
                if terminated or truncated:
                    break
                segment = await interaction.turn(
                    observation_text(observation, intro, base.turn + 1, base.budget))
        record = {"turns": turns, "steps": len(turns), "success": bool(base.success),
                  "budget": base.budget}
        findings, _, replay = replay_trajectory(job, record, base.budget)
        trace = interaction.trace
        trace.record_reward("arena_gen_success", 1.0 if replay.success else 0.0, 1.0)
        met = sum(f.get("status") == "met" for f in findings)
        trace.record_metric("arena_gen_items_met", met / len(findings) if findings else 0.0)
        trace.record_metric("arena_gen_steps", float(replay.steps))
        trace.record_metric("arena_gen_min_steps", float(job.certificate.min_steps or 0))
        if dense:
            trace.info["arena_gen_turn_rewards"] = rewards
            trace.record_metric("arena_gen_shaped_return", sum(rewards))


def load_environment(env: str = "lights", level: str = "lite", mode: str = "inductive", *,
                     seed: int = 0, suite: str | None = None, version: int | None = None,
                     reward: str = "sparse", **env_config: Any) -> Any:
    """The ``verifiers`` env of ``env``'s tasks at ``level`` (stream from ``seed``, or
    ``suite``'s tasks) shown in ``mode``, with the ``reward="dense"`` per-turn shaped rewards
    if asked; ``env_config`` goes to ``verifiers``' env config."""
    taskset = {"id": TASKSET_ID, "env": env, "level": level, "mode": mode, "seed": seed,
               "suite": suite, "version": version, "reward": reward}
    config = vf.resolve_env_config({**env_config, "taskset": taskset})
    return vf.load_environment(config)


__all__ = ["ArenaGenChat", "ArenaGenEnv", "ArenaGenTaskset", "load_environment"]
