"""LLM-run throughput: turns/s of ``arena-gen run --agent llm`` (and inspect_ai) vs connections.

A loopback OpenAI-compatible server (``tests/fake_openai.py``: threaded, plays each task's
witness) answers after a fixed latency (0 ms, 200 ms). First the server alone is measured
(requests/s from N client threads), then ``arena-gen run --agent llm --max-connections N`` over
Lite trading tasks (fixed horizon: 120 turns per episode; N episodes per point, as 8 tasks x
ceil(N/8) attempts, so every connection has an episode to play), then the same episodes through
``inspect eval arena_gen/lite --model openai-api/loop/fake --max-connections N --epochs K``.
Turns are counted at the server (one request per turn); seconds are the command's wall time,
process start-up included. The 1-minute load average is printed with every figure.

Reproduce: ``python benchmarks/bench_throughput.py [--quick] [--no-inspect]`` from the
repository root (``--quick``: 0 ms only, 1 and 8 connections, no inspect).
"""

from __future__ import annotations

import argparse
import http.client
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from fake_openai import FakeOpenAI  # noqa: E402

from arena_gen.core.suite_io import read_suite  # noqa: E402

ENV, TASKS = "trading", 8


def load() -> str:
    """The 1-minute load average, printed next to each figure (the cores are shared)."""
    return f"{os.getloadavg()[0]:.2f}"


def server_alone(server: FakeOpenAI, clients: int, seconds: float) -> float:
    """Requests/s the loopback server answers to ``clients`` keep-alive client threads."""
    task = next(iter(server.tasks.values()))
    body = json.dumps({"model": "fake", "messages": [
        {"role": "user", "content": task.public["intro"]
         + "\n## Current observation (turn 1 of 120)\n"}]}).encode()
    host, port = server.url.split("//")[1].split("/")[0].split(":")
    done = [0] * clients
    stop = time.perf_counter() + seconds

    def client(i: int) -> None:
        conn = http.client.HTTPConnection(host, int(port), timeout=30)
        while time.perf_counter() < stop:
            conn.request("POST", "/v1/chat/completions", body,
                         {"Content-Type": "application/json"})
            conn.getresponse().read()
            done[i] += 1
        conn.close()

    start = time.perf_counter()
    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(done) / (time.perf_counter() - start)


def timed(cmd: list[str], server: FakeOpenAI, env: dict[str, str]) -> tuple[int, float]:
    """(turns the server answered, wall seconds) of one command."""
    before = len(server.seen)
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr[-2000:]}")
    return len(server.seen) - before, seconds


def arena_gen_run(server: FakeOpenAI, ids: list[str], attempts: int, conns: int,
                  tmp: Path) -> tuple[int, float]:
    """``arena-gen run --agent llm --max-connections N`` over the tasks."""
    out = tmp / f"run-{conns}-{time.monotonic_ns()}"
    cmd = [sys.executable, "-m", "arena_gen.cli", "run", "--suite", "lite", "--env", ENV,
           "--tasks", ",".join(ids), "--attempts", str(attempts), "--agent", "llm",
           "--model", "fake", "--base-url", server.url, "--max-connections", str(conns),
           "--out", str(out), "--display", "none", "--heartbeat", "0"]
    env = dict(os.environ, OPENAI_API_KEY="sk-loop")
    result = timed(cmd, server, env)
    shutil.rmtree(out, ignore_errors=True)
    return result


def inspect_run(server: FakeOpenAI, ids: list[str], attempts: int, conns: int,
                tmp: Path) -> tuple[int, float]:
    """The same episodes through ``inspect eval arena_gen/lite`` at the same server."""
    inspect = shutil.which("inspect") or str(Path(sys.executable).parent / "inspect")
    logs = tmp / f"logs-{conns}-{time.monotonic_ns()}"
    cmd = [inspect, "eval", "arena_gen/lite", "-T", f"env={ENV}", "-T",
           f"tasks={','.join(ids)}", "--model", "openai-api/loop/fake", "--max-connections",
           str(conns), "--epochs", str(attempts), "--display", "none", "--log-dir", str(logs)]
    env = dict(os.environ, LOOP_BASE_URL=server.url, LOOP_API_KEY="sk-loop")
    result = timed(cmd, server, env)
    shutil.rmtree(logs, ignore_errors=True)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="0 ms, 1 and 8 connections")
    parser.add_argument("--no-inspect", action="store_true", help="arena-gen run only")
    parser.add_argument("--connections", default=None, help="e.g. 1,8,32 (default 1,8,32,64)")
    parser.add_argument("--latency", default=None, help="ms per reply, e.g. 0,200")
    args = parser.parse_args()
    conns = [int(c) for c in (args.connections or ("1,8" if args.quick else "1,8,32,64"))
             .split(",")]
    latencies = [int(m) for m in (args.latency or ("0" if args.quick else "0,200")).split(",")]
    with_inspect = not (args.quick or args.no_inspect)
    print("command: python benchmarks/bench_throughput.py " + " ".join(sys.argv[1:]))
    tasks = read_suite("lite").tasks[ENV][:TASKS]
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAI(tasks) as server:
        print(f"{'latency':>8}{'conns':>7}{'what':>10}{'episodes':>10}{'turns':>8}"
              f"{'seconds':>9}{'turns/s':>9}{'load':>7}")
        for ms in latencies:
            server.delay = ms / 1000
            for n in conns:
                rate = server_alone(server, n, 3.0)
                print(f"{ms:>8}{n:>7}{'server':>10}{'':>10}{'':>8}{3.0:>9.1f}{rate:>9.1f}"
                      f"{load():>7}", flush=True)
            server.seen.clear()
            for n in conns:
                attempts = math.ceil(n / TASKS)
                ids = [t.id for t in tasks[: min(n, TASKS)]]
                episodes = len(ids) * attempts
                runners = [("arena-gen", arena_gen_run)]
                if with_inspect:
                    runners.append(("inspect", inspect_run))
                for name, runner in runners:
                    turns, seconds = runner(server, ids, attempts, n, Path(tmp))
                    server.seen.clear()  # keep the server's memory flat between points
                    print(f"{ms:>8}{n:>7}{name:>10}{episodes:>10}{turns:>8}{seconds:>9.1f}"
                          f"{turns / seconds:>9.1f}{load():>7}", flush=True)


if __name__ == "__main__":
    main()
