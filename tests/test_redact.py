"""Credential scrubbing: URLs as recorded, secrets inside nested values."""

from __future__ import annotations

from arena_gen.agents.llm_client import ChatClient, chat_url
from arena_gen.core.redact import public_url, scrub, url_secrets


def test_public_url_drops_userinfo_and_key_like_query_values() -> None:
    url = "https://alice:pa55word@host.example:8443/v1?api-key=abcd1234&x=1&access_token=t0k3n"
    assert public_url(url) == ("https://[REDACTED]@host.example:8443/v1?api-key=[REDACTED]&x=1"
                               "&access_token=[REDACTED]")
    assert url_secrets(url) == ["alice:pa55word", "abcd1234", "pa55word", "t0k3n"]
    assert public_url("https://ghp_token123@h/v1") == "https://[REDACTED]@h/v1"
    assert public_url("http://[::1]:8000/v1") == "http://[::1]:8000/v1"
    assert public_url("http://localhost:8000/v1") == "http://localhost:8000/v1"


def test_scrub_reaches_every_string() -> None:
    value = {"a": ["x KEY y", ("KEY",)], "KEYS": 3, "n": None}
    assert scrub(value, "KEY") == {"a": ["x [REDACTED] y", ("[REDACTED]",)], "[REDACTED]S": 3,
                                   "n": None}
    assert scrub(value, None) is value


def test_chat_url_keeps_the_query_after_the_path() -> None:
    assert chat_url("http://h/v1/") == "http://h/v1/chat/completions"
    assert chat_url("http://h/v1?api-version=2024") == "http://h/v1/chat/completions?api-version=2024"


def test_client_redacts_url_credentials_from_texts() -> None:
    client = ChatClient(base_url="http://bob:hunter22@h/v1?key=q-secret", api_key="sk-abcdef")
    assert "hunter22" not in repr(client) and "q-secret" not in repr(client)
    text = client.redact(f"{client.url} said sk-abcdef and hunter22 and q-secret")
    assert text == ("http://[REDACTED]@h/v1/chat/completions?key=[REDACTED] said [REDACTED] and "
                    "[REDACTED] and [REDACTED]")
