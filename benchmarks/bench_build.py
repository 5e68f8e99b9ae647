"""Wall time of ``arena-gen build`` with its default options, seconds per verified task by size
per env, and how long a build takes to resume from the cache after an interruption at ~50 %.

    python benchmarks/bench_build.py [--suite challenge] [--seed 7] [--jobs N] [--quick]

Three runs of the real command, each into a fresh temporary cache (``--cache``, so no earlier
build helps): (1) a cold build, timed; (2) the same build, interrupted with SIGINT (what Ctrl-C
sends) at half the cold build's wall time (the longest tasks start first, so by then more than
half the work is done but fewer than half the tasks); (3) the same command again, which resumes. The
resumed suite must be byte-identical to the cold one. Per-task seconds come from the cache
entries the cold build wrote (each records its generation and verifier seconds).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

#: The sampled knob that sets a task's size, per env.
SIZE_KEY = {"lights": "n", "repo": "n", "energy": "horizon", "trading": "horizon"}


def _command(args: argparse.Namespace, out: Path, cache: Path) -> list[str]:
    cmd = [sys.executable, "-m", "arena_gen.cli", "build", "--suite", args.suite, "--seed",
           str(args.seed), "--out", str(out), "--cache", str(cache), "--display", "plain"]
    return cmd + (["--jobs", str(args.jobs)] if args.jobs else [])


def _entries(cache: Path) -> list[Path]:
    return list((cache / "tasks").glob("*/*.json")) if (cache / "tasks").is_dir() else []


def _total(args: argparse.Namespace) -> int:
    from arena_gen.core import registry
    from arena_gen.suite.catalog import preset

    return sum(int(preset(args.suite, env)["count"]) for env in registry.names())


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def per_task_table(cache: Path) -> list[str]:
    """Mean generation and verifier seconds per accepted task, by env and size."""
    rows: dict[tuple[str, int], list[tuple[float, float, int]]] = defaultdict(list)
    for path in _entries(cache):
        body = json.loads(path.read_text())["body"]
        task = body["task"]
        size = task["params"].get(SIZE_KEY.get(task["env"], ""), 0)
        rows[(task["env"], size)].append((body["seconds"], body["verify_seconds"],
                                          body["attempts"]))
    lines = ["env      size  tasks  s/task (mean, max)  verifier s  attempts"]
    for (env, size), got in sorted(rows.items()):
        secs = [g[0] for g in got]
        lines.append(f"{env:8} {size:>5}  {len(got):>5}  {statistics.mean(secs):7.2f} "
                     f"{max(secs):7.2f}    {statistics.mean(g[1] for g in got):9.2f}  "
                     f"{sum(g[2] for g in got):>8}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default="challenge", choices=["lite", "challenge"])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--jobs", type=int, default=None, help="default: the build's default")
    parser.add_argument("--skip-resume", action="store_true")
    parser.add_argument("--quick", action="store_true", help="the Lite suite (benchmarks/run.py)")
    args = parser.parse_args()
    if args.quick:
        args.suite = "lite"
    root = Path(tempfile.mkdtemp(prefix="bench-build-"))
    try:
        total = _total(args)
        start = time.perf_counter()
        subprocess.run(_command(args, root / "cold", root / "cache-cold"), check=True,
                       stdout=subprocess.DEVNULL)
        cold = time.perf_counter() - start
        print(f"arena-gen build --suite {args.suite} --seed {args.seed}"
              f"{f' --jobs {args.jobs}' if args.jobs else ''}: {cold:.1f} s wall "
              f"({total} tasks, load average {os.getloadavg()[0]:.1f} at the end)")
        for line in per_task_table(root / "cache-cold"):
            print("  " + line)
        if args.skip_resume:
            return
        cache = root / "cache-resume"
        start = time.perf_counter()
        # A shell's background job starts with SIGINT ignored, and Python then keeps ignoring
        # it: restore the default so the build sees a Ctrl-C.
        proc = subprocess.Popen(_command(args, root / "resumed", cache),
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        while proc.poll() is None and time.perf_counter() - start < cold / 2:
            time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        if proc.wait() == 0:
            print("note: the build finished before the interrupt reached it")
        interrupted = time.perf_counter() - start
        kept = len(_entries(cache))
        start = time.perf_counter()
        subprocess.run(_command(args, root / "resumed", cache), check=True,
                       stdout=subprocess.DEVNULL)
        resumed = time.perf_counter() - start
        same = _files(root / "cold") == _files(root / "resumed")
        print(f"interrupted (SIGINT) after {interrupted:.1f} s with {kept}/{total} tasks cached;"
              f" resume: {resumed:.1f} s; resumed suite byte-identical to the cold build: {same}")
        if not same:
            sys.exit(1)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
