"""Wall time of ``arena-gen build`` with its default options, seconds per verified task by size
per env, and how long a build takes to resume from the cache after an interruption at ~50 %.

    python benchmarks/bench_build.py [--suite challenge] [--seed 7] [--jobs N] [--quick]
    python benchmarks/bench_build.py --against 2574cb8 [--pairs 3] [--suite lite] [--jobs 2]

Three runs of the real command, each into a fresh temporary cache (``--cache``, so no earlier
build helps): (1) a cold build, timed; (2) the same build, interrupted with SIGINT (what Ctrl-C
sends) at half the cold build's wall time (the longest tasks start first, so by then more than
half the work is done but fewer than half the tasks); (3) the same command again, which resumes. The
resumed suite must be byte-identical to the cold one. Per-task seconds come from the cache
entries the cold build wrote (each records its generation and verifier seconds).

``--against REV``: the same ``build --no-cache`` command from this checkout and from ``REV``
(a temporary git worktree), run in turn (A B A B ...; ``--together``: each pair side by side),
``--warmup`` untimed pairs first, then ``--pairs`` timed pairs, so load on a shared machine
falls on both alike: medians of wall and CPU seconds (the build's processes together) and
their ratios, and whether this checkout's suite equals
the released folder of the same suite and seed byte for byte (``--compare``).
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


def _tree(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (proofs included) by its path inside it."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


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


def _start_build(tree: Path, args: argparse.Namespace, out: Path) -> subprocess.Popen[bytes]:
    """One ``build --no-cache`` run with ``tree``'s code, started."""
    cmd = [sys.executable, "-m", "arena_gen.cli", "build", "--suite", args.suite, "--seed",
           str(args.seed), "--out", str(out), "--no-cache", "--display", "none", "--force"]
    cmd += ["--jobs", str(args.jobs)] if args.jobs else []
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONWARNINGS": "ignore"}
    return subprocess.Popen(cmd, cwd=tree, env=env, stdout=subprocess.DEVNULL)


def _wait(procs: dict[str, subprocess.Popen[bytes]],
          start: float) -> dict[str, tuple[float, float]]:
    """(wall, CPU) seconds of each started build as it ends, its worker processes' CPU
    included (``wait4``'s usage of the build and the children it reaped)."""
    out: dict[str, tuple[float, float]] = {}
    while len(out) < len(procs):
        for label, proc in procs.items():
            if label in out:
                continue
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid == 0:
                continue
            proc.returncode = os.waitstatus_to_exitcode(status)
            if proc.returncode:
                raise SystemExit(f"a build failed (exit {proc.returncode})")
            out[label] = (time.perf_counter() - start, usage.ru_utime + usage.ru_stime)
        time.sleep(0.1)
    return out


def _pair(trees: dict[str, Path], args: argparse.Namespace,
          root: Path) -> dict[str, tuple[float, float]]:
    """One build of each tree: side by side with ``--together``, else A then B."""
    if args.together:
        start = time.perf_counter()
        return _wait({k: _start_build(t, args, root / f"out-{k}") for k, t in trees.items()},
                     start)
    out = {}
    for k, t in trees.items():
        start = time.perf_counter()
        out.update(_wait({k: _start_build(t, args, root / f"out-{k}")}, start))
    return out


def against(args: argparse.Namespace) -> None:
    """Paired builds of this checkout (A) and ``args.against`` (B); medians and ratios."""
    here = Path(__file__).resolve().parent.parent
    root = Path(tempfile.mkdtemp(prefix="bench-build-against-"))
    old = root / "old"
    subprocess.run(["git", "-C", str(here), "worktree", "add", "--detach", str(old),
                    args.against], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    try:
        times: dict[str, list[tuple[float, float]]] = {"A": [], "B": []}
        for n in range(args.pairs + args.warmup):
            kept = "warm-up" if n < args.warmup else "timed"
            for label, (wall, cpu) in _pair({"A": here, "B": old}, args, root).items():
                print(f"  {label} pair {n}: {wall:.1f} s wall, {cpu:.1f} s CPU ({kept}, load "
                      f"average {os.getloadavg()[0]:.1f})", flush=True)
                if n >= args.warmup:
                    times[label].append((wall, cpu))
        wall_a, cpu_a = (statistics.median(t[i] for t in times["A"]) for i in (0, 1))
        wall_b, cpu_b = (statistics.median(t[i] for t in times["B"]) for i in (0, 1))
        jobs = f" --jobs {args.jobs}" if args.jobs else ""
        how = ("side by side" if args.together else "A B A B") + (
            f" after {args.warmup} warm-up pair(s)" if args.warmup else "")
        print(f"arena-gen build --suite {args.suite} --seed {args.seed}{jobs} --no-cache, "
              f"medians of {args.pairs} pairs ({how}): this checkout "
              f"{wall_a:.1f} s wall / {cpu_a:.1f} s CPU, {args.against} {wall_b:.1f} s wall / "
              f"{cpu_b:.1f} s CPU: {wall_a / wall_b:.2f}x wall, {cpu_a / cpu_b:.2f}x CPU")
        released = here / "suites" / f"{args.suite}"
        if args.compare and released.is_dir() and args.seed == 7:
            built = _tree(root / "out-A")  # the released folder also keeps `prove`'s proofs
            same = built == {name: data for name, data in _tree(released).items()
                             if name in built}
            print(f"this checkout's suite byte-identical to suites/{args.suite}: {same}")
            if not same:
                sys.exit(1)
    finally:
        subprocess.run(["git", "-C", str(here), "worktree", "remove", "--force", str(old)],
                       check=False)
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default="challenge", choices=["lite", "challenge"])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--jobs", type=int, default=None, help="default: the build's default")
    parser.add_argument("--skip-resume", action="store_true")
    parser.add_argument("--quick", action="store_true", help="the Lite suite (benchmarks/run.py)")
    parser.add_argument("--against", metavar="REV", default=None,
                        help="paired builds of this checkout and REV (--no-cache)")
    parser.add_argument("--pairs", type=int, default=3, help="timed pairs with --against")
    parser.add_argument("--warmup", type=int, default=1, help="untimed pairs first")
    parser.add_argument("--together", action="store_true",
                        help="with --against: run each pair's two builds side by side")
    parser.add_argument("--compare", action="store_true",
                        help="with --against: this checkout's suite must equal suites/SUITE")
    args = parser.parse_args()
    if args.quick:
        args.suite = "lite"
    if args.against:
        against(args)
        return
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
