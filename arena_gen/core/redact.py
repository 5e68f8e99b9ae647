"""Credential scrubbing for what a run records: endpoint URLs and arbitrary nested values.

A ``--base-url`` may carry credentials (``https://user:pass@host/v1``, ``?api_key=...``);
run.json and every error message show the URL, so they get :func:`public_url` instead: userinfo
removed and key-like query values replaced. :func:`scrub` replaces a secret inside every string
of a nested value (keys included), so no recorded field can leak it.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

REDACTED = "[REDACTED]"
#: Query parameter names (lower case, ``-`` as ``_``) whose values are credentials.
SECRET_PARAMS = frozenset({"key", "api_key", "apikey", "access_key", "token", "access_token",
                           "auth", "auth_token", "password", "passwd", "pass", "secret",
                           "client_secret", "sig", "signature", "code", "session"})


def _secret_param(name: str) -> bool:
    norm = name.lower().replace("-", "_")
    return norm in SECRET_PARAMS or norm.endswith(("_key", "_token", "_secret", "_password"))


def public_url(url: str) -> str:
    """``url`` without userinfo and with credential query values redacted (shown and stored)."""
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
        pairs = parse_qsl(query, keep_blank_values=True)
        query = urlencode([(k, REDACTED if _secret_param(k) else v) for k, v in pairs],
                          safe="[]")
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment and REDACTED))


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
    except ValueError:
        return []
    return sorted({s for s in found if len(s) >= 4}, key=lambda s: (-len(s), s))


def scrub(value: Any, secret: str | None) -> Any:
    """``value`` with ``secret`` replaced in every string it holds (dict keys too)."""
    if not secret:
        return value
    if isinstance(value, str):
        return value.replace(secret, REDACTED)
    if isinstance(value, dict):
        return {scrub(k, secret): scrub(v, secret) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(scrub(v, secret) for v in value)
    return value
