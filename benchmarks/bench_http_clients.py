"""HTTP client cost per chat request at high concurrency: arena-gen's ChatClient (httpx, one
single-connection client per connection) against a plain aiohttp session, measured before
choosing the transport for thousands of episodes in flight (#40).

A minimal asyncio HTTP/1.1 server in a child process answers every POST with a fixed chat
completion after ``--latency`` ms (keep-alive, no parsing beyond the headers), so the client's
CPU, measured in this process, is the client's alone. N workers each send requests back to
back for ``--seconds``; the figures are requests/s, the ceiling N / latency, and the client's
CPU milliseconds per request.

Reproduce: ``python benchmarks/bench_http_clients.py [--connections 64,1024] [--latency 200]
[--seconds 10]`` from the repository root.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

BODY = json.dumps({"id": "c", "object": "chat.completion", "created": 0, "model": "m",
                   "choices": [{"index": 0, "finish_reason": "stop", "message": {
                       "role": "assistant", "content": "<action>1</action>"}}],
                   "usage": {"prompt_tokens": 900, "completion_tokens": 5,
                             "total_tokens": 905}}).encode()
RESPONSE = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
            + str(len(BODY)).encode() + b"\r\n\r\n" + BODY)


def serve(port: Any, latency: float) -> None:
    """The server process: answer each request after ``latency`` seconds."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":", 1)[1])
                await reader.readexactly(length)
                if latency:
                    await asyncio.sleep(latency)
                writer.write(RESPONSE)
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()

    async def main() -> None:
        server = await asyncio.start_server(handle, "127.0.0.1", 0, backlog=8192)
        port.value = server.sockets[0].getsockname()[1]
        async with server:
            await server.serve_forever()

    asyncio.run(main())


PROMPT = {"model": "m", "messages": [{"role": "system", "content": "x" * 1200},
                                     {"role": "user", "content": "y" * 2400}]}


async def with_chat_client(url: str, conns: int, seconds: float) -> int:
    """Requests done by arena-gen's ChatClient (the one a run uses)."""
    import numpy as np

    from arena_gen.agents.llm_client import ChatClient

    client = ChatClient(base_url=url, api_key="sk-bench", max_connections=conns, timeout=60)
    rng = np.random.default_rng(0)
    stop = time.perf_counter() + seconds
    done = 0

    async def worker() -> None:
        nonlocal done
        while time.perf_counter() < stop:
            await client.complete(PROMPT, rng)
            done += 1

    await asyncio.gather(*[worker() for _ in range(conns)])
    await client.aclose()
    return done


async def with_aiohttp(url: str, conns: int, seconds: float) -> int:
    """Requests done by one aiohttp session with a ``conns``-connection pool."""
    import aiohttp

    connector = aiohttp.TCPConnector(limit=conns, limit_per_host=conns)
    stop = time.perf_counter() + seconds
    done = 0
    async with aiohttp.ClientSession(connector=connector) as session:
        async def worker() -> None:
            nonlocal done
            while time.perf_counter() < stop:
                async with session.post(url + "/chat/completions",
                                        data=json.dumps(PROMPT).encode(),
                                        headers={"Content-Type": "application/json",
                                                 "Authorization": "Bearer sk-bench"}) as r:
                    json.loads(await r.read())
                done += 1

        await asyncio.gather(*[worker() for _ in range(conns)])
    return done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--connections", default="64,1024")
    parser.add_argument("--latency", type=int, default=200, help="ms per reply")
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    print("command: python benchmarks/bench_http_clients.py " + " ".join(sys.argv[1:]))
    port = multiprocessing.Value("i", 0)
    server = multiprocessing.Process(target=serve, args=(port, args.latency / 1000),
                                     daemon=True)
    server.start()
    while not port.value:
        time.sleep(0.01)
    url = f"http://127.0.0.1:{port.value}/v1"
    print(f"{os.cpu_count()} cores (shared); latency {args.latency} ms")
    print(f"{'client':>12}{'conns':>7}{'req/s':>9}{'ceiling':>9}{'% ceil':>8}{'cpu ms/req':>12}"
          f"{'load':>7}")
    try:
        for n in [int(c) for c in args.connections.split(",")]:
            for name, run in (("ChatClient", with_chat_client), ("aiohttp", with_aiohttp)):
                cpu, wall = time.process_time(), time.perf_counter()
                done = asyncio.run(run(url, n, args.seconds))
                cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
                ceiling = n / (args.latency / 1000) if args.latency else float("nan")
                print(f"{name:>12}{n:>7}{done / wall:>9.1f}{ceiling:>9.1f}"
                      f"{100 * done / wall / ceiling:>7.1f}%{1000 * cpu / done:>12.3f}"
                      f"{os.getloadavg()[0]:>7.2f}", flush=True)
    finally:
        server.terminate()


if __name__ == "__main__":
    main()
