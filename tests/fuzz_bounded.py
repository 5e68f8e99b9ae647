"""Fuzz surfaces of the bounded readers and the bounded LLM client (#26), registered into
:data:`fuzz_surfaces.SURFACES`: hostile reply streams from a loopback server, FIFOs and devices
where a file is read, and sparse files of any size. A case returns ``"ok"`` or ``"error"`` (the
project's error, or the client's InfraError / ContextLengthError); a hang or any other exception
is what the benchmark counts. Run-dir forgery and suite substitution surfaces are added by
their own modules the same way."""

from __future__ import annotations

import asyncio
import functools
import json
import os
import random
import socket
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

# -- hostile streams -----------------------------------------------------------------------------
#: What the loopback server may answer (the case's choice travels in the request body).
STREAMS = ("ok", "endless", "trickle", "padded", "short", "garbage", "context", "status",
           "gzip-bomb")


class _Hostile(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        how, size, seed = body["how"], body["size"], body["seed"]
        rng = random.Random(seed)
        ok = json.dumps({"choices": [{"message": {"content": "<action>0</action>"}}]}).encode()
        try:
            if how == "ok":
                return self._send(200, ok)
            if how in ("endless", "trickle"):
                return self._chunked(size, 0.02 if how == "trickle" else 0.0)
            if how == "padded":  # a valid reply after `size` bytes of blanks
                return self._send(200, b" " * size + ok)
            if how == "short":  # announces more than it sends
                self.send_response(200)
                self.send_header("Content-Length", str(size + 100))
                self.end_headers()
                self.wfile.write(ok[: rng.randrange(len(ok))])
                self.close_connection = True
                return None
            if how == "garbage":
                return self._send(200, bytes(rng.randrange(256) for _ in range(size % 4096)))
            if how == "context":
                status = rng.choice([400, 413, 422])
                return self._send(status, b'{"error": "prompt too long; exceeded max context '
                                          b'length by 7 tokens"}' + b" " * size)
            if how == "gzip-bomb":
                import gzip

                self.send_response(200)
                data = gzip.compress(b" " * size)
                self.send_header("Content-Encoding", "gzip")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                return None
            return self._send(rng.choice([401, 404, 418, 429, 500, 503]), b"x" * (size % 70000))
        except OSError:  # the client hung up (it stopped reading at a cap)
            self.close_connection = True
            return None

    def _send(self, status: int, data: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _chunked(self, chunk: int, every: float) -> None:
        self.close_connection = True
        self.send_response(200)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        frame = f"{chunk:x}\r\n".encode() + b" " * chunk + b"\r\n"
        while True:  # until the client closes (OSError)
            self.wfile.write(frame)
            if every:
                self.wfile.flush()
                threading.Event().wait(every)


class _Quiet(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that hung up at its cap is the point, not a server error


@functools.cache
def _hostile_server() -> str:
    """One loopback server per process; its base URL."""
    server = _Quiet(("127.0.0.1", 0), _Hostile)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    host, port = server.server_address[:2]
    return f"http://{host}:{port}/v1"


@functools.cache
def _stream_client() -> tuple[asyncio.AbstractEventLoop, Any]:
    """One event loop and one client for every case (a new client's TLS context costs ~0.1 s)."""
    from arena_gen.agents.llm_client import ChatClient

    return asyncio.new_event_loop(), ChatClient(
        base_url=_hostile_server(), api_key="sk-fuzz-0123456789abcdef", timeout=3.0,
        retries=0, backoff=0.001, max_connections=1, max_reply_seconds=0.1)


def stream_case(work: Path, rng: random.Random) -> str:
    """One completion against a hostile reply (endless, trickling, padded, cut, garbage, a
    gzip bomb, a context error, a bad status) under small byte and time caps."""
    import numpy as np

    from arena_gen.agents.llm_client import ContextLengthError
    from arena_gen.core.agent import InfraError

    how = rng.choice(STREAMS)
    size = rng.choice([0, 1, 100, 4096, 65536, 1 << 20, 3 << 20])
    cap = rng.choice([1 << 10, 64 << 10, 1 << 20, 2 << 20])
    payload = {"how": how, "size": max(size, 4096) if how in ("endless", "trickle") else size,
               "seed": rng.randrange(1 << 30)}

    loop, client = _stream_client()
    client.max_reply_bytes = cap
    try:
        loop.run_until_complete(client.complete(payload, np.random.default_rng(0)))
    except (InfraError, ContextLengthError):
        return "error"
    return "ok"


# -- FIFOs, devices, sockets, folders where a file is read ---------------------------------------
def _special(path: Path, kind: str) -> list[Any]:
    """Make ``path`` a special file of ``kind``; what must be closed afterwards."""
    path.unlink(missing_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind in ("zero", "urandom", "null"):
        path.symlink_to(f"/dev/{kind}")
    elif kind == "socket":
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.bind(str(path))
        return [sock]
    else:
        path.mkdir()
    return []


def _readers(work: Path) -> dict[str, tuple[Path, Callable[[], Any]]]:
    """Every reader of a user's file: the file it reads and how a user reaches it."""
    from fuzz_surfaces import _base_run, _lite_tasks, canonical_line, write_suite_dir

    from arena_gen.core.signing import check_signature, load_private_key, load_public_key
    from arena_gen.core.suite_io import read_suite, read_task
    from arena_gen.runner.rundir import RunDir
    from arena_gen.scoring.score import load_rubrics, score_findings, score_run
    from arena_gen.suite.importer import import_tasks, plan_import

    base = _lite_tasks()["lights"]
    suite = write_suite_dir(work / "suite", "lights", canonical_line(base), base["id"],
                            base["sha256"])
    trajectories, run_json = _base_run()
    run = work / "run"
    run.mkdir()
    (run / "trajectories.jsonl").write_bytes(trajectories)
    meta = dict(json.loads(run_json), suite_path=str(suite), suite=str(suite))
    (run / "run.json").write_text(json.dumps(meta))
    other = work / "other.json"
    other.write_text("{}")
    lone = work / "file.json"
    return {
        "task file": (suite / "lights.jsonl", lambda: read_suite(suite)),
        "task file (one task)": (suite / "lights.jsonl", lambda: read_task(suite, base["id"])),
        "manifest": (suite / "manifest.json", lambda: read_suite(suite)),
        "signature": (suite / "manifest.json.sig",
                      lambda: _problem(check_signature(suite, other))),
        "public key": (lone, lambda: load_public_key(lone)),
        "private key": (lone, lambda: load_private_key(lone)),
        "import file": (lone, lambda: plan_import([lone])),
        "import file (parse)": (lone, lambda: import_tasks("lights", [lone])),
        "findings": (lone, lambda: score_findings(lone, other)),
        "rubrics": (lone, lambda: load_rubrics(lone)),
        "trajectories": (run / "trajectories.jsonl", lambda: RunDir(run).records()),
        "trajectories (score)": (run / "trajectories.jsonl", lambda: score_run(run)),
        "run.json": (run / "run.json", lambda: RunDir(run).read_meta()),
    }


def _problem(found: str | None) -> None:
    from arena_gen.core.errors import ArenaGenError

    if found is not None:
        raise ArenaGenError(found)


def special_file_case(work: Path, rng: random.Random) -> str:
    """A FIFO, a device (``/dev/zero``, ``/dev/urandom``, ``/dev/null``), a socket or a folder
    where one reader expects a file: refused, never waited on or read forever."""
    from fuzz_surfaces import _expect_project_error

    readers = _readers(work)
    name = rng.choice(sorted(readers))
    path, read = readers[name]
    kind = rng.choice(["fifo", "fifo", "zero", "urandom", "null", "socket", "folder"])
    if name == "signature" and kind == "folder":
        kind = "fifo"
    held = _special(path, kind)
    try:
        return _expect_project_error(read)
    finally:
        for sock in held:
            sock.close()


def sparse_file_case(work: Path, rng: random.Random) -> str:
    """A sparse file (a valid head, then a hole of NULs) of any size up to 4 GB, or a file with
    one blank line past the line cap, where one reader expects a file."""
    from fuzz_surfaces import _expect_project_error

    readers = _readers(work)
    name = rng.choice(sorted(readers))
    path, read = readers[name]
    head = path.read_bytes()[: rng.randrange(4096)] if path.is_file() else b""
    path.unlink(missing_ok=True)
    with open(path, "wb") as fh:
        fh.write(head)
        if rng.random() < 0.05:  # a blank line past the (lowered) line cap, really written
            fh.write(b"\n" + b" " * (2 << 20) + b"\n")
        else:
            fh.truncate(len(head) + rng.choice([1 << 20, 17 << 20, 600 << 20, 2 << 30,
                                                4 << 30]))
    old = os.environ.get("ARENA_GEN_MAX_LINE_BYTES")
    os.environ["ARENA_GEN_MAX_LINE_BYTES"] = str(1 << 20)
    try:
        return _expect_project_error(read)
    finally:
        if old is None:
            os.environ.pop("ARENA_GEN_MAX_LINE_BYTES", None)
        else:
            os.environ["ARENA_GEN_MAX_LINE_BYTES"] = old


BOUNDED_SURFACES: dict[str, Callable[[Path, random.Random], str]] = {
    "hostile streams (reply bodies)": stream_case,
    "FIFOs and devices": special_file_case,
    "sparse files": sparse_file_case,
}
