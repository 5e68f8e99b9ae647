"""Credential scrubbing for what a run records: endpoint URLs and arbitrary nested values.

A ``--base-url`` may carry credentials (``https://user:pass@host/v1``, ``?api_key=...``);
run.json and every error message show the URL, so they get :func:`public_url` instead: userinfo
removed and key-like query values replaced. :func:`scrub` replaces a secret inside every string
of a nested value (keys included), so no recorded field can leak it.
"""

from __future__ import annotations

import base64
import bisect
import json
import re
import string
from functools import lru_cache
from typing import Any
from urllib.parse import parse_qsl, quote, unquote_plus, urlsplit, urlunsplit

REDACTED = "[REDACTED]"
#: Query parameter names (lower case, ``-`` as ``_``) whose values are credentials.
SECRET_PARAMS = frozenset({"key", "api_key", "apikey", "access_key", "token", "access_token",
                           "auth", "auth_token", "password", "passwd", "pass", "secret",
                           "client_secret", "sig", "signature", "code", "session"})


def _secret_param(name: str) -> bool:
    norm = name.lower().replace("-", "_")
    return norm in SECRET_PARAMS or norm.endswith(("_key", "_token", "_secret", "_password"))


#: Path segments and unnamed query items that look like credentials: a known key prefix, or a
#: long token of letters and digits (a provider that puts the key in the URL path).
_KEY_LIKE = re.compile(r"^(?:sk-|sk_|ghp_|gho_|github_pat_|xox[abpr]-|hf_|gsk_|AIza|key-|"
                       r"Bearer)|^(?=[^/]*[0-9])(?=[^/]*[A-Za-z])[A-Za-z0-9_\-.~]{32,}$")


def _key_like(segment: str) -> bool:
    return len(segment) >= 8 and bool(_KEY_LIKE.search(segment))


def _public_path(path: str) -> str:
    return "/".join(REDACTED if _key_like(seg) else seg for seg in path.split("/"))


def public_url(url: str, secrets: list[str] | tuple[str, ...] = ()) -> str:
    """``url`` without userinfo and with credential query values redacted (shown and stored):
    key-like names' values, unnamed query items (``?sk-...``) and key-like path segments
    (``/v1/sk-.../chat``) too, and every echo of ``secrets`` (the API key in use)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port
    except ValueError:  # not a URL we can take apart: show none of it
        return REDACTED
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    netloc = host if port is None else f"{host}:{port}"
    if parts.username is not None or parts.password is not None:
        netloc = f"{REDACTED}@{netloc}"
    query = parts.query
    if query:
        items = []
        for item in query.split("&"):
            name, eq, value = item.partition("=")
            if not eq:  # an unnamed item: a bare key (``?sk-...``) unless it is short
                items.append(REDACTED if len(item) >= 8 else item)
            elif _secret_param(unquote_plus(name)) or _key_like(unquote_plus(value)):
                items.append(f"{name}={REDACTED}")
            else:
                items.append(item)
        query = "&".join(items)
    shown = urlunsplit((parts.scheme, netloc, _public_path(parts.path), query,
                        parts.fragment and REDACTED))
    return redact_text(shown, [s for s in secrets if len(s) >= 4])


def url_secrets(url: str) -> list[str]:
    """The credential strings inside ``url`` (password, userinfo, key-like query values)."""
    try:
        parts = urlsplit(url)
        userinfo = parts.netloc.rpartition("@")[0]
        # the whole userinfo (a lone username is often a token: https://TOKEN@host) and the
        # password alone; a username next to a password is not redacted on its own
        found = [parts.password or "", userinfo]
        for k, v in parse_qsl(parts.query, keep_blank_values=True):
            if _secret_param(k):
                found.append(v)
        found += [v for k, v in (p.partition("=")[::2] for p in parts.query.split("&"))
                  if _secret_param(k)]
        found += [p for p in parts.query.split("&") if "=" not in p and len(p) >= 8]
        found += [seg for seg in parts.path.split("/") if _key_like(seg)]
    except ValueError:
        return []
    return sorted({s for s in found if len(s) >= 4}, key=lambda s: (-len(s), s))


#: A secret this long is matched in every form a client or server may echo it in: any case,
#: hex, base64 (at any alignment), JSON ``\\u`` or percent escapes, split by zero-width
#: characters, and any contiguous part of at least :data:`PARTIAL` characters.
STRONG = 8
PARTIAL = 8
#: Characters that render as nothing (zero-width space, joiners, word joiner, BOM, soft hyphen):
#: an echo split by them is still the secret.
_INVISIBLE = re.compile("[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]")
_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


def _b64_cores(data: bytes) -> list[str]:
    """The base64 text that only ``data`` decides, at each of the three byte alignments it may
    sit at inside a longer encoded string (standard and URL-safe alphabets)."""
    out = []
    for k in range(3):
        encoded = base64.b64encode(b"\0" * k + data).decode("ascii")
        first, last = -(-k // 3), (k + len(data)) // 3  # groups of 3 bytes wholly inside data
        core = encoded[4 * first:4 * last]
        if len(core) >= STRONG:
            out += [core, core.replace("+", "-").replace("/", "_")]
    return out


@lru_cache(maxsize=64)
def _forms(secret: str) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """``(folded, exact, partial)``: forms matched case-insensitively (ASCII), forms matched
    as they are, and the windows whose every occurrence is a partial echo."""
    if len(secret) < STRONG:
        return (), (secret,), ()
    raw = secret.encode("utf-8")
    folded = {secret, raw.hex(), json.dumps(secret)[1:-1], quote(secret, safe=""),
              "".join(f"\\u{ord(c):04x}" for c in secret)}
    hex_form = raw.hex()
    partial = {secret[i:i + PARTIAL] for i in range(len(secret) - PARTIAL + 1)}
    partial |= {hex_form[i:i + 2 * PARTIAL] for i in range(0, len(hex_form) - 2 * PARTIAL + 1)}
    return (tuple(sorted(f.translate(_LOWER) for f in folded)), tuple(_b64_cores(raw)),
            tuple(sorted(p.translate(_LOWER) for p in partial)))


def _trie_regex(words: set[str] | tuple[str, ...]) -> re.Pattern[str] | None:
    """One pattern matching, at each position, the longest of ``words`` that starts there
    (a radix trie written as nested groups): scanning a text with it costs time linear in the
    text, not the text times the number and length of the words."""
    present = [w for w in words if w]
    if not present:
        return None
    root: dict[str, Any] = {}
    for word in present:
        node = root
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def build(node: dict[str, Any]) -> str:
        alternatives = []
        for char in sorted(k for k in node if k):
            run, child = [char], node[char]
            while len(child) == 1 and "" not in child:  # a chain of single children: a literal
                (nxt, child), = child.items()
                run.append(nxt)
            alternatives.append(re.escape("".join(run)) + build(child))
        if not alternatives:
            return ""
        body = (alternatives[0] if len(alternatives) == 1
                else "(?:" + "|".join(alternatives) + ")")
        return f"(?:{body})?" if "" in node else body

    return re.compile(build(root))


#: Up to this many forms, each is searched for on its own (``str.find``, fastest for a short
#: key); past it, one trie pattern scans the text once (linear whatever the key's length).
_FEW_FORMS = 64
_Search = re.Pattern[str] | tuple[str, ...] | None


def _searcher(words: set[str]) -> _Search:
    ordered = tuple(sorted(w for w in words if w))
    return ordered if len(ordered) <= _FEW_FORMS else _trie_regex(ordered)


@lru_cache(maxsize=64)
def _patterns(secrets: tuple[str, ...]) -> tuple[_Search, _Search]:
    """``(exact, folded)``: how to find every form of ``secrets`` matched as they are, and
    those matched on the ASCII-lowercased text (a few literal forms, or one trie pattern)."""
    exact: set[str] = set()
    folded: set[str] = set()
    for secret in secrets:
        low, same, partial = _forms(secret)
        exact.update(same)
        folded.update(low)
        folded.update(partial)
    return _searcher(exact), _searcher(folded)


def _spans(pattern: _Search, text: str, spans: list[tuple[int, int]]) -> None:
    """The spans of every occurrence of the forms: each literal found on its own, or, for a
    trie pattern, the longest match starting at each position where one starts (searched
    again from the next position, so overlapping echoes are all found)."""
    if pattern is None:
        return
    if isinstance(pattern, tuple):
        for form in pattern:
            start = text.find(form)
            while start >= 0:
                spans.append((start, start + len(form)))
                start = text.find(form, start + 1)
        return
    match = pattern.search(text)
    while match is not None:
        if match.end() > match.start():
            spans.append(match.span())
        match = pattern.search(text, match.start() + 1)


def redact_text(text: str, secrets: list[str] | tuple[str, ...]) -> str:
    """``text`` with every echo of each secret replaced by ``[REDACTED]``: exact, and for a
    secret of at least :data:`STRONG` characters also in another case, hex, base64, escaped,
    split by zero-width characters or in part (any :data:`PARTIAL` or more characters).
    Linear in the text: one scan per pattern, whatever the number and length of the secrets
    (a 20 MB reply and a 1 kB key took 85 s with a search per form; issue 41)."""
    secrets = tuple(sorted({s for s in secrets if s}))
    if not secrets or not text:
        return text
    removed = [m.start() for m in _INVISIBLE.finditer(text)]
    view = _INVISIBLE.sub("", text) if removed else text
    exact, folded = _patterns(secrets)
    spans: list[tuple[int, int]] = []
    _spans(exact, view, spans)
    _spans(folded, view.translate(_LOWER), spans)
    if not spans:
        return text
    if removed:  # back to positions in ``text`` (covering the invisible ones inside)
        shift = [r - j for j, r in enumerate(removed)]  # view position each removed char had

        def at(v: int) -> int:
            return v + bisect.bisect_right(shift, v)

        spans = [(at(a), at(b - 1) + 1) for a, b in spans]
    spans.sort()
    merged: list[list[int]] = []
    for a, b in spans:
        if merged and a <= merged[-1][1]:  # overlapping or adjacent: one redaction
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    out, pos = [], 0
    for a, b in merged:
        out += [text[pos:a], REDACTED]
        pos = b
    out.append(text[pos:])
    return "".join(out)


def scrub(value: Any, secret: str | None) -> Any:
    """``value`` with ``secret`` replaced in every string it holds (dict keys too), in every
    form :func:`redact_text` knows."""
    if not secret:
        return value
    if isinstance(value, str):
        return redact_text(value, (secret,))
    if isinstance(value, dict):
        return {scrub(k, secret): scrub(v, secret) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(scrub(v, secret) for v in value)
    return value
