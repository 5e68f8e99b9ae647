"""LLM-run throughput: turns/s of ``arena-gen run --agent llm`` (and inspect_ai) vs connections.

A loopback OpenAI-compatible server (``tests/fake_openai.py``: threaded, plays each task's
witness) answers after a fixed latency (0 ms, 200 ms). First the server alone is measured
(requests/s from N client threads), then ``arena-gen run --agent llm --max-connections N`` over
Lite trading tasks (fixed horizon: 120 turns per episode; N episodes per point, as 8 tasks x
ceil(N/8) attempts, so every connection has an episode to play), then the same episodes through
``inspect eval arena_gen/lite --model openai-api/loop/fake --max-connections N --epochs K``.
Turns are counted at the server (one request per turn); seconds are the command's wall time,
process start-up included. Each row also shows the CPU seconds of the command's process (the
client) and of the loopback server (this process's threads) over the point, and the 1-minute
load average when it ended (the 2 cores are shared). The summary gives the median and range
of the repeats and the ceiling: min(N / latency, the 0 ms rate at N), the network-free rate
being what the CPU allows.

Reproduce: ``python benchmarks/bench_throughput.py [--quick] [--no-inspect] [--repeats R]
[--inspect-cap S]`` from the repository root (``--quick``: 0 ms only, 1 and 8 connections, no
inspect; ``--inspect-cap``: an inspect run stops after S seconds, and its rate is its turns
over the seconds since its first request, start-up left out, which favours it).
"""

from __future__ import annotations

import argparse
import http.client
import json
import math
import os
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
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


@dataclass
class Point:
    """One command's figures (``capped``: stopped at the time cap, its turns so far counted)."""

    turns: int
    seconds: float
    client_cpu: float
    server_cpu: float
    capped: bool = False

    @property
    def rate(self) -> float:
        return self.turns / self.seconds


def timed(cmd: list[str], server: FakeOpenAI, env: dict[str, str],
          cap: float | None = None) -> Point:
    """Turns the server answered, wall seconds and CPU seconds (client, server) of a command;
    past ``cap`` seconds the command is stopped and the turns answered until then count, over
    the seconds since its first request (its start-up left out: in its favour)."""
    before = len(server.seen)
    children, mine = resource.getrusage(resource.RUSAGE_CHILDREN), time.process_time()
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        _, err = proc.communicate(timeout=cap)
        capped = False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGTERM)  # its own session: the command and its children
        _, err = proc.communicate()
        capped = True
    seconds = time.perf_counter() - start
    turns = len(server.seen) - before
    if capped and turns:  # the steady rate: from its first request on (start-up left out)
        seconds = time.monotonic() - server.seen[before].at
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0 and not capped:
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(cmd)}\n"
                         f"{err.decode(errors='replace')[-2000:]}")
    client = after.ru_utime - children.ru_utime + after.ru_stime - children.ru_stime
    return Point(turns, seconds, client, time.process_time() - mine, capped)


def arena_gen_run(server: FakeOpenAI, ids: list[str], attempts: int, conns: int,
                  tmp: Path, cap: float | None = None) -> Point:
    """``arena-gen run --agent llm --max-connections N`` over the tasks."""
    out = tmp / f"run-{conns}-{time.monotonic_ns()}"
    cmd = [sys.executable, "-m", "arena_gen.cli", "run", "--suite", "lite", "--env", ENV,
           "--tasks", ",".join(ids), "--attempts", str(attempts), "--agent", "llm",
           "--model", "fake", "--base-url", server.url, "--max-connections", str(conns),
           "--out", str(out), "--display", "none", "--heartbeat", "0"]
    env = dict(os.environ, OPENAI_API_KEY="sk-loop")
    result = timed(cmd, server, env, cap)
    shutil.rmtree(out, ignore_errors=True)
    return result


def inspect_run(server: FakeOpenAI, ids: list[str], attempts: int, conns: int,
                tmp: Path, cap: float | None = None) -> Point:
    """The same episodes through ``inspect eval arena_gen/lite`` at the same server."""
    inspect = shutil.which("inspect") or str(Path(sys.executable).parent / "inspect")
    logs = tmp / f"logs-{conns}-{time.monotonic_ns()}"
    cmd = [inspect, "eval", "arena_gen/lite", "-T", f"env={ENV}", "-T",
           f"tasks={','.join(ids)}", "--model", "openai-api/loop/fake", "--max-connections",
           str(conns), "--epochs", str(attempts), "--display", "none", "--log-dir", str(logs)]
    env = dict(os.environ, LOOP_BASE_URL=server.url, LOOP_API_KEY="sk-loop")
    result = timed(cmd, server, env, cap)
    shutil.rmtree(logs, ignore_errors=True)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="0 ms, 1 and 8 connections")
    parser.add_argument("--no-inspect", action="store_true", help="arena-gen run only")
    parser.add_argument("--connections", default=None, help="e.g. 1,8,32 (default 1,8,32,64)")
    parser.add_argument("--latency", default=None, help="ms per reply, e.g. 200,0")
    parser.add_argument("--repeats", type=int, default=2, help="arena-gen runs per point")
    parser.add_argument("--inspect-repeats", type=int, default=1, help="inspect runs per point")
    parser.add_argument("--inspect-cap", type=float, default=None,
                        help="stop an inspect run after this many seconds; its rate is then "
                             "its turns since its first request (marked * in the output)")
    args = parser.parse_args()
    conns = [int(c) for c in (args.connections or ("1,8" if args.quick else "1,8,32,64"))
             .split(",")]
    latencies = [int(m) for m in (args.latency or ("0" if args.quick else "200,0")).split(",")]
    with_inspect = not (args.quick or args.no_inspect)
    print("command: python benchmarks/bench_throughput.py " + " ".join(sys.argv[1:]))
    print(f"{os.cpu_count()} cores; load at start {load()}")
    tasks = read_suite("lite").tasks[ENV][:TASKS]
    results: dict[tuple[int, int, str], list[Point]] = {}
    servers: dict[tuple[int, int], float] = {}
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAI(tasks, keep=False) as server:
        print(f"{'latency':>8}{'conns':>7}{'what':>10}{'episodes':>10}{'turns':>8}"
              f"{'seconds':>9}{'turns/s':>9}{'cpu cli':>9}{'cpu srv':>9}{'load':>7}")
        for ms in latencies:
            server.delay = ms / 1000
            for n in conns:
                rate = servers[(ms, n)] = server_alone(server, n, 3.0)
                print(f"{ms:>8}{n:>7}{'server':>10}{'':>10}{'':>8}{3.0:>9.1f}{rate:>9.1f}"
                      f"{'':>18}{load():>7}", flush=True)
            server.seen.clear()
            for n in conns:
                attempts = math.ceil(n / TASKS)
                ids = [t.id for t in tasks[: min(n, TASKS)]]
                episodes = len(ids) * attempts
                runners = [("arena-gen", arena_gen_run, args.repeats, None)]
                if with_inspect:
                    runners.append(("inspect", inspect_run, args.inspect_repeats,
                                    args.inspect_cap))
                for name, runner, repeats, cap in runners:
                    for _ in range(repeats):
                        got = runner(server, ids, attempts, n, Path(tmp), cap)
                        server.seen.clear()
                        results.setdefault((ms, n, name), []).append(got)
                        print(f"{ms:>8}{n:>7}{name:>10}{episodes:>10}{got.turns:>8}"
                              f"{got.seconds:>9.1f}{got.rate:>9.1f}{got.client_cpu:>9.1f}"
                              f"{got.server_cpu:>9.1f}{load():>7}{' *' * got.capped}",
                              flush=True)
    summary(results, latencies, conns)


def summary(results: dict[tuple[int, int, str], list[Point]], latencies: list[int],
            conns: list[int]) -> None:
    """Median [range] turns/s per point and the ceiling min(N / latency, 0 ms rate at N)."""
    print("\nsummary: turns/s, median [min-max] of the repeats; ceiling = min(N / latency, "
          "arena-gen's 0 ms median at N)")
    for ms in latencies:
        for n in conns:
            cells = []
            for name in ("arena-gen", "inspect"):
                points = results.get((ms, n, name), [])
                rates = sorted(p.rate for p in points)
                if rates:
                    cells.append(f"{name} {statistics.median(rates):.1f} "
                                 f"[{rates[0]:.1f}-{rates[-1]:.1f}]"
                                 f"{' *' if any(p.capped for p in points) else ''}")
            cpu_bound = [p.rate for p in results.get((0, n, "arena-gen"), [])]
            bounds = ([n / (ms / 1000)] if ms else []) + (
                [statistics.median(cpu_bound)] if cpu_bound else [])
            ceiling = f"{min(bounds):.1f}" if bounds else "-"
            binds = ("latency" if ms and (not cpu_bound or n / (ms / 1000) <= min(bounds))
                     else "cpu")
            print(f"{ms:>5} ms {n:>3} conns: {'; '.join(cells)}; ceiling {ceiling} ({binds})")


if __name__ == "__main__":
    main()
