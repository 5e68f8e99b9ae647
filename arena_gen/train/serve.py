"""An OpenEnv-compatible HTTP server (``arena-gen serve``): reset/step/state over loopback, so
TRL's environment path and other OpenEnv clients play arena-gen tasks without Python imports.

Wire format (OpenEnv's HTTP shape): ``POST /reset`` ``{"task_id"?, "seed"?, "episode_id"?}``,
``POST /step`` ``{"episode_id", "action": {"text": ...}}``, ``GET /state?episode_id=``,
``GET /health``; each answers ``{"episode_id", "observation": {...}, "reward", "done"}``;
and ``/ws``, OpenEnv's WebSocket session (what its own ``EnvClient`` speaks: :func:`_session`).
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


def _reset(episodes: Episodes, doc: dict[str, Any]) -> dict[str, Any]:
    """Start (or restart) the episode a reset names; its first answer."""
    seed, eid = _seed(doc), _episode_id(doc)
    task = episodes.pick(doc.get("task_id"), seed)
    episodes.live.pop(eid, None)  # a reset of a live id starts it again
    episodes.make_room()
    ep = Episode(task, make_env(task))
    obs, info = ep.env.reset(seed=seed)
    episodes.live[eid] = ep
    return _answer(eid, ep, obs, None, info)


def _step(episodes: Episodes, eid: Any, text: str) -> dict[str, Any]:
    """Play one action in a live episode; its answer."""
    ep = episodes.get(eid)
    if ep.done:
        raise BadRequest(409, "$.episode_id: the episode is over; reset it")
    obs, reward, terminated, truncated, info = ep.env.step(text)
    ep.done, ep.steps = terminated or truncated, ep.steps + 1
    return _answer(str(eid), ep, obs, reward, info, truncated)


def _state(episodes: Episodes, eid: Any) -> dict[str, Any]:
    ep = episodes.get(eid)
    return {"episode_id": eid, "task_id": ep.task.id, "step_count": ep.steps, "done": ep.done,
            "last": ep.last}


async def _session(episodes: Episodes, request: web.Request) -> web.WebSocketResponse:
    """OpenEnv's WebSocket session (``/ws``, what its ``EnvClient`` speaks): messages
    ``{"type": "reset"|"step"|"state"|"close", "data": {...}}``, one episode per connection
    (``step``'s data is the action, ``{"text": ...}``); answers ``{"type": "observation"|
    "state"|"error", "data": {...}}``, errors with the HTTP status as their code."""
    ws = web.WebSocketResponse(max_msg_size=MAX_BODY)
    await ws.prepare(request)
    eid: str | None = None
    async for msg in ws:
        if msg.type != web.WSMsgType.TEXT:
            break
        try:
            try:
                message = json.loads(msg.data)
            except (ValueError, RecursionError):
                raise BadRequest(400, "message: not JSON") from None
            if not isinstance(message, dict) or not isinstance(message.get("data", {}), dict):
                raise BadRequest(422, "$: a message is {\"type\": ..., \"data\": {...}}")
            kind, data = message.get("type"), message.get("data") or {}
            if kind == "close":
                break
            if kind == "reset":
                body = _reset(episodes, {**data, "episode_id": data.get("episode_id") or eid})
                eid = body["episode_id"]
                answer = {"type": "observation", "data": body}
            elif kind == "step":
                answer = {"type": "observation",
                          "data": _step(episodes, eid, _action({"action": data}))}
            elif kind == "state":
                answer = {"type": "state", "data": _state(episodes, eid)}
            else:
                raise BadRequest(422, f"$.type: {str(kind)[:40]!r} is not reset, step, state "
                                      f"or close")
        except BadRequest as exc:
            answer = {"type": "error", "data": {"code": exc.status_code,
                                                "message": json.loads(exc.text or "{}")["error"]}}
        await ws.send_json(answer)
    if eid is not None:
        episodes.live.pop(eid, None)  # the session's episode ends with its connection
    await ws.close()
    return ws


def build_app(tasks: Sequence[Task], max_episodes: int = MAX_EPISODES) -> web.Application:
    """The aiohttp application serving ``tasks``."""
    episodes = Episodes(tasks, max_episodes)

    async def health(_: web.Request) -> web.Response:
        return web.json_response({"status": "healthy", "episodes": len(episodes.live),
                                  "tasks": len(episodes.order)})

    async def reset(request: web.Request) -> web.Response:
        return web.json_response(_reset(episodes, await _body(request)))

    async def step(request: web.Request) -> web.Response:
        doc = await _body(request)
        episodes.get(doc.get("episode_id"))  # an unknown episode before a bad action
        return web.json_response(_step(episodes, doc.get("episode_id"), _action(doc)))

    async def state(request: web.Request) -> web.Response:
        return web.json_response(_state(episodes, request.query.get("episode_id")))

    async def session(request: web.Request) -> web.WebSocketResponse:
        return await _session(episodes, request)

    app = web.Application(client_max_size=MAX_BODY)
    app.add_routes([web.get("/health", health), web.post("/reset", reset),
                    web.post("/step", step), web.get("/state", state), web.get("/ws", session)])
    return app
