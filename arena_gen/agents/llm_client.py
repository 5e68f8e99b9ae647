"""An async OpenAI-compatible chat client that survives flaky endpoints and never leaks its key.

One :class:`ChatClient` is shared by every episode a process runs: its semaphore bounds the
requests in flight across episodes (``max_connections``), and its one aiohttp session keeps up
to ``max_connections`` keep-alive connections. The transport is aiohttp because of what a
request costs the client's CPU at RL scale: httpx with one pool costs O(connections) per request
in httpcore 1.0's pool bookkeeping (encode/httpcore#1035; SkyRL PR #2161 measured 14-38 ms per
request at 512-4,096 in flight), and even one single-connection httpx client per connection
cost 1.4-1.7 ms of CPU per request at 64-1,024 in flight against aiohttp's 0.26-0.35 ms
(``benchmarks/bench_http_clients.py``; ``benchmarks/README.md``, "RL-scale evaluation"). A
request is retried with exponential
backoff and jitter on 429 (``Retry-After`` honoured), 408, 5xx (but 501 and 505, which no retry
changes), timeouts, transport errors and malformed bodies; when every retry fails, or the
endpoint answers another 4xx, 501 or 505, it raises
:class:`~arena_gen.core.agent.InfraError`. A 400 (413, or TGI's 422) that says the prompt does
not fit the model's context (OpenAI's ``context_length_exceeded``, llama.cpp's "exceeds the
available context size", vLLM's "maximum context length", and SGLang's, TGI's, Gemini's and
Ollama's wordings in :data:`CONTEXT_MARKERS`) raises :class:`ContextLengthError` instead: the
agent can shorten its prompt, so it is neither retried as is nor an infra error.

A reply body is streamed and bounded apart from ``timeout``: at most ``max_reply_bytes``
(``$ARENA_GEN_MAX_REPLY_BYTES``, 8 MiB) within ``max_reply_seconds`` after its headers
(``$ARENA_GEN_MAX_REPLY_SECONDS``, 600 s); an endless or trickling body stops there with an
InfraError. The key is stripped and checked before use (:func:`checked_key`). Every text that
leaves this module (errors, contents, reasoning, finish reason) has the API key redacted in every
form :func:`~arena_gen.core.redact.redact_text` knows, and errors show the endpoint without
credentials (:func:`~arena_gen.core.redact.public_url`).
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import math
import os
import ssl
import time
import unicodedata
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

import aiohttp
import numpy as np

from arena_gen.core.agent import InfraError
from arena_gen.core.env_limits import positive_number
from arena_gen.core.errors import ArenaGenError
from arena_gen.core.redact import public_url, redact_text, url_secrets
from arena_gen.core.usage import clean_usage

DEFAULT_BASE_URL = "https://api.openai.com/v1"
#: Statuses worth another try: rate limits, request timeouts, and every 5xx but the permanent
#: ones (:data:`PERMANENT_5XX`).
RETRY_STATUSES = frozenset({408, 409, 425, 429})
#: 5xx statuses no retry can change: 501 Not Implemented (the endpoint has no such route or
#: method) and 505 HTTP Version Not Supported; they end the request at once.
PERMANENT_5XX = frozenset({501, 505})
#: Statuses a context-length error comes with (400 almost everywhere; 413 from some proxies;
#: 422 from Hugging Face TGI's input validation).
CONTEXT_STATUSES = frozenset({400, 413, 422})
#: Lower-case phrases of the context-length errors in the bodies of OpenAI, llama.cpp, vLLM,
#: SGLang ("The input (N tokens) is longer than the model's context length (C tokens)."), TGI
#: ("Input validation error: `inputs` tokens + `max_new_tokens` must be <= C", "`inputs` must
#: have less than C tokens"), Gemini's OpenAI-compatible endpoint ("The input token count (N)
#: exceeds the maximum number of tokens allowed (C).") and Ollama ("prompt too long; exceeded
#: max context length by N tokens").
CONTEXT_MARKERS = ("context_length_exceeded", "exceed_context_size",
                   "exceeds the available context size", "maximum context length",
                   "maximum model length", "longer than the model's context length",
                   "`inputs` tokens + `max_new_tokens` must be", "`inputs` must have less than",
                   "exceeds the maximum number of tokens allowed", "exceeded max context length")
#: How much of an error body is read to classify it.
ERROR_BODY_BYTES = 65536
#: Default cap of a reply body, in bytes (``$ARENA_GEN_MAX_REPLY_BYTES``): a completion is a few
#: hundred kilobytes at most; an endless or padded body stops here.
DEFAULT_MAX_REPLY_BYTES = 8 * 1024 * 1024
#: Default cap of the time a reply body may take to arrive once its headers came, in seconds
#: (``$ARENA_GEN_MAX_REPLY_SECONDS``), whatever ``--timeout`` says.
DEFAULT_MAX_REPLY_SECONDS = 600.0
REPLY_BYTES_ENV = "ARENA_GEN_MAX_REPLY_BYTES"
REPLY_SECONDS_ENV = "ARENA_GEN_MAX_REPLY_SECONDS"


class _Retryable(Exception):
    """One failed try that may succeed on the next (carries the server's Retry-After)."""

    def __init__(self, reason: str, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.retry_after = retry_after


class ContextLengthError(Exception):
    """The prompt does not fit the endpoint's context window: shorten it, do not retry it."""


@dataclass
class Completion:
    """What one chat completion returned, already redacted."""

    content: str
    reasoning: str | None
    usage: dict[str, Any] | None  # as reported; core/usage.py keeps the counts
    finish_reason: str | None
    retries: int
    #: the reply's tool calls (``name``, ``arguments`` text, ``id``) when the request had tools
    tool_calls: list[dict[str, Any]] | None = None


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or an HTTP date), else None."""
    if not value:
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return None
        if when is None:
            return None
        seconds = when.timestamp() - (time.time() if now is None else now)
    if not math.isfinite(seconds):
        return None
    return max(0.0, seconds)


def backoff_delay(retry: int, base: float, cap: float, rng: np.random.Generator,
                  retry_after: float | None = None) -> float:
    """Exponential backoff with jitter in [0.5, 1] x base x 2^retry, at least Retry-After."""
    delay = min(cap, base * (2.0 ** retry)) * float(rng.uniform(0.5, 1.0))
    if retry_after is not None:
        delay = max(delay, min(retry_after, cap))
    return delay


def chat_url(base_url: str) -> str:
    """``{base_url}/chat/completions``, the path extended before any query (``?api-version=``)."""
    parts = urlsplit(base_url)
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/chat/completions"))


def missing_key_warning(base_url: str, api_key: str | None = None) -> str | None:
    """Why a run may fail without a key, said before it plays (a 401 ends every episode as an
    infra error), or None when a key is set (``api_key``, else ``$OPENAI_API_KEY``)."""
    key = os.environ.get("OPENAI_API_KEY", "") if api_key is None else api_key
    if key.strip():
        return None
    return (f"no API key is set ($OPENAI_API_KEY is empty): requests to {public_url(base_url)} "
            f"carry no Authorization header; an endpoint that needs a key answers 401 and "
            f"every episode ends in an infra error (a local server may need none)")


def checked_key(key: str) -> str:
    """The API key without surrounding whitespace (a key pasted with its newline), or the
    project's error when what is left holds a character no bearer token holds (a control or
    invisible character, a space, non-ASCII); the message names the position, never the key."""
    key = key.strip()
    for pos, char in enumerate(key):
        if not ("!" <= char <= "~"):
            what = ("a control character" if unicodedata.category(char) == "Cc" else
                    "an invisible character" if unicodedata.category(char) in ("Cf", "Zl", "Zp")
                    else "a space" if char.isspace() else "a non-ASCII character")
            raise ArenaGenError(f"the API key ($OPENAI_API_KEY) holds {what} (U+{ord(char):04X} "
                                f"at position {pos + 1} of {len(key)}); refused, it was not "
                                f"sent (check how the key was pasted or exported)")
    return key


def _is_loopback(url: str) -> bool:
    """Whether a URL points at this machine (then proxy variables must not apply)."""
    host = (urlsplit(url).hostname or "").lower()
    return host in ("localhost", "::1") or host.startswith("127.")


def tls_context() -> ssl.SSLContext:
    """The system's CA store (``$SSL_CERT_FILE``/``$SSL_CERT_DIR`` honoured) and certifi's
    bundle when installed, verifying hosts (built once per client: it takes ~0.1 s)."""
    context = ssl.create_default_context()
    try:
        import certifi
    except ImportError:  # pragma: no cover - installed with most HTTP stacks
        return context
    context.load_verify_locations(certifi.where())
    return context


def _text(content: Any) -> str:
    """Message content as text: a string, or the text parts of a content-part list."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    raise ValueError(f"message content is a {type(content).__name__}")


def _usage(body: dict[str, Any]) -> dict[str, Any] | None:
    """The usage numbers as reported (``1e400`` stays inf, ``-5`` stays -5): the episode that
    records the turn keeps only real counts and notes the rest (``core/usage.py``)."""
    usage = body.get("usage")
    if not isinstance(usage, dict):
        return None
    out: dict[str, Any] = {}
    for key in ("prompt_tokens", "completion_tokens", "total_tokens"):
        value = usage.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            out[key] = value
    details = usage.get("completion_tokens_details")
    if isinstance(details, dict) and isinstance(details.get("reasoning_tokens"), int):
        out["reasoning_tokens"] = details["reasoning_tokens"]
    prompt_details = usage.get("prompt_tokens_details")  # of prompt_tokens, served from cache
    if isinstance(prompt_details, dict) and isinstance(prompt_details.get("cached_tokens"), int):
        out["cached_tokens"] = prompt_details["cached_tokens"]
    clean, _ = clean_usage(out)  # the total of prompt + completion when none is reported
    if clean and "total_tokens" not in out and "total_tokens" in clean:
        out["total_tokens"] = clean["total_tokens"]
    return out or None


def is_context_error(status: int, body: bytes) -> bool:
    """Whether an error response says the request exceeds the model's context window."""
    if status not in CONTEXT_STATUSES:
        return False
    text = body[:ERROR_BODY_BYTES].decode("utf-8", "replace").lower()
    return any(marker in text for marker in CONTEXT_MARKERS)




def parse_completion(raw: bytes) -> tuple[str, str | None, dict[str, Any] | None, str | None]:
    """Content, reasoning field, usage and finish reason of a body; ValueError when malformed."""
    try:
        return _parse_completion(raw)
    except RecursionError:  # nested deeper than the parser's stack: a malformed body
        raise ValueError("response JSON is nested too deeply") from None


def _parse_completion(raw: bytes) -> tuple[str, str | None, dict[str, Any] | None, str | None]:
    try:
        body = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"response is not JSON ({exc.msg if hasattr(exc, 'msg') else exc})") \
            from None
    if not isinstance(body, dict):
        raise ValueError("response is not a JSON object")
    if "error" in body and "choices" not in body:
        raise ValueError(f"response carries an error: {str(body['error'])[:200]}")
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ValueError("response has no choices")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise ValueError("response choice has no message")
    content = _text(message.get("content"))
    reasoning = message.get("reasoning_content") or message.get("reasoning")
    if reasoning is not None and not isinstance(reasoning, str):
        reasoning = json.dumps(reasoning)
    finish = choices[0].get("finish_reason")
    return content, reasoning, _usage(body), finish if isinstance(finish, str) else None


def parse_tool_calls(raw: bytes) -> list[dict[str, Any]]:
    """The first choice's tool calls of a well-formed body, in order, as ``name``, ``arguments``
    (the JSON text as sent) and ``id``; entries that are not function calls are skipped."""
    try:
        body = json.loads(raw)
        message = body["choices"][0]["message"]
        calls = message.get("tool_calls") or []
    except (ValueError, RecursionError, KeyError, IndexError, TypeError, AttributeError):
        return []
    out: list[dict[str, Any]] = []
    for call in calls if isinstance(calls, list) else []:
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict):
            continue
        arguments = function.get("arguments")
        out.append({"id": str(call.get("id") or ""), "name": str(function.get("name") or ""),
                    "arguments": arguments if isinstance(arguments, str)
                    else json.dumps(arguments)})
    return out


async def _within(coro: Any, seconds: float) -> Any:
    """Await ``coro`` for at most ``seconds`` (then it is cancelled: aiohttp closes the
    connection of a cancelled request, so nothing is left in its pool)."""
    return await asyncio.wait_for(coro, timeout=seconds)


class ChatClient:
    """Posts chat completions to ``{base_url}/chat/completions`` with bounded concurrency."""

    def __init__(self, *, base_url: str | None = None, api_key: str | None = None,
                 timeout: float = 300.0, retries: int = 5, backoff: float = 1.0,
                 backoff_max: float = 60.0, max_connections: int = 8,
                 max_reply_bytes: int | None = None,
                 max_reply_seconds: float | None = None) -> None:
        url = base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
        self.url = chat_url(url)
        #: the endpoint as errors and logs show it (no credentials)
        self.public_url = public_url(self.url)
        self._key = checked_key(api_key if api_key is not None
                                else os.environ.get("OPENAI_API_KEY", ""))
        secrets = [self._key] if len(self._key) >= 4 else []
        self._secrets = sorted({*secrets, *url_secrets(self.url)}, key=lambda s: (-len(s), s))
        self.timeout = float(timeout)
        self.retries = int(retries)
        self.backoff = float(backoff)
        self.backoff_max = float(backoff_max)
        self.max_connections = int(max_connections)
        #: caps of one reply body (bytes, and seconds after its headers), apart from timeout
        self.max_reply_bytes = int(max_reply_bytes if max_reply_bytes is not None else
                                   positive_number(REPLY_BYTES_ENV, DEFAULT_MAX_REPLY_BYTES))
        self.max_reply_seconds = float(
            max_reply_seconds if max_reply_seconds is not None
            else positive_number(REPLY_SECONDS_ENV, DEFAULT_MAX_REPLY_SECONDS))
        #: the session (made in the loop that first uses it) and its TLS context
        self._session: aiohttp.ClientSession | None = None
        self._tls: ssl.SSLContext | None = None
        self._sem: asyncio.Semaphore | None = None
        self._headers = {"Content-Type": "application/json"}
        if self._key:
            self._headers["Authorization"] = f"Bearer {self._key}"
        #: where requests go: credentials in the URL become its Basic authorization (as httpx
        #: sent them, in place of the bearer key), since aiohttp refuses both at once
        parts = urlsplit(self.url)
        self._post_url = self.url
        if parts.username is not None or parts.password is not None:
            self._headers["Authorization"] = aiohttp.BasicAuth(
                unquote(parts.username or ""), unquote(parts.password or "")).encode()
            self._post_url = urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))

    def __repr__(self) -> str:  # never show the key
        return f"ChatClient(url={self.public_url!r}, max_connections={self.max_connections})"

    @property
    def secret(self) -> str | None:
        """The API key (for :func:`~arena_gen.core.redact.scrub` of whole records), or None."""
        return self._key if len(self._key) >= 4 else None

    def redact(self, text: str) -> str:
        """Remove the API key (and URL credentials) from a text from the network or an error."""
        return redact_text(text.replace(self.url, self.public_url), self._secrets)

    def _ensure(self) -> asyncio.Semaphore:
        if self._sem is None:
            self._sem = asyncio.Semaphore(self.max_connections)
        return self._sem

    def _http(self) -> aiohttp.ClientSession:
        """The session, made on first use in the running loop: a pool of ``max_connections``
        keep-alive connections (the semaphore keeps requests in flight at that many)."""
        if self._session is None:
            loopback = _is_loopback(self.url)
            if self._tls is None and not self.url.startswith("http://"):
                self._tls = tls_context()
            connector = aiohttp.TCPConnector(limit=self.max_connections, limit_per_host=0,
                                             ssl=self._tls if self._tls is not None else True,
                                             ttl_dns_cache=300)
            self._session = aiohttp.ClientSession(
                connector=connector, headers=self._headers, trust_env=not loopback,
                timeout=aiohttp.ClientTimeout(total=None, connect=self.timeout,
                                              sock_connect=self.timeout,
                                              sock_read=self.timeout),
                auto_decompress=True)
        return self._session

    async def aclose(self) -> None:
        """Close every connection (call from the loop that used them)."""
        session, self._session = self._session, None
        if session is not None:
            await session.close()
        self._sem = None

    async def complete(self, payload: dict[str, Any], rng: np.random.Generator) -> Completion:
        """One chat completion, retried; raises InfraError once every try has failed."""
        sem = self._ensure()
        last = "no attempt made"
        for retry in range(self.retries + 1):
            try:
                async with sem:
                    content, reasoning, usage, finish, calls = await _within(
                        self._post(self._http(), payload), self.timeout * 1.5)
                return Completion(self.redact(content),
                                  self.redact(reasoning) if reasoning is not None else None,
                                  usage, self.redact(finish) if finish is not None else None,
                                  retry, None if calls is None else [
                                      {k: self.redact(v) for k, v in c.items()} for c in calls])
            except _Retryable as exc:
                last, retry_after = str(exc), exc.retry_after
            except asyncio.TimeoutError:  # aiohttp's timeouts are TimeoutErrors too
                last, retry_after = f"timed out after {self.timeout:g} s", None
            except (aiohttp.ClientError, OSError) as exc:
                last, retry_after = f"{type(exc).__name__}: {self.redact(str(exc))[:200]}", None
            if retry < self.retries:
                await asyncio.sleep(backoff_delay(retry, self.backoff, self.backoff_max, rng,
                                                  retry_after))
        raise InfraError(self.redact(f"{self.public_url}: {last} "
                                     f"(after {self.retries + 1} tries)"))

    async def _post(self, http: aiohttp.ClientSession,
                    payload: dict[str, Any],
                    ) -> tuple[str, str | None, Any, str | None, list[dict[str, Any]] | None]:
        response = await http.post(self._post_url, data=json.dumps(payload).encode("utf-8"),
                                   allow_redirects=False)
        status = response.status
        try:
            # an error body is only classified and quoted: its head is enough
            body = await self._read_body(response, None if status == 200 else ERROR_BODY_BYTES)
        except BaseException:
            response.close()  # a body not read to its end: its connection is dropped
            raise
        if status == 200:
            response.release()  # read whole: the connection is kept alive for the next
        else:
            response.close()
        if status == 429 or status in RETRY_STATUSES or (status >= 500
                                                          and status not in PERMANENT_5XX):
            raise _Retryable(f"HTTP {status}: {self._excerpt(body)}",
                             parse_retry_after(response.headers.get("retry-after")))
        if is_context_error(status, body):
            raise ContextLengthError(f"HTTP {status}: {self._excerpt(body)}")
        if status != 200:
            raise InfraError(self.redact(f"{self.public_url}: HTTP {status}: "
                                         f"{self._excerpt(body)} (not retried)"))
        try:
            parsed = parse_completion(body)
        except ValueError as exc:
            raise _Retryable(f"malformed response: {self.redact(str(exc))}") from None
        calls = parse_tool_calls(body) if payload.get("tools") else None
        return (*parsed, calls)

    async def _read_body(self, response: aiohttp.ClientResponse, head: int | None) -> bytes:
        """The (decoded) body, streamed: its first ``head`` bytes when given, else all of it
        within :attr:`max_reply_bytes` and :attr:`max_reply_seconds`; past either cap the
        reading stops with an InfraError (a hostile or broken endpoint, not retried)."""
        chunks: list[bytes] = []
        read = [0]  # bytes so far, for the message of a body past its time

        async def drain() -> None:
            while True:
                chunk = await response.content.readany()
                if not chunk:
                    return
                chunks.append(chunk)
                read[0] += len(chunk)
                if head is not None and read[0] >= head:
                    return
                if read[0] > self.max_reply_bytes:
                    raise InfraError(f"{self.public_url}: the reply body is larger than "
                                     f"{self.max_reply_bytes} bytes; stopped reading "
                                     f"(${REPLY_BYTES_ENV} raises the cap)")

        try:
            await asyncio.wait_for(drain(), self.max_reply_seconds)
        except aiohttp.ServerTimeoutError:
            raise  # a read past --timeout: retried like any timeout
        except asyncio.TimeoutError:
            raise InfraError(f"{self.public_url}: the reply body took longer than "
                             f"{self.max_reply_seconds:g} s (read {read[0]} bytes); stopped "
                             f"(${REPLY_SECONDS_ENV} raises the cap)") from None
        body = b"".join(chunks)
        return body[:head] if head is not None else body

    def _excerpt(self, body: bytes) -> str:
        text = body[:4096].decode("utf-8", "replace")
        return self.redact(text).replace("\n", " ").strip()[:300] or "(empty body)"
