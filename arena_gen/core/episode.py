"""Play one episode: an agent against the registered env of a task, every turn recorded.

One turn is one agent call and one ``env.step``. The agent's errors never escape: an
:class:`InfraError` (endpoint down after retries) ends the attempt as ``infra_error``; any other
exception from the agent ends it as ``agent_error``; a :class:`QuitEpisode` (a person who
typed ``:quit`` or pressed Ctrl-C) ends it as ``quit``. An exception from the env itself (a bug
in a game rule: anything but the :class:`~arena_gen.core.game.ActionError` a malformed action
raises, which the env turns into feedback) ends it as ``env_error``: the turn that raised is
kept apart (``error_turn``, not in ``turns``, so a replay of the recorded turns reproduces the
state before it), the exception text goes to ``error``, and the run goes on; a reset that raises
ends the attempt the same way before its first turn. All are recorded, not raised.

The agent's ``harness`` (``arena-gen`` unless it says otherwise) picks the env-side
:class:`~arena_gen.core.protocol.Protocol`: the step budget and which observation lines show.
A trajectory played under another harness than arena-gen's records it (``harness``), and every
trajectory records the ``budget`` it ran under: the one :func:`~arena_gen.core.budget
.harness_budget` gives the task under that harness (the protocol's, else the task's own), which
the judge replays under and checks against the run's harness.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from arena_gen.core.agent import InfraError, QuitEpisode, Reply, TaskView
from arena_gen.core.budget import protocol_for
from arena_gen.core.probe_ask import aask, ask, milestone_record, milestones, probe_key
from arena_gen.core.probes import Probe, draw, offers_probes
from arena_gen.core.protocol import DEFAULT_HARNESS, protocol_budget
from arena_gen.core.records import Trajectory
from arena_gen.core.registry import make_env
from arena_gen.core.task import Task
from arena_gen.core.usage import clean_usage

#: Per-turn bookkeeping keys of ``info``; the rest is the env state (used for loop detection).
_TURN_KEYS = ("valid", "feedback", "turn", "turns_left")
__all__ = ["Episode", "InfraError", "Reply", "agent_seed", "run_episode", "turns_played"]
#: Turns recorded by every episode of this process so far (see :func:`turns_played`).
_turns_played = 0


def turns_played() -> int:
    """Turns every episode in this process has recorded so far, read by a run's heartbeat while
    episodes are still going (episodes in worker processes count in their own process)."""
    return _turns_played


def agent_seed(run_seed: int, task: Task, attempt: int) -> list[int]:
    """The entropy of an agent's RNG for one (task, attempt): recorded, never hashed from text."""
    return [int(run_seed), *[int(x) for x in task.seed_path], int(attempt)]


class Episode:
    """One attempt's bookkeeping, shared by the sync and async loops: reset, turns, result."""

    def __init__(self, task: Task, agent: Any, *, mode: str = "inductive", attempt: int = 0,
                 run_seed: int = 0, probes: int = 0) -> None:
        self.task, self.agent, self.mode, self.attempt = task, agent, mode, attempt
        self.seed = agent_seed(run_seed, task, attempt)
        self.harness = str(getattr(agent, "harness", DEFAULT_HARNESS))
        self.protocol = protocol_for(self.harness, task)
        #: The steps this attempt may take (the env truncates there; the record carries it).
        self.budget = protocol_budget(self.protocol, task)
        self.turns: list[dict[str, Any]] = []
        self.end_reason = "budget"
        self.done = False
        self.error: str | None = None
        self.error_turn: dict[str, Any] | None = None
        self.started = time.perf_counter()
        self.env: Any = None
        try:
            self.env = make_env(task, self.protocol if self.harness != DEFAULT_HARNESS else None)
            self.obs, self.info = self.env.reset(seed=None)
        except Exception as exc:  # the run's up-front compile passed, but this build did not
            self.obs, self.info = "", {}
            self.end_reason, self.error = "env_error", f"{type(exc).__name__}: {exc}"[:2000]
        self.start_state = {k: v for k, v in self.info.items() if k not in _TURN_KEYS}
        #: probes per milestone (0: off), the game asked about, the states visited so far
        #: (the start, then after every turn) and the milestones asked
        self.probe_count = int(probes)
        game = getattr(self.env, "game", None)
        self.probe_game = game if self.probe_count and offers_probes(game) else None
        self.visited: list[Any] = [self.env.state] if self.probe_game is not None else []
        self.probe_milestones: list[dict[str, Any]] = []
        self.probe_seconds = 0.0
        self._probe_plan = (milestones(int(getattr(self.env, "budget", self.budget)))
                            if self.probe_game is not None else [])
        self._probe_key: str | None = None  # the probe streams' key, hashed at first use
        if self.error is not None:
            return
        rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(self.seed)))
        view = TaskView.of(task, mode, privileged=bool(getattr(agent, "privileged", False)))
        try:
            agent.reset(view, mode, rng)
        except Exception as exc:
            self.fail(exc)

    @property
    def over(self) -> bool:
        return self.done or self.error is not None

    def fail(self, exc: Exception) -> None:
        """End the attempt on an agent failure: infra errors and agent bugs are recorded."""
        if isinstance(exc, QuitEpisode):
            self.end_reason = "quit"
        elif isinstance(exc, InfraError):
            self.end_reason, self.error = "infra_error", str(exc)
        else:
            self.end_reason, self.error = "agent_error", f"{type(exc).__name__}: {exc}"

    def step(self, reply: Any, latency: float) -> None:
        """Apply one agent reply to the env and record the turn."""
        if not isinstance(reply, Reply):
            reply = Reply(action=str(reply))
        try:
            self.obs, reward, terminated, truncated, self.info = self.env.step(reply.action)
        except Exception as exc:  # a bug in the game's rules must not end the run
            self.end_reason, self.error = "env_error", f"{type(exc).__name__}: {exc}"[:2000]
            self.error_turn = {"turn": len(self.turns) + 1, "action": reply.action,
                               "raw": reply.raw if reply.raw is not None else reply.action,
                               "latency": round(latency, 6)}
            return
        info = self.info
        tokens, dropped = clean_usage(reply.tokens if isinstance(reply.tokens, dict) else None)
        record: dict[str, Any] = {
            "turn": self.env.turn, "raw": reply.raw if reply.raw is not None else reply.action,
            "action": reply.action, "valid": bool(info["valid"]),
            "feedback": str(info.get("feedback", "")), "reward": float(reward),
            "tokens": tokens, "latency": round(latency, 6),
            "state": {k: v for k, v in info.items() if k not in _TURN_KEYS},
        }
        if reply.reasoning is not None:
            record["reasoning"] = reply.reasoning
        if reply.extra:
            record.update(reply.extra)
        if dropped:  # a usage that is no count (1e400, -5): kept out of every figure, noted
            record["usage_dropped"] = dropped
        self.turns.append(record)
        if self.probe_game is not None:
            self.visited.append(self.env.state)
        global _turns_played
        _turns_played += 1
        if terminated or truncated:
            self.done = True
            self.end_reason = ("success" if self.env.success
                               else ("terminated" if terminated else "budget"))

    def probes_due(self) -> tuple[int, int, str, list[Probe]] | None:
        """The next milestone to ask now (index, turn, label, its probes), or None: one whose
        turn was just reached, or, once the episode is over, each one it did not reach, at its
        final state (:func:`~.probe_ask.schedule`)."""
        if self.probe_game is None or self.end_reason == "infra_error":
            return None
        index, steps = len(self.probe_milestones), len(self.turns)
        if index >= len(self._probe_plan):
            return None
        turn, label = self._probe_plan[index]
        if turn != steps and not (self.over and turn > steps):
            return None
        if self._probe_key is None:
            self._probe_key = probe_key(self.task)
        probes = draw(self.probe_game, self.env.state, list(self.visited), self._probe_key,
                      self.attempt, index, self.probe_count)
        return index, steps, label, probes

    def record_probes(self, due: tuple[int, int, str, list[Probe]], raw: Any,
                      error: str | None, seconds: float) -> None:
        """Record one milestone's replies (the episode itself is left as it was)."""
        index, turn, label, probes = due
        self.probe_seconds += seconds
        self.probe_milestones.append(
            milestone_record(index, turn, label, probes, raw, error, self.agent, seconds))

    def ask_probes(self) -> None:
        """Ask the milestones due now, if any (blocking agent calls)."""
        while (due := self.probes_due()) is not None:
            raw, error, seconds = ask(self.agent, due[3], str(self.obs))
            self.record_probes(due, raw, error, seconds)

    async def aask_probes(self) -> None:
        """:meth:`ask_probes` awaiting the agent."""
        while (due := self.probes_due()) is not None:
            raw, error, seconds = await aask(self.agent, due[3], str(self.obs))
            self.record_probes(due, raw, error, seconds)

    def result(self) -> dict[str, Any]:
        """The trajectory record (one line of trajectories.jsonl), built as a typed record."""
        result: dict[str, Any] = {
            "task_id": self.task.id, "env": self.task.env, "attempt": self.attempt,
            "agent": getattr(self.agent, "name", type(self.agent).__name__), "mode": self.mode,
            "agent_seed": self.seed, "steps": len(self.turns),
            # the env's state is not trusted after it raised: an env error never succeeds
            "success": self.end_reason != "env_error" and bool(self.env.success),
            "end_reason": self.end_reason,
            "final_info": self.info,
            "start_state": self.start_state, "turns": self.turns,
            "min_steps": self.task.certificate.min_steps,
            # what the env truncated at (a custom env class may not read the protocol)
            "budget": int(getattr(self.env, "budget", self.budget)),
            # the episode's own time: the probes' is recorded per milestone
            "seconds": round(time.perf_counter() - self.started - self.probe_seconds, 6),
        }
        if self.probe_count:
            result["probes"] = self.probe_milestones
        if self.harness != DEFAULT_HARNESS:
            result["harness"] = self.harness
        if self.error is not None:
            result["error"] = self.error
        if self.error_turn is not None:
            result["error_turn"] = self.error_turn
        return Trajectory.model_validate(result).to_json_dict()


def run_episode(task: Task, agent: Any, *, mode: str = "inductive", attempt: int = 0,
                run_seed: int = 0, probes: int = 0) -> dict[str, Any]:
    """Play one attempt and return its trajectory record (one line of trajectories.jsonl);
    ``probes``: questions per milestone asked to the agent's side copy (0: none)."""
    episode = Episode(task, agent, mode=mode, attempt=attempt, run_seed=run_seed, probes=probes)
    while not episode.over:
        t0 = time.perf_counter()
        try:
            reply = agent.act(episode.obs)
        except Exception as exc:  # an agent bug must not kill the run
            episode.fail(exc)
            break
        episode.step(reply, time.perf_counter() - t0)
        episode.ask_probes()
    episode.ask_probes()  # the end, when the agent's failure ended the episode
    seen = getattr(agent, "observe_end", None)  # an agent that shows the end (a person)
    if episode.done and callable(seen):
        seen(episode.obs)
    return episode.result()


def agent_view(task: Task, mode: str) -> dict[str, Any]:
    """Everything a (non-privileged) agent is shown before it first acts in ``mode``: its
    :class:`TaskView` and the first observation, never params, seed path, world or certificate
    (``arena-gen show`` prints this, so what it prints is what the agent sees)."""
    view = TaskView.of(task, mode)
    observation, _ = make_env(task).reset(seed=None)
    return {"task_id": view.task_id, "env": view.env, "env_version": view.env_version,
            "mode": mode, "budget": view.budget, "public": view.public,
            "rules_text": view.rules_text, "observation": str(observation)}
