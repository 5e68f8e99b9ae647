"""A real OpenAI-compatible HTTP server on 127.0.0.1 for the LLM agent's tests.

It plays a scripted policy: it recognises the task from the intro in the prompt, reads the turn
number from the prompt's last "Current observation (turn N of B)" header and answers the oracle
witness action. Faults (HTTP errors, Retry-After, hangs, truncated bodies, replies without an
<action> tag) are injected per (env, turn, try) by a ``fault`` callable; a ``prelude`` of replies
per task is answered before its witness (e.g. wasted turns that stretch an episode to its
budget). It records every
request (headers, body, the number of past turns the prompt carries) and the most requests it
ever had in flight at once. :data:`CONTEXT_ERRORS` holds the real context-length error bodies of
OpenAI, llama.cpp, vLLM, SGLang, TGI (HTTP 422), Gemini's OpenAI-compatible endpoint and Ollama;
:func:`context_limit` is a fault that answers one of them once the prompt exceeds a number of
characters. ``Out(endless=True)`` is a hostile stream: a chunked 200 body that never ends.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from arena_gen.agents.llm_prompts import disclosed_intro
from arena_gen.core.task import Task

TURN = re.compile(r"## Current observation \(turn (\d+) of \d+\)")


@dataclass
class Out:
    """One scripted answer: a chat reply, or a fault."""

    content: str | None = None
    status: int = 200
    body: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    hang: float = 0.0
    #: hold the answer until this many requests have been in flight at once (or ``delay`` s
    #: have passed): a latch, so the last to arrive cannot answer and release the others first
    gather: int = 0
    #: announce a longer body than is sent, then drop the connection
    disconnect: bool = False
    reasoning_content: str | None = None
    finish_reason: str = "stop"
    #: tool calls of the reply, as (function name, arguments JSON text) pairs
    tool_calls: list[tuple[str, str]] | None = None
    #: a hostile stream: a 200 whose chunked body never ends, one ``chunk`` every ``every`` s
    endless: bool = False
    chunk: bytes = b" " * 65536
    every: float = 0.0


@dataclass
class Seen:
    """One request as the server saw it."""

    index: int
    env: str | None
    turn: int
    tries: int
    past_turns: int
    prompt: str
    authorization: str | None
    at: float
    body: dict[str, Any]
    #: the client's port: one per TCP connection (keep-alive reuse shows as repeats)
    peer: int = 0


class _Server(ThreadingHTTPServer):
    request_queue_size = 128  # the default backlog (5) drops bursts of new connections


Fault = Callable[[Seen], "Out | None"]


class FakeOpenAI:
    """``/v1/chat/completions`` on 127.0.0.1 playing witnesses, with injectable faults."""

    def __init__(self, tasks: Iterable[Task], *, key: str | None = None, delay: float = 0.0,
                 fault: Fault | None = None,
                 to_call: Callable[[str, str], tuple[str, str]] | None = None,
                 keep: bool = True, cached: bool = False,
                 prelude: Mapping[str, Sequence[str]] | None = None) -> None:
        tasks = list(tasks)
        #: task id -> the reply texts of its first turns, before the witness (which follows
        #: them, shifted by their number: replies that leave the state as it was)
        self.prelude = {task_id: list(replies) for task_id, replies in (prelude or {}).items()}
        #: each task by its intro as an inductive prompt shows it, and as a with-rules prompt
        #: words it (the rules shown, not called hidden)
        self.tasks = {t.public["intro"]: t for t in tasks}
        self.tasks.update({disclosed_intro(t.public["intro"]): t for t in tasks})
        #: report ``usage.prompt_tokens_details.cached_tokens`` (3/4 of the prompt's tokens)
        self.cached = cached
        #: keep each request's prompt and body in :attr:`seen` (a benchmark counts requests
        #: and keeps its memory flat: 7,680 prompts of a 64-episode run are ~1 GB as objects)
        self.keep = keep
        #: (env, witness action) -> (tool name, arguments JSON): answer requests that carry
        #: ``tools`` with a tool call instead of an <action> tag
        self.to_call = to_call
        self.key = key
        self.delay = delay
        self.fault = fault
        self.seen: list[Seen] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._more = threading.Condition(self._lock)
        self._tries: dict[tuple[str | None, int], int] = defaultdict(int)
        self._skipped: dict[str | None, set[int]] = defaultdict(set)
        self._stop = threading.Event()
        self._server = _Server(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._server.block_on_close = False
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._server.shutdown()
        self._server.server_close()

    def reset_counters(self) -> None:
        """Forget per-turn try counts (e.g. before a resumed run)."""
        with self._lock:
            self._tries.clear()
            self._skipped.clear()

    # -- the scripted policy --------------------------------------------------------------------
    def _task_of(self, prompt: str) -> Task | None:
        for intro, task in self.tasks.items():
            if intro in prompt:
                return task
        return None

    def answer(self, seen: Seen, task: Task | None) -> Out:
        """The prelude's reply for this turn, else the witness action (shifted past the prelude
        and past turns the env did not advance on)."""
        if task is None:
            return Out(content="I do not know this task. <action>0</action>")
        witness = task.certificate.witness
        prelude = self.prelude.get(task.id, [])
        if seen.turn <= len(prelude):
            return Out(content=prelude[seen.turn - 1])
        shift = len(prelude) + (0 if task.env == "trading" else len(
            [t for t in self._skipped[task.env] if t < seen.turn]))
        index = seen.turn - 1 - shift
        action = witness[index] if 0 <= index < len(witness) else witness[-1]
        if self.to_call is not None and seen.body.get("tools"):
            return Out(content=f"turn {seen.turn}: play the witness",
                       tool_calls=[self.to_call(task.env, action)], finish_reason="tool_calls")
        return Out(content=f"<think>turn {seen.turn}: play the witness</think>"
                           f"Playing it. <action>{action}</action>")

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # else delayed ACKs add ~40 ms per request

            def log_message(self, *args: Any) -> None:  # keep test output quiet
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                length = int(self.headers.get("Content-Length", 0))
                raw = self.rfile.read(length)
                if self.path.partition("?")[0] != "/v1/chat/completions":
                    return self._send(404, b'{"error": "not found"}')
                auth = self.headers.get("Authorization")
                if server.key is not None and auth != f"Bearer {server.key}":
                    return self._send(401, json.dumps({"error": f"bad key: {auth}"}).encode())
                with server._lock:
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                    server._more.notify_all()
                try:
                    out, seen = server._decide(raw, auth, self.client_address[1])
                    if out.gather:
                        with server._more:
                            server._more.wait_for(lambda: server.max_in_flight >= out.gather,
                                                  timeout=out.delay)
                    elif out.delay or server.delay:
                        server._stop.wait(out.delay or server.delay)
                    if out.hang:
                        server._stop.wait(out.hang)
                finally:
                    with server._lock:
                        server.in_flight -= 1
                if out.disconnect:
                    self.send_response(200)
                    self.send_header("Content-Length", "1000")
                    self.end_headers()
                    self.wfile.write(b'{"choices": [')
                    self.close_connection = True
                    return None
                if out.endless:
                    return self._endless(out)
                if out.body is not None:
                    return self._send(out.status, out.body, out.headers)
                message: dict[str, Any] = {"role": "assistant", "content": out.content}
                if out.reasoning_content is not None:
                    message["reasoning_content"] = out.reasoning_content
                if out.tool_calls is not None:
                    message["tool_calls"] = [
                        {"id": f"call_{i}", "type": "function",
                         "function": {"name": name, "arguments": arguments}}
                        for i, (name, arguments) in enumerate(out.tool_calls)]
                body = {"id": "cmpl-1", "object": "chat.completion", "created": 0, "model": "fake",
                        "choices": [{"index": 0, "message": message,
                                     "finish_reason": out.finish_reason}],
                        "usage": {"prompt_tokens": len(seen.prompt) // 4,
                                  "completion_tokens": len(out.content or "") // 4,
                                  "total_tokens": len(seen.prompt) // 4
                                  + len(out.content or "") // 4}}
                if server.cached:
                    body["usage"]["prompt_tokens_details"] = {
                        "cached_tokens": len(seen.prompt) // 4 * 3 // 4}
                self._send(out.status, json.dumps(body).encode(), out.headers)

            def _endless(self, out: Out) -> None:
                """Chunked JSON-looking bytes until the client hangs up (or the server stops)."""
                self.close_connection = True
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    frame = f"{len(out.chunk):x}\r\n".encode() + out.chunk + b"\r\n"
                    self.wfile.write(b'5\r\n{"a":\r\n')
                    while not server._stop.is_set():
                        self.wfile.write(frame)
                        if out.every:
                            self.wfile.flush()
                            server._stop.wait(out.every)
                except OSError:  # the client stopped reading and closed: what we want
                    pass

            def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None,
                      ) -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    for k, v in (headers or {}).items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:  # the client gave up (timeout): nothing to answer
                    self.close_connection = True

        return Handler

    def _decide(self, raw: bytes, auth: str | None, peer: int = 0) -> tuple[Out, Seen]:
        body = json.loads(raw)
        texts = [m.get("content") or "" for m in body["messages"]]
        # the task's intro is in the first messages and this turn's header in the last: read
        # only those (a benchmark's server answers thousands of long prompts); else all of it
        prompt = "\n".join(texts)
        task = self._task_of("\n".join(texts[:2])) or self._task_of(prompt)
        matches = TURN.findall(texts[-1]) if texts else []
        if not matches:
            matches = TURN.findall(prompt)
        turn = int(matches[-1]) if matches else 0  # the dialogue heads each observation
        env = task.env if task else None
        with self._lock:
            self._tries[(env, turn)] += 1
            seen = Seen(index=len(self.seen), env=env, turn=turn, tries=self._tries[(env, turn)],
                        past_turns=sum(m.get("role") == "assistant"
                                           for m in body["messages"]), prompt=prompt,
                        authorization=auth, at=time.monotonic(), body=body, peer=peer)
            self.seen.append(seen if self.keep else replace(seen, prompt="", body={}))
        out = self.fault(seen) if self.fault else None
        if out is not None:
            if out.content is not None and "<action>" not in out.content and not out.tool_calls:
                with self._lock:
                    self._skipped[env].add(turn)
            return out, seen
        return self.answer(seen, task), seen


def truncated_body() -> bytes:
    """A well-framed HTTP body whose JSON is cut in the middle."""
    full = json.dumps({"choices": [{"message": {"role": "assistant",
                                                 "content": "<action>0</action>"}}]})
    return full[: len(full) // 2].encode()


#: HTTP 400 bodies real servers send when the prompt does not fit the context window.
CONTEXT_ERRORS: dict[str, bytes] = {
    "openai": json.dumps({"error": {
        "message": "This model's maximum context length is 8192 tokens. However, your messages "
                   "resulted in 9120 tokens. Please reduce the length of the messages.",
        "type": "invalid_request_error", "param": "messages",
        "code": "context_length_exceeded"}}).encode(),
    "llama.cpp": json.dumps({"error": {
        "code": 400, "message": "the request exceeds the available context size, try "
                                "increasing it", "type": "invalid_request_error"}}).encode(),
    "llama.cpp-new": json.dumps({"error": {
        "code": 400, "message": "request (4476 tokens) exceeds the available context size "
                                "(4096 tokens), try increasing it",
        "type": "exceed_context_size_error", "n_prompt_tokens": 4476, "n_ctx": 4096}}).encode(),
    "vllm": json.dumps({
        "object": "error", "message": "This model's maximum context length is 4096 tokens. "
        "However, you requested 5000 tokens (4000 in the messages, 1000 in the completion). "
        "Please reduce the length of the messages or completion.",
        "type": "BadRequestError", "param": None, "code": 400}).encode(),
    # SGLang's OpenAI server (tokenizer_manager: the input alone is over the context)
    "sglang": json.dumps({
        "object": "error", "message": "The input (9120 tokens) is longer than the model's "
        "context length (8192 tokens).", "type": "BadRequestError", "param": None,
        "code": 400}).encode(),
    # Hugging Face TGI's router: HTTP 422, a validation error
    "tgi": json.dumps({
        "error": "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096. "
                 "Given: 8740 `inputs` tokens and 500 `max_new_tokens`",
        "error_type": "validation"}).encode(),
    # Gemini's OpenAI-compatible endpoint: a list holding the error
    "gemini": json.dumps([{"error": {
        "code": 400, "message": "The input token count (1054016) exceeds the maximum number of "
                                "tokens allowed (1048576).", "status": "INVALID_ARGUMENT"}}]
                         ).encode(),
    # Ollama's /v1 endpoint (its native API says the same in {"error": "..."})
    "ollama": json.dumps({"error": {
        "message": "prompt too long; exceeded max context length by 4021 tokens",
        "type": "invalid_request_error", "param": None, "code": None}}).encode(),
}
#: The status a flavor's context error comes with (400 unless named here).
CONTEXT_STATUS: dict[str, int] = {"tgi": 422}


def context_limit(chars: int, flavor: str = "llama.cpp", reply: str = "<action>0</action>",
                  ) -> Fault:
    """A fault: ``flavor``'s context-length error for prompts over ``chars``, else ``reply``."""
    body, status = CONTEXT_ERRORS[flavor], CONTEXT_STATUS.get(flavor, 400)

    def fault(seen: Seen) -> Out:
        if len(seen.prompt) > chars:
            return Out(status=status, body=body)
        return Out(content=reply)

    return fault


def nested_body(depth: int = 100_000) -> bytes:
    """A 200 body that is valid JSON nested deeper than any recursive parser's stack."""
    return b'{"choices": ' + b"[" * depth + b"]" * depth + b"}"
