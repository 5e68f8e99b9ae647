"""``arena-gen serve`` (#40): an OpenEnv-style HTTP client plays lights tasks to success over
loopback (their witnesses), many episodes at once, and bad input gets a 4xx naming the field."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from aiohttp import web
from click.testing import CliRunner

import arena_gen
from arena_gen.cli import main
from arena_gen.train.serve import MAX_ACTION, MAX_BODY, build_app

TASKS = ["lights-lite-7-0000", "lights-lite-7-0001"]


@pytest.fixture(scope="module")
def tasks() -> list[Any]:
    return arena_gen.load_suite("lite", task_ids=TASKS).all_tasks()


@contextlib.contextmanager
def serving(tasks: list[Any], max_episodes: int) -> Iterator[str]:
    """The server on an ephemeral loopback port, in a thread of its own."""
    loop = asyncio.new_event_loop()
    runner = web.AppRunner(build_app(tasks, max_episodes=max_episodes))
    loop.run_until_complete(runner.setup())
    site = web.TCPSite(runner, "127.0.0.1", 0)
    loop.run_until_complete(site.start())
    port = runner.addresses[0][1]
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)
        loop.run_until_complete(runner.cleanup())
        loop.close()


@pytest.fixture(scope="module")
def base_url(tasks: list[Any]) -> Iterator[str]:
    with serving(tasks, 64) as url:
        yield url


class OpenEnvClient:
    """What an OpenEnv HTTP client does: POST /reset, POST /step {"action": {...}}, GET /state."""

    def __init__(self, base_url: str) -> None:
        self.http = httpx.Client(base_url=base_url, timeout=10)

    def reset(self, **kw: Any) -> dict[str, Any]:
        return dict(self.http.post("/reset", json=kw).raise_for_status().json())

    def step(self, episode_id: str, text: str) -> dict[str, Any]:
        body = {"episode_id": episode_id, "action": {"text": text}}
        return dict(self.http.post("/step", json=body).raise_for_status().json())

    def state(self, episode_id: str) -> dict[str, Any]:
        got = self.http.get("/state", params={"episode_id": episode_id})
        return dict(got.raise_for_status().json())


def test_a_client_plays_interleaved_episodes_to_success(base_url: str, tasks: list[Any]) -> None:
    client = OpenEnvClient(base_url)
    first = {t.id: client.reset(task_id=t.id, episode_id=f"ep-{t.id}") for t in tasks}
    assert all(r["done"] is False and r["reward"] is None for r in first.values())
    assert all("Turns left" in r["observation"]["text"] for r in first.values())
    witnesses = {t.id: list(t.certificate.witness) for t in tasks}
    last: dict[str, dict[str, Any]] = {}
    for i in range(max(len(w) for w in witnesses.values())):  # both episodes, turn by turn
        for tid, witness in witnesses.items():
            if i < len(witness):
                last[tid] = client.step(f"ep-{tid}", witness[i])
    for t in tasks:
        result = last[t.id]
        assert result["done"] is True and result["observation"]["success"] is True
        assert result["observation"]["turn"] == len(witnesses[t.id]) == t.certificate.min_steps
        state = client.state(f"ep-{t.id}")
        assert state["step_count"] == len(witnesses[t.id]) and state["task_id"] == t.id


def test_a_malformed_action_costs_a_turn_and_a_seed_picks_the_task(base_url: str) -> None:
    client = OpenEnvClient(base_url)
    r = client.reset(seed=7)
    assert r["task_id"] in TASKS and client.reset(seed=7)["task_id"] == r["task_id"]
    got = client.step(r["episode_id"], "flip every switch please")
    assert got["observation"]["valid"] is False and got["observation"]["turn"] == 1
    assert got["done"] is False


@pytest.mark.parametrize(("path", "body", "status", "names"), [
    ("/step", {"episode_id": "nope", "action": {"text": "x"}}, 404, "$.episode_id"),
    ("/step", {"action": {"text": "x"}}, 422, "$.episode_id"),
    ("/reset", {"task_id": "lights-lite-7-9999"}, 404, "$.task_id"),
    ("/reset", {"seed": -1}, 422, "$.seed"),
    ("/reset", {"seed": "7"}, 422, "$.seed"),
    ("/reset", {"episode_id": "x" * 500}, 422, "$.episode_id"),
    ("/reset", [1, 2], 422, "$"),
])
def test_bad_requests_get_a_4xx_naming_the_field(base_url: str, path: str, body: Any,
                                                 status: int, names: str) -> None:
    got = httpx.post(base_url + path, json=body, timeout=10)
    assert got.status_code == status and got.json()["error"].startswith(names)


def test_oversized_and_broken_bodies_are_refused(base_url: str) -> None:
    eid = OpenEnvClient(base_url).reset(task_id=TASKS[0])["episode_id"]
    long_action = {"episode_id": eid, "action": {"text": "x" * (MAX_ACTION + 1)}}
    assert httpx.post(base_url + "/step", json=long_action, timeout=10).status_code == 413
    huge = b'{"episode_id": "' + b"x" * MAX_BODY + b'"}'
    assert httpx.post(base_url + "/step", content=huge, timeout=10).status_code == 413
    deep = b"[" * 100_000 + b"]" * 100_000
    assert httpx.post(base_url + "/reset", content=deep[:MAX_BODY - 1],
                      timeout=10).status_code == 400
    assert httpx.post(base_url + "/reset", content=b"{not json", timeout=10).status_code == 400


def test_the_episode_table_is_bounded(tasks: list[Any]) -> None:
    with serving(tasks, 3) as url:
        table_is_bounded(url)


def table_is_bounded(base_url: str) -> None:
    """At most 3 live episodes: the oldest finished one makes room, then 429."""
    client = OpenEnvClient(base_url)
    ids = [client.reset(task_id=TASKS[0], episode_id=f"full-{i}")["episode_id"]
           for i in range(3)]
    while not client.step(ids[1], "nonsense")["done"]:
        pass
    new = httpx.post(base_url + "/reset", json={"task_id": TASKS[0]}, timeout=10)
    assert new.status_code == 200  # room made by dropping the finished episode
    assert httpx.get(base_url + "/state", params={"episode_id": ids[1]}).status_code == 404
    blocked = httpx.post(base_url + "/reset", json={"task_id": TASKS[0]}, timeout=10)
    assert blocked.status_code == 429  # ...and none is left to drop
    while not client.step(ids[2], "nonsense")["done"]:
        pass
    after = httpx.post(base_url + "/step", json={"episode_id": ids[2], "action": "x"},
                       timeout=10)
    assert after.status_code == 409 and "over" in after.json()["error"]
    assert client.state(ids[0])["done"] is False  # the oldest, still playing, was kept


def test_serve_refuses_a_non_loopback_host() -> None:
    res = CliRunner().invoke(main, ["serve", "lite", "--host", "0.0.0.0"])
    assert res.exit_code != 0 and "loopback only" in res.output


def test_an_openenv_websocket_session_plays_a_task_to_success(base_url: str,
                                                              tasks: list[Any]) -> None:
    """OpenEnv's own EnvClient speaks /ws: {"type": ..., "data": ...} messages, one episode."""
    import aiohttp

    task = tasks[1]

    async def play() -> list[dict[str, Any]]:
        got = []
        async with aiohttp.ClientSession() as http, http.ws_connect(base_url + "/ws") as ws:
            await ws.send_json({"type": "step", "data": {"text": "1"}})  # before any reset
            got.append(await ws.receive_json())
            await ws.send_json({"type": "reset", "data": {"task_id": task.id}})
            got.append(await ws.receive_json())
            for action in task.certificate.witness:
                await ws.send_json({"type": "step", "data": {"text": action}})
                got.append(await ws.receive_json())
            await ws.send_json({"type": "state"})
            got.append(await ws.receive_json())
            await ws.send_json({"type": "jump"})
            got.append(await ws.receive_json())
            await ws.send_json({"type": "close"})
        return got

    got = asyncio.run(play())
    assert got[0]["type"] == "error" and got[0]["data"]["code"] == 422
    assert got[1]["type"] == "observation" and got[1]["data"]["done"] is False
    last = got[-3]["data"]
    assert last["done"] is True and last["observation"]["success"] is True
    assert got[-2] == {"type": "state", "data": {
        "episode_id": got[1]["data"]["episode_id"], "task_id": task.id,
        "step_count": len(task.certificate.witness), "done": True, "last": last}}
    assert got[-1]["type"] == "error" and got[-1]["data"]["message"].startswith("$.type")
    gone = httpx.get(base_url + "/state", params={"episode_id": last["episode_id"]}, timeout=10)
    assert gone.status_code == 404  # the session's episode ended with its connection
