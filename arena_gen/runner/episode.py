"""Play one episode: an agent against the registered env of a task, every turn recorded.

One turn is one agent call and one ``env.step``. The agent's errors never escape: an
:class:`InfraError` (endpoint down after retries) ends the attempt as ``infra_error``; any other
exception from the agent ends it as ``agent_error``. Both are recorded, not raised.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..agents.base import TaskView
from ..core.task import Task
from ..verifiers.replay import make_env

#: Per-turn bookkeeping keys of ``info``; the rest is the env state (used for loop detection).
_TURN_KEYS = ("valid", "feedback", "turn", "turns_left")


class InfraError(Exception):
    """The agent's infrastructure failed (e.g. HTTP errors after every retry)."""


@dataclass
class Reply:
    """An agent turn with more than the action: raw output, tokens, reasoning."""

    action: str
    raw: str | None = None
    tokens: dict[str, int] | None = None
    reasoning: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def agent_seed(run_seed: int, task: Task, attempt: int) -> list[int]:
    """The entropy of an agent's RNG for one (task, attempt): recorded, never hashed from text."""
    return [int(run_seed), *[int(x) for x in task.seed_path], int(attempt)]


def run_episode(task: Task, agent: Any, *, mode: str = "inductive", attempt: int = 0,
                run_seed: int = 0) -> dict[str, Any]:
    """Play one attempt and return its trajectory record (one line of trajectories.jsonl)."""
    seed = agent_seed(run_seed, task, attempt)
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed)))
    view = TaskView.of(task, mode, privileged=bool(getattr(agent, "privileged", False)))
    env = make_env(task)
    obs, info = env.reset(seed=None)
    start_state = {k: v for k, v in info.items() if k not in _TURN_KEYS}
    turns: list[dict[str, Any]] = []
    end_reason = "budget"
    error: str | None = None
    started = time.perf_counter()
    try:
        agent.reset(view, mode, rng)
    except InfraError as exc:
        end_reason, error = "infra_error", str(exc)
    except Exception as exc:  # an agent bug must not kill the run
        end_reason, error = "agent_error", f"{type(exc).__name__}: {exc}"
    while error is None:
        t0 = time.perf_counter()
        try:
            reply = agent.act(obs)
        except InfraError as exc:
            end_reason, error = "infra_error", str(exc)
            break
        except Exception as exc:
            end_reason, error = "agent_error", f"{type(exc).__name__}: {exc}"
            break
        latency = time.perf_counter() - t0
        if not isinstance(reply, Reply):
            reply = Reply(action=str(reply))
        obs, reward, terminated, truncated, info = env.step(reply.action)
        record: dict[str, Any] = {
            "turn": env.turn, "raw": reply.raw if reply.raw is not None else reply.action,
            "action": reply.action, "valid": bool(info["valid"]),
            "feedback": str(info.get("feedback", "")), "reward": float(reward),
            "tokens": reply.tokens, "latency": round(latency, 6),
            "state": {k: v for k, v in info.items() if k not in _TURN_KEYS},
        }
        if reply.reasoning is not None:
            record["reasoning"] = reply.reasoning
        if reply.extra:
            record.update(reply.extra)
        turns.append(record)
        if terminated or truncated:
            end_reason = "success" if env.success else ("terminated" if terminated else "budget")
            break
    result = {
        "task_id": task.id, "env": task.env, "attempt": attempt,
        "agent": getattr(agent, "name", type(agent).__name__), "mode": mode,
        "agent_seed": seed, "steps": len(turns), "success": bool(env.success),
        "end_reason": end_reason, "final_info": info, "start_state": start_state,
        "turns": turns,
        "min_steps": task.certificate.min_steps, "budget": task.budget,
        "seconds": round(time.perf_counter() - started, 6),
    }
    if error is not None:
        result["error"] = error
    return result
