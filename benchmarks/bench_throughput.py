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

``--rl`` measures the RL-scale rows instead (#40): 64, 256, 1,024 and 4,096 episodes in flight
at 200 ms, 1 s, 2 s and 8 s (ceilings 320, 256, 512 and 512 turns/s), and inspect_ai at 32 and
64 connections (200 ms) beside them; each command runs for a fixed time and its turns/s, CPU
milliseconds per turn (``/proc``) and peak memory (also per open episode) are taken over its
last seconds, start-up and ramp left out.

Reproduce: ``python benchmarks/bench_throughput.py [--quick] [--no-inspect] [--repeats R]
[--inspect-cap S] [--rl]`` from the repository root (``--quick``: 0 ms only, 1 and 8 connections, no
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


#: The RL-scale rows (#40): (episodes in flight, latency ms, seconds capped, seconds measured).
RL_ROWS = [(64, 200, 40, 20), (256, 1000, 45, 20), (1024, 2000, 60, 25), (4096, 8000, 120, 50)]
#: inspect_ai beside them: (connections, latency ms, seconds capped, seconds measured).
RL_INSPECT = [(32, 200, 60, 25), (64, 200, 60, 25)]


@dataclass
class Steady:
    """One capped command's steady state: its last ``window`` seconds."""

    turns: int
    seconds: float
    cpu: float
    rss_mb: float
    #: CPU seconds of the loopback server (this process) over the same seconds
    server_cpu: float = 0.0

    @property
    def rate(self) -> float:
        return self.turns / self.seconds

    @property
    def cpu_ms(self) -> float:
        return 1000 * self.cpu / max(self.turns, 1)


def _proc(pid: int) -> tuple[float, float]:
    """CPU seconds (user + system) and resident megabytes of a process, from /proc."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    with open(f"/proc/{pid}/status") as f:
        rss = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
    return cpu, rss / 1024


def steady(cmd: list[str], server: FakeOpenAI, env: dict[str, str], cap: float,
           window: float) -> Steady:
    """Run ``cmd`` for ``cap`` seconds; the turns the server answered, the command's CPU and
    its peak memory over the last ``window`` seconds (start-up and ramp left out)."""
    before = len(server.seen)
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    start = time.perf_counter()
    mark: tuple[float, int, float] | None = None
    served = 0.0
    peak = 0.0
    try:
        while time.perf_counter() - start < cap and proc.poll() is None:
            time.sleep(0.5)
            now = time.perf_counter()
            cpu, rss = _proc(proc.pid)
            if mark is None and now - start >= cap - window:
                mark, served = (now, len(server.seen), cpu), time.process_time()
            if mark is not None:
                peak = max(peak, rss)
        cpu, rss = _proc(proc.pid)
        end = (time.perf_counter(), len(server.seen), cpu)
        served = time.process_time() - served
        stopped = proc.poll() is None  # still playing at the cap: its exit code is our stop's
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        _, err = proc.communicate()
    if mark is None or not (stopped or proc.returncode == 0):
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(cmd)}\n"
                         f"{err.decode(errors='replace')[-2000:]}")
    del before
    return Steady(end[1] - mark[1], end[0] - mark[0], end[2] - mark[2], max(peak, rss),
                  served)


def rl_main(args: argparse.Namespace) -> None:
    """The RL-scale rows and inspect_ai beside them, in one run (``--rl``)."""
    print("command: python benchmarks/bench_throughput.py " + " ".join(sys.argv[1:]))
    print(f"{os.cpu_count()} cores; load at start {load()}; turns/s, CPU and memory over each "
          f"row's last seconds (start-up and ramp left out)")
    tasks = read_suite("lite").tasks[ENV][:TASKS]
    rows = [("arena-gen", *r) for r in RL_ROWS] + (
        [] if args.no_inspect else [("inspect", *r) for r in RL_INSPECT])
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAI(tasks, keep=False) as server:
        server._server.socket.listen(8192)  # thousands of connections arrive at once
        server._server.handle_error = lambda *a: None  # a stopped client resets its sockets
        print(f"{'what':>10}{'in flight':>10}{'latency':>9}{'episodes':>9}{'turns':>8}"
              f"{'seconds':>8}{'turns/s':>9}{'ceiling':>8}{'% ceil':>8}{'cpu ms/turn':>12}"
              f"{'MB':>7}{'KB/episode':>11}{'srv ms/turn':>12}{'load':>7}")
        for what, n, ms, cap, window in rows:
            server.delay = ms / 1000
            episode_seconds = 120 * ms / 1000  # a trading episode at this latency
            attempts = math.ceil(n / TASKS) * (2 if episode_seconds < cap else 1)
            ids = [t.id for t in tasks[: min(n, TASKS)]]
            out = Path(tmp) / f"{what}-{n}"
            if what == "arena-gen":
                cmd = [sys.executable, "-m", "arena_gen.cli", "run", "--suite", "lite", "--env",
                       ENV, "--tasks", ",".join(ids), "--attempts", str(attempts), "--agent",
                       "llm", "--model", "fake", "--base-url", server.url, "--max-connections",
                       str(n), "--timeout", "120", "--out", str(out), "--display", "none",
                       "--heartbeat", "0"]
                env = dict(os.environ, OPENAI_API_KEY="sk-loop")
            else:
                inspect = shutil.which("inspect") or str(Path(sys.executable).parent / "inspect")
                cmd = [inspect, "eval", "arena_gen/lite", "-T", f"env={ENV}", "-T",
                       f"tasks={','.join(ids)}", "--model", "openai-api/loop/fake",
                       "--max-connections", str(n), "--epochs", str(attempts), "--display",
                       "none", "--log-dir", str(out)]
                env = dict(os.environ, LOOP_BASE_URL=server.url, LOOP_API_KEY="sk-loop")
            got = steady(cmd, server, env, cap, window)
            server.seen.clear()
            episodes = len(ids) * attempts
            ceiling = min(n, episodes) / (ms / 1000)
            open_episodes = min(episodes, 2 * n) if what == "arena-gen" else min(episodes, n)
            print(f"{what:>10}{n:>10}{ms:>9}{episodes:>9}{got.turns:>8}{got.seconds:>8.1f}"
                  f"{got.rate:>9.1f}{ceiling:>8.0f}{100 * got.rate / ceiling:>7.1f}%"
                  f"{got.cpu_ms:>12.3f}{got.rss_mb:>7.0f}"
                  f"{1024 * got.rss_mb / open_episodes:>11.0f}"
                  f"{1000 * got.server_cpu / max(got.turns, 1):>12.3f}{load():>7}", flush=True)
            shutil.rmtree(out, ignore_errors=True)


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
    parser.add_argument("--rl", action="store_true",
                        help="the RL-scale rows: 64/256/1,024/4,096 episodes in flight at "
                             "200 ms/1 s/2 s/8 s, and inspect_ai at 32 and 64 (200 ms)")
    args = parser.parse_args()
    if args.rl:
        rl_main(args)
        return
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
