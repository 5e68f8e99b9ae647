"""Mutation-fuzz every input surface: N cases each (default 10,000), counting tracebacks (any
exception but the project's ArenaGenError), hangs (a case over 5 s), forged figures accepted
(the forgery surfaces: a forged run scored or a substituted suite verified), the peak memory of
the fuzzing process per surface and, separately, the peak memory of ``arena-gen score`` and
``verify`` on adversarial files (a subprocess each, its max RSS).

    python benchmarks/bench_fuzz.py [--cases 10000] [--surface NAME ...] [--env ENV] [--seed 0]
                                    [--clock wall|cpu] [--quick] [--no-memory]
                                    [--memory-only] [--memory-row TEXT] [--memory-timeout S]

``--env energy`` feeds the per-env surfaces (suite task lines, importers) that env's documents
only, and runs only those surfaces unless ``--surface`` names others.

Every case is seeded (``random.Random(seed * 1_000_003 + case)``) so a traceback it prints is
reproducible with ``--seed S --first-case C --cases 1``. Figures: benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

from fuzz_forgery import LAST_FORGED  # noqa: E402
from fuzz_surfaces import (  # noqa: E402
    FIXTURES,
    PER_ENV,
    RELEASED_FILES,
    SURFACES,
    _base_run,
    _lite_tasks,
    canonical_line,
    dumps,
)

HANG_SECONDS = 5
#: Under ``--clock cpu`` a case that waits (no CPU spent, e.g. on a socket or a pool) is a hang
#: after this much real time: the CPU alarm alone never fires on a wait.
STALL_SECONDS = 60
#: Cases slower than this are named on stderr (a hang is over HANG_SECONDS).
SLOW_SECONDS = 1.0


class Hang(BaseException):  # not Exception: code under test must not swallow it
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise Hang


def run_surface(name: str, cases: int, seed: int, first: int, show: int,
                env: str | None = None, clock: str = "wall") -> dict[str, Any]:
    fn = functools.partial(SURFACES[name], env=env) if env else SURFACES[name]
    counts = {"ok": 0, "error": 0, "forged": 0, "traceback": 0, "hang": 0}
    slowest, shown = 0.0, 0
    kinds: dict[str, int] = {}
    start = time.perf_counter()
    # wall: SIGALRM after HANG_SECONDS of real time; cpu: SIGPROF after HANG_SECONDS of this
    # process's CPU time (all threads), so other work on a shared machine does not count
    timer, sig = ((signal.ITIMER_PROF, signal.SIGPROF) if clock == "cpu"
                  else (signal.ITIMER_REAL, signal.SIGALRM))
    signal.signal(sig, _alarm)
    if clock == "cpu":
        signal.signal(signal.SIGALRM, _alarm)
    now = time.process_time if clock == "cpu" else time.perf_counter
    reset_peak_rss()
    for case in range(first, first + cases):
        rng = random.Random(seed * 1_000_003 + case)
        work = Path(tempfile.mkdtemp(prefix="fuzz-"))
        t0 = now()
        signal.setitimer(timer, HANG_SECONDS)
        if clock == "cpu":
            signal.setitimer(signal.ITIMER_REAL, STALL_SECONDS)
        try:
            outcome = fn(work, rng)
            counts[outcome] += 1
            if outcome == "forged" and shown < show:
                shown += 1
                print(f"--- FORGED {name} seed {seed} case {case}: {LAST_FORGED}",
                      file=sys.stderr)
        except Hang:
            counts["hang"] += 1
            print(f"HANG {name} case {case}", file=sys.stderr)
        except BaseException as exc:  # noqa: BLE001 - this is what the benchmark counts
            if isinstance(exc, KeyboardInterrupt):
                raise
            counts["traceback"] += 1
            kind = f"{type(exc).__name__}"
            kinds[kind] = kinds.get(kind, 0) + 1
            if shown < show:
                shown += 1
                print(f"--- TRACEBACK {name} seed {seed} case {case}", file=sys.stderr)
                traceback.print_exc(limit=-8, file=sys.stderr)
        finally:
            signal.setitimer(timer, 0)
            signal.setitimer(signal.ITIMER_REAL, 0)
            if (case - first + 1) % 1000 == 0:
                print(f"progress {name}: {case - first + 1} cases {counts} "
                      f"{time.perf_counter() - start:.0f} s, peak {peak_rss_mb()} MB",
                      file=sys.stderr, flush=True)
            took = now() - t0
            slowest = max(slowest, took)
            if took > SLOW_SECONDS:
                print(f"slow: {name} seed {seed} case {case}: {took:.1f} s", file=sys.stderr)
            shutil.rmtree(work, ignore_errors=True)
    return {"surface": f"{name}, {env}" if env else name, "cases": cases, **counts,
            "traceback_kinds": kinds,
            "slowest_s": round(slowest, 3), "seconds": round(time.perf_counter() - start, 1),
            "peak_mb": peak_rss_mb()}


def reset_peak_rss() -> None:
    """Start the process's peak RSS (VmHWM) afresh, so each surface gets its own peak."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:  # not Linux, or not allowed: the peak then carries over
        pass


def peak_rss_mb() -> float | None:
    """The process's peak RSS since :func:`reset_peak_rss`, in MB (VmHWM)."""
    try:
        with open("/proc/self/status") as fh:
            hwm = [line for line in fh if line.startswith("VmHWM")]
    except OSError:
        return None
    return round(int(hwm[0].split()[1]) / 1024, 1) if hwm else None


#: A memory row: its name, the CLI arguments, and the environment variables it adds.
Row = tuple[str, list[str], dict[str, str]]
#: The per-file cap raised past the adversaries' sizes, so the readers stream them line by
#: line (under the 16 MiB line cap) instead of refusing them from their size.
RAISED_FILE_CAP = {"ARENA_GEN_MAX_FILE_BYTES": str(4 << 30)}


def adversarial_score_files(folder: Path) -> list[Row]:
    """Run dirs and findings files built to make ``score`` allocate: many turns, huge claimed
    budgets, a 100k-line findings file, deep and wide JSON, one 50 MB line; and the bounded
    readers' adversaries (sparse, blank-line and padded files; ``verify`` on a sparse suite),
    under the default caps and, where a size refusal would end the row at once, with the file
    cap raised."""
    from fuzz_surfaces import GOOD_FINDING, write_suite_dir

    from arena_gen.runner.rundir import PREV, chain_lines, plan_digest

    base = _lite_tasks()["lights"]
    suite = write_suite_dir(folder / "suite", "lights", canonical_line(base), base["id"],
                            base["sha256"])
    trajectories, run_json = _base_run()
    record = {k: v for k, v in json.loads(trajectories).items() if k != PREV}
    meta = json.loads(run_json)
    meta["suite_path"] = str(suite)
    out: list[Row] = []

    def run_dir(name: str, lines: list[bytes] | None = None,
                records: list[dict[str, Any]] | None = None) -> None:
        """A run folder: ``records`` hash-chained to its plan (read, then refused or scored),
        or raw ``lines`` in a run without a chain (scored with --allow-unchained, so a corrupt
        line is skipped and the reader goes on to the next)."""
        run = folder / name
        run.mkdir()
        if records is not None:
            data, head = chain_lines(records, plan_digest(meta))
            (run / "run.json").write_text(json.dumps({**meta, "chain": {"head": head}}))
            (run / "trajectories.jsonl").write_bytes(data)
            out.append((name, ["score", str(run), "--display", "none"], {}))
            return
        (run / "run.json").write_text(json.dumps({k: v for k, v in meta.items()
                                                  if k != "chain"}))
        with open(run / "trajectories.jsonl", "wb") as fh:
            for line in lines or []:
                fh.write(line + b"\n")
        out.append((name, ["score", str(run), "--allow-unchained", "--display", "none"], {}))

    turn = record["turns"][0]
    long_episode = {**record, "budget": 10_000, "steps": 10_000,
                    "turns": [dict(turn, turn=i + 1) for i in range(10_000)]}
    run_dir("10k turns x 20 episodes", records=[{**long_episode, "attempt": 0}] * 20)
    run_dir("50 MB raw reply", records=[{**record, "turns": [dict(turn, raw="x" * 50_000_000)]}])
    # lines of 15 MB (under the 16 MiB line cap), 240 MB and 510 MB in all (under the
    # 512 MiB file cap): every record is held while the run is scored
    bulky = {**record, "turns": [dict(turn, raw="x" * (15 << 20)), *record["turns"][1:]]}
    planned = meta["attempts"]
    for lines in (16, 34):
        meta["attempts"] = lines
        run_dir(f"{lines} lines of 15 MB, planned",
                records=[{**bulky, "attempt": i} for i in range(lines)])
    meta["attempts"] = planned
    run_dir("100k torn lines", [b'{"task_id": "' + b"x" * 200] * 100_000)
    run_dir("deep and wide", [b"[" * 100_000 + b"]" * 100_000, dumps([[0] * 1000] * 1000)])
    findings = folder / "findings.jsonl"
    with open(findings, "wb") as fh:
        for i in range(100_000):
            fh.write(dumps({**GOOD_FINDING, "task_id": f"t{i % 1000}", "attempt": i // 1000})
                     + b"\n")
    rubrics = folder / "rubrics.json"
    rubrics.write_bytes(dumps({f"t{i}": ["a", "b"] for i in range(1000)}))
    out.append(("findings, 100k attempts", ["score", "--findings", str(findings), "--rubrics",
                                            str(rubrics), "--display", "none"], {}))
    # the bounded readers (#26): a sparse 2 GB file, a 1 GB blank line, a run.json padded to
    # 1 GB, and verify on a sparse 1.5 GB lights.jsonl; the first two and the last also with
    # the file cap raised, so they are streamed past the 16 MiB line cap
    run_dir("sparse 2 GB trajectories", [])
    with open(folder / "sparse 2 GB trajectories" / "trajectories.jsonl", "wb") as fh:
        fh.truncate(2 << 30)
    out.append(("sparse 2 GB, cap 4 GiB", out[-1][1], RAISED_FILE_CAP))
    run_dir("1 GB blank line", [dumps(record)])
    with open(folder / "1 GB blank line" / "trajectories.jsonl", "ab") as fh:
        for _ in range(1024):
            fh.write(b" " * (1 << 20))
        fh.write(b"\n")
    out.append(("1 GB blank line, cap 4 GiB", out[-1][1], RAISED_FILE_CAP))
    run_dir("run.json padded to 1 GB", [dumps(record)])
    with open(folder / "run.json padded to 1 GB" / "run.json", "ab") as fh:
        for _ in range(1024):
            fh.write(b" " * (1 << 20))
    sparse_suite = write_suite_dir(folder / "sparse-suite", "lights", canonical_line(base),
                                   base["id"], base["sha256"])
    with open(sparse_suite / "lights.jsonl", "wb") as fh:
        fh.truncate(3 << 29)
    verify = ["verify", str(sparse_suite), "--jobs", "1", "--display", "plain"]
    out.append(("verify: sparse 1.5 GB jsonl", verify, {}))
    out.append(("verify: sparse 1.5 GB, cap 4 GiB", verify, RAISED_FILE_CAP))
    # a 400 MB reply to `run --agent llm` (the client stops at its 8 MiB cap; the issue
    # measured 1.27 GB before the cap)
    out.append(("run: 400 MB LLM reply", ["run", "--suite", str(suite), "--agent", "llm",
                                          "--model", "fuzz",
                                          "--base-url", _big_reply_server(400 << 20),
                                          "--retries", "0", "--out", str(folder / "llm-run"),
                                          "--display", "none"], {}))
    big_rubrics = folder / "big-rubrics.json"
    big_rubrics.write_bytes(dumps({f"t{i}": ["a", "b", *["c"] * 48] for i in range(200_000)}))
    out.append(("rubrics, 200k tasks", ["score", "--findings", str(findings), "--rubrics",
                                        str(big_rubrics), "--display", "none"], {}))
    return out


def _big_reply_server(size: int) -> str:
    """A loopback endpoint (a thread of this process) answering every request with ``size``
    bytes of blanks before a valid completion, chunked; its base URL."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Big(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            chunk = b" " * (1 << 20)
            frame = f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
            ok = json.dumps({"choices": [{"message": {"content": "<action>0</action>"}}]})
            try:
                for _ in range(size >> 20):
                    self.wfile.write(frame)
                tail = ok.encode()
                self.wfile.write(f"{len(tail):x}\r\n".encode() + tail + b"\r\n0\r\n\r\n")
            except OSError:  # the client stopped reading at its cap
                self.close_connection = True

    server = ThreadingHTTPServer(("127.0.0.1", 0), Big)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    host, port = server.server_address[:2]
    return f"http://{host}:{port}/v1"


#: Real seconds one memory row may take: its largest input (20 chained 10,000-turn episodes,
#: every line schema-checked before the plan refuses the duplicates) needs minutes of CPU, and
#: 600 s of wall time was too little on 2 cores shared with other work.
MEMORY_TIMEOUT = 1800
#: The ceiling issue 26 sets for ``score`` and ``verify`` on adversarial inputs.
MEMORY_LIMIT_MB = 500


def peak_memory(folder: Path, only: list[str] | None = None,
                timeout: float = MEMORY_TIMEOUT) -> list[dict[str, Any]]:
    """Each adversarial row in a fresh interpreter: its peak RSS, exit, wall and CPU seconds
    (a row past ``timeout`` is reported as timed out, not raised); rows print as they end."""
    rows = []
    for name, args, extra in adversarial_score_files(folder):
        if only and not any(part.lower() in name.lower() for part in only):
            continue
        # VmHWM, not ru_maxrss: Linux carries the forking parent's peak into ru_maxrss
        code = ("import sys\nfrom arena_gen.cli import main\n"
                "try:\n    main(sys.argv[1:], standalone_mode=True)\nfinally:\n"
                "    hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM')]\n"
                "    print('MAXRSS', hwm[0].split()[1], file=sys.stderr)\n")
        t0 = time.perf_counter()
        cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        try:
            proc = subprocess.run([sys.executable, "-W", "ignore", "-c", code, *args],
                                  capture_output=True, text=True, timeout=timeout,
                                  env={**os.environ, **extra,
                                       "OPENAI_API_KEY": "sk-fuzz-0123456789abcdef"})
            stderr, exit_code = proc.stderr, proc.returncode
        except subprocess.TimeoutExpired as exc:  # killed: its peak is unknown
            err = exc.stderr or b""
            stderr = err.decode(errors="replace") if isinstance(err, bytes) else err
            stderr, exit_code = stderr + f"\nTIMEOUT after {timeout:.0f} s", -9
        cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        rss = [int(x.split()[1]) for x in stderr.splitlines() if x.startswith("MAXRSS")]
        lines = [x for x in stderr.strip().splitlines() if not x.startswith("MAXRSS")]
        row = {"file": name, "exit": exit_code,
               "peak_mb": round(rss[0] / 1024, 1) if rss else None,
               "seconds": round(time.perf_counter() - t0, 1),
               "cpu_s": round(cpu1.ru_utime + cpu1.ru_stime - cpu0.ru_utime - cpu0.ru_stime, 1),
               "traceback": "Traceback" in stderr, "message": (lines or [""])[-1][:120]}
        print(f"memory row: {json.dumps(row)}", file=sys.stderr, flush=True)
        rows.append(row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--first-case", type=int, default=0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--surface", action="append", choices=sorted(SURFACES))
    parser.add_argument("--env", choices=sorted(RELEASED_FILES),
                        help="one env's documents on the per-env surfaces")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="what a hang's 5 s count: real time, or this process's CPU time "
                             "(for a machine that other work shares; a case waiting 60 s of "
                             "real time is a hang too)")
    parser.add_argument("--show", type=int, default=3, help="tracebacks printed per surface")
    parser.add_argument("--no-memory", action="store_true")
    parser.add_argument("--memory-only", action="store_true",
                        help="only the peak-memory rows (score/verify on adversarial files)")
    parser.add_argument("--memory-row", action="append", metavar="TEXT",
                        help="only the memory rows whose name contains TEXT")
    parser.add_argument("--memory-timeout", type=float, default=MEMORY_TIMEOUT,
                        help="real seconds per memory row before it is reported as timed out")
    parser.add_argument("--quick", action="store_true", help="300 cases per surface")
    args = parser.parse_args()
    if args.quick:
        args.cases = min(args.cases, 300)
    if not all(p.is_file() for p in RELEASED_FILES.values()):
        print("note: ../shared/reference-data is absent; the importer surfaces will fail")
    names = args.surface or (PER_ENV if args.env else SURFACES)
    if args.env and set(names) - set(PER_ENV):
        parser.error(f"--env applies to the surfaces {', '.join(PER_ENV)}")
    # the shared fixtures (a lite task, one played run, and the imports they need) are made
    # before any case is timed: an alarm inside a first import would leave it half-initialised
    _lite_tasks()
    _base_run()
    for name in names:
        for make in FIXTURES.get(name, ()):
            make()
    rows = [] if args.memory_only else [
        run_surface(name, args.cases, args.seed, args.first_case, args.show, args.env,
                    args.clock)
        for name in names]
    print(f"{'surface':36} {'cases':>7} {'ok':>7} {'error':>7} {'forged':>6} {'tracebk':>7} "
          f"{'hang':>5} {'slowest s':>9} {'seconds':>8} {'peak MB':>8}")
    for r in rows:
        print(f"{r['surface']:36} {r['cases']:7d} {r['ok']:7d} {r['error']:7d} "
              f"{r['forged']:6d} {r['traceback']:7d} {r['hang']:5d} {r['slowest_s']:9.3f} "
              f"{r['seconds']:8.1f} {r['peak_mb']!s:>8}"
              + (f"  {r['traceback_kinds']}" if r["traceback_kinds"] else ""))
    mem: list[dict[str, Any]] = []
    if not args.no_memory:
        with tempfile.TemporaryDirectory(prefix="fuzz-mem-") as tmp:
            mem = peak_memory(Path(tmp), args.memory_row, args.memory_timeout)
        print(f"\n{'score (or verify) on':28} {'exit':>4} {'peak MB':>8} {'seconds':>8} "
              f"{'CPU s':>7} traceback")
        for m in mem:
            print(f"{m['file']:28} {m['exit']:4d} {m['peak_mb']!s:>8} {m['seconds']:8.1f} "
                  f"{m['cpu_s']:7.1f} {m['traceback']}  {m['message']}")
    print(f"\npeak RSS of this process: "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    bad = sum(r["traceback"] + r["hang"] + r["forged"] for r in rows) + sum(
        m["traceback"] or m["peak_mb"] is None or m["peak_mb"] >= MEMORY_LIMIT_MB for m in mem)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
