"""An OpenEnv-compatible HTTP server (``arena-gen serve``): reset/step/state over loopback, so
TRL's environment path and other OpenEnv clients play arena-gen tasks without Python imports.

Wire format (OpenEnv's HTTP shape): ``POST /reset`` ``{"task_id"?, "seed"?, "episode_id"?}``,
``POST /step`` ``{"episode_id", "action": {"text": ...}}``, ``GET /state?episode_id=``,
``GET /health``; each answers ``{"episode_id", "observation": {...}, "reward", "done"}``.
Many episodes run at once, keyed by episode id. Every input is bounded: the request body
(``MAX_BODY``), the action text, the number of live episodes; a bad request gets a 4xx whose
``error`` names the field. A malformed action is not a bad request: it costs a turn, as always.
"""

from __future__ import annotations

import json
import uuid
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from arena_gen.core.registry import make_env
from arena_gen.core.task import Task

#: Largest request body accepted (bytes): an action is a line of text, never megabytes.
MAX_BODY = 64 * 1024
#: Longest action text (characters).
MAX_ACTION = 8 * 1024
#: Longest episode id a client may choose.
MAX_EPISODE_ID = 128
#: Live episodes held by default; past it the oldest finished one is dropped, else 429.
MAX_EPISODES = 1024
INFO_KEYS = ("valid", "turn", "turns_left", "success", "feedback")


class BadRequest(web.HTTPException):
    """A 4xx with a JSON body ``{"error": ...}`` naming what was wrong."""

    def __init__(self, status: int, message: str) -> None:
        self.status_code = status
        super().__init__(text=json.dumps({"error": message}), content_type="application/json")


@dataclass
class Episode:
    """One live episode: its task, env and whether it has ended."""

    task: Task
    env: Any
    done: bool = False
    steps: int = 0
    last: dict[str, Any] = field(default_factory=dict)


class Episodes:
    """The live episodes, keyed by id, at most ``limit`` of them."""

    def __init__(self, tasks: Sequence[Task], limit: int = MAX_EPISODES) -> None:
        if not tasks:
            raise ValueError("serve needs at least one task")
        self.tasks = {t.id: t for t in tasks}
        self.order = [t.id for t in tasks]
        self.limit = limit
        self.live: OrderedDict[str, Episode] = OrderedDict()

    def pick(self, task_id: Any, seed: Any) -> Task:
        """The task a reset names, else the one ``seed`` picks (seeded, reproducible)."""
        if task_id is not None:
            if not isinstance(task_id, str) or task_id not in self.tasks:
                raise BadRequest(404, f"$.task_id: no task {str(task_id)[:80]!r} is served")
            return self.tasks[task_id]
        if seed is None:
            return self.tasks[self.order[0]]
        import numpy as np

        index = int(np.random.default_rng(np.random.SeedSequence(seed)).integers(len(self.order)))
        return self.tasks[self.order[index]]

    def make_room(self) -> None:
        """Drop the oldest finished episode when full; 429 when every one is still playing."""
        if len(self.live) < self.limit:
            return
        for eid, ep in self.live.items():
            if ep.done:
                del self.live[eid]
                return
        raise BadRequest(429, f"{self.limit} episodes are playing; finish one first")

    def get(self, episode_id: Any) -> Episode:
        if not isinstance(episode_id, str):
            raise BadRequest(422, "$.episode_id: required, a string")
        ep = self.live.get(episode_id)
        if ep is None:
            raise BadRequest(404, f"$.episode_id: no live episode {episode_id[:80]!r}")
        return ep


def _answer(eid: str, ep: Episode, obs: str, reward: float | None, info: dict[str, Any],
            truncated: bool = False) -> dict[str, Any]:
    """The OpenEnv step result of an episode's latest turn."""
    body = {"episode_id": eid, "task_id": ep.task.id, "reward": reward, "done": ep.done,
            "observation": {"text": obs, "truncated": truncated,
                            **{k: info[k] for k in INFO_KEYS if k in info}}}
    ep.last = body
    return body


async def _body(request: web.Request) -> dict[str, Any]:
    """The request's JSON object (bounded by the app's ``client_max_size``)."""
    try:
        raw = await request.read()
    except web.HTTPRequestEntityTooLarge:
        raise BadRequest(413, f"request body over {MAX_BODY} bytes") from None
    if not raw.strip():
        return {}
    try:
        doc = json.loads(raw)
    except (ValueError, RecursionError):
        raise BadRequest(400, "body: not JSON") from None
    if not isinstance(doc, dict):
        raise BadRequest(422, "$: the body must be a JSON object")
    return doc


def _seed(doc: dict[str, Any]) -> int | None:
    seed = doc.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)
                             or not 0 <= seed < 2**63):
        raise BadRequest(422, "$.seed: a non-negative integer below 2**63")
    return seed


def _episode_id(doc: dict[str, Any]) -> str:
    eid = doc.get("episode_id")
    if eid is None:
        return uuid.uuid4().hex
    if not isinstance(eid, str) or not 0 < len(eid) <= MAX_EPISODE_ID or not eid.isprintable():
        raise BadRequest(422, f"$.episode_id: a printable string of 1 to {MAX_EPISODE_ID} "
                              f"characters")
    return eid


def _action(doc: dict[str, Any]) -> str:
    action = doc.get("action")
    text = action.get("text") if isinstance(action, dict) else action
    if not isinstance(text, str):
        raise BadRequest(422, "$.action.text: required, a string")
    if len(text) > MAX_ACTION:
        raise BadRequest(413, f"$.action.text: over {MAX_ACTION} characters")
    return text


def build_app(tasks: Sequence[Task], max_episodes: int = MAX_EPISODES) -> web.Application:
    """The aiohttp application serving ``tasks``."""
    episodes = Episodes(tasks, max_episodes)

    async def health(_: web.Request) -> web.Response:
        return web.json_response({"status": "healthy", "episodes": len(episodes.live),
                                  "tasks": len(episodes.order)})

    async def reset(request: web.Request) -> web.Response:
        doc = await _body(request)
        seed, eid = _seed(doc), _episode_id(doc)
        task = episodes.pick(doc.get("task_id"), seed)
        episodes.live.pop(eid, None)  # a reset of a live id starts it again
        episodes.make_room()
        ep = Episode(task, make_env(task))
        obs, info = ep.env.reset(seed=seed)
        episodes.live[eid] = ep
        return web.json_response(_answer(eid, ep, obs, None, info))

    async def step(request: web.Request) -> web.Response:
        doc = await _body(request)
        ep = episodes.get(doc.get("episode_id"))
        text = _action(doc)
        if ep.done:
            raise BadRequest(409, "$.episode_id: the episode is over; reset it")
        obs, reward, terminated, truncated, info = ep.env.step(text)
        ep.done, ep.steps = terminated or truncated, ep.steps + 1
        return web.json_response(_answer(str(doc["episode_id"]), ep, obs, reward, info,
                                         truncated))

    async def state(request: web.Request) -> web.Response:
        ep = episodes.get(request.query.get("episode_id"))
        return web.json_response({"episode_id": request.query["episode_id"],
                                  "task_id": ep.task.id, "step_count": ep.steps,
                                  "done": ep.done, "last": ep.last})

    app = web.Application(client_max_size=MAX_BODY)
    app.add_routes([web.get("/health", health), web.post("/reset", reset),
                    web.post("/step", step), web.get("/state", state)])
    return app
