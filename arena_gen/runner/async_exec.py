"""Async execution for network-bound agents: many episodes as asyncio tasks in one process.

Env steps are cheap and synchronous; the time goes into waiting for the endpoint. So episodes
run as asyncio tasks on one event loop, all sharing one :class:`~..agents.llm_client.ChatClient`
whose semaphore bounds the requests in flight (``max_connections``). At most
``max(jobs, 2 x max_connections)`` episodes are open at once, so episodes keep finishing (and
being appended to the run directory) while the run goes on. :func:`execute_async` is a plain
generator that yields finished records, the same contract as the other executors.

:func:`run_episode_async` drives the same :class:`..episode.Episode` bookkeeping as
:func:`..episode.run_episode`, awaiting the agent instead of calling it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import numpy as np

from arena_gen.agents.registry import make_agent
from arena_gen.core.agent import TaskView
from arena_gen.core.episode import Episode
from arena_gen.core.task import Task
from arena_gen.runner.spend import Spend


async def _act(agent: Any, observation: str) -> Any:
    if hasattr(agent, "aact"):
        return await agent.aact(observation)
    return agent.act(observation)


async def run_episode_async(task: Task, agent: Any, *, mode: str = "inductive", attempt: int = 0,
                            run_seed: int = 0, spend: Spend | None = None,
                            probes: int = 0) -> dict[str, Any]:
    """Play one attempt, awaiting the agent; the same :class:`Episode` as ``run_episode``
    (``spend``: count each turn's tokens, :class:`SpendStop` once a cap is reached; ``probes``:
    questions per milestone, asked in the agent's forked conversation)."""
    episode = Episode(task, agent, mode=mode, attempt=attempt, run_seed=run_seed, probes=probes)
    while not episode.over:
        t0 = time.perf_counter()
        try:
            reply = await _act(agent, episode.obs)
        except Exception as exc:  # an agent bug must not kill the run
            episode.fail(exc)
            break
        episode.step(reply, time.perf_counter() - t0)
        if spend is not None:
            tokens = getattr(reply, "tokens", None)
            spend.add(tokens if isinstance(tokens, dict) else None)
            spend.check()
        await _ask_probes(episode, spend)
    await _ask_probes(episode, spend)  # the end, when the agent's failure ended the episode
    return episode.result()


async def _ask_probes(episode: Episode, spend: Spend | None) -> None:
    """Ask the milestones due now; their probe requests count against the run's caps."""
    asked = len(episode.probe_milestones)
    await episode.aask_probes()
    if spend is not None and len(episode.probe_milestones) > asked:
        spend.add_milestones(episode.probe_milestones[asked:])
        spend.check()


async def _play(args: tuple[Any, ...], client: Any, spend: Spend | None = None) -> Any:
    task, agent_name, agent_config, mode, attempt, seed = args[:6]
    probes = int(args[6]) if len(args) > 6 else 0
    try:
        agent = make_agent(agent_name, task.env, agent_config, task.env_version)
    except Exception as exc:  # a bad config is the agent's error, recorded per attempt
        agent = _Broken(f"{type(exc).__name__}: {exc}")
    if client is not None and hasattr(agent, "client"):
        agent.client = client
    return await run_episode_async(task, agent, mode=mode, attempt=attempt, run_seed=seed,
                                   spend=spend, probes=probes)


class _Broken:
    """Stands in for an agent that could not be built, so the failure is recorded, not raised."""

    name = "broken"
    privileged = False

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        raise RuntimeError(self.reason)

    def act(self, observation: str) -> str:  # pragma: no cover - reset always fails first
        raise RuntimeError(self.reason)


def _shared_client(pending: list[Any]) -> Any:
    """One client for the whole run, built from the first episode's agent config."""
    task, agent_name, agent_config = pending[0][0], pending[0][1], pending[0][2]
    agent = make_agent(agent_name, task.env, agent_config, task.env_version)
    make = getattr(agent, "make_client", None)
    return make() if make is not None else None


def execute_async(pending: list[Any], jobs: int = 1,
                  spend: Spend | None = None) -> Iterator[dict[str, Any]]:
    """Yield finished episode records as they complete, episodes running as asyncio tasks
    (``spend``: a cap reached in any turn raises :class:`SpendStop` once the episodes that
    finished with it are yielded; the others are cancelled)."""
    if not pending:
        return
    loop = asyncio.new_event_loop()
    client = _shared_client(pending)
    width = max(int(jobs), 2 * int(getattr(client, "max_connections", 1) or 1), 1)
    queue = iter(pending)
    running: set[asyncio.Task[Any]] = set()
    try:
        while True:
            while len(running) < width:
                args = next(queue, None)
                if args is None:
                    break
                running.add(loop.create_task(_play(args, client, spend)))
            if not running:
                break
            done, running = loop.run_until_complete(
                asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED))
            finished, error = _outcomes(done)
            yield from finished  # a failed episode loses none that finished beside it
            if error is not None:
                raise error
    finally:
        _wind_down(loop, client)


def _outcomes(done: set[asyncio.Task[Any]]
              ) -> tuple[list[dict[str, Any]], BaseException | None]:
    """The records of finished episodes in key order and the first exception among them; every
    exception is retrieved (an unretrieved one prints a traceback when it is collected)."""
    errors = [exc for fut in done if (exc := fut.exception()) is not None]
    finished = sorted((fut.result() for fut in done if fut.exception() is None),
                      key=lambda r: (r["task_id"], r["attempt"]))
    return finished, (errors[0] if errors else None)


def _wind_down(loop: asyncio.AbstractEventLoop, client: Any) -> None:
    """Cancel every task still on the loop (episodes, and requests abandoned after their
    deadline), retrieve their outcomes, close the client and the loop: nothing is left to print
    'Task exception was never retrieved' or 'Task was destroyed but it is pending'."""
    def settle(tasks: list[asyncio.Task[Any]]) -> None:
        for task in tasks:
            task.cancel()
        if tasks:
            loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))

    settle([t for t in running_episodes(loop) if not t.done()])
    if client is not None:  # closing the pool ends the abandoned requests' waits at once
        loop.run_until_complete(client.aclose())
    left = [t for t in asyncio.all_tasks(loop) if not t.done()]
    if left:  # a moment to end by themselves (cancelling one mid-connect leaks a coroutine)
        loop.run_until_complete(asyncio.wait(left, timeout=1.0))
    settle([t for t in left if not t.done()])
    loop.close()


def running_episodes(loop: asyncio.AbstractEventLoop) -> list[asyncio.Task[Any]]:
    """The loop's episode tasks (those :func:`execute_async` created from ``_play``)."""
    return [t for t in asyncio.all_tasks(loop)
            if getattr(t.get_coro(), "__name__", "") == "_play"]
