"""Credential scrubbing: URLs as recorded, secrets inside nested values."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena_gen.agents.llm_client import ChatClient, chat_url
from arena_gen.core.redact import public_url, redact_text, scrub, url_secrets


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


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="abcXYZ019-_\u200b", min_size=8, max_size=40),
       st.lists(st.tuples(st.integers(0, 3), st.integers(0, 40), st.integers(0, 40)),
                max_size=6),
       st.text(alphabet="abcXYZ019 \u200b", max_size=60))
def test_the_trie_scan_redacts_exactly_what_a_search_per_form_does(
        secret: str, pieces: list[tuple[int, int, int]], filler: str) -> None:
    """Brute force: the one-pass trie pattern and a ``str.find`` per form agree on texts
    holding echoes of the secret (whole, upper-cased, hex, in part)."""
    from unittest import mock

    from arena_gen.core import redact

    forms = [secret, secret.upper(), secret.encode().hex(), secret]
    text = filler
    for kind, a, b in pieces:
        form = forms[kind]
        text += form[min(a, b):max(a, b)] + filler[: (a + b) % 7]
    with mock.patch.object(redact, "_FEW_FORMS", 10**9):
        redact._patterns.cache_clear()
        by_find = redact_text(text, [secret])
    with mock.patch.object(redact, "_FEW_FORMS", 0):
        redact._patterns.cache_clear()
        by_trie = redact_text(text, [secret])
    redact._patterns.cache_clear()
    assert by_trie == by_find


def test_redaction_scans_a_bounded_number_of_times_whatever_the_key_length() -> None:
    """Issue 41: a search per form cost reply size x key length on the event loop (a 20 MB
    reply and a 1 kB key: 85 s). The bound is structural: at most ``_FEW_FORMS`` literal
    searches, past that one trie pattern, for any key length (how fast that is is measured in
    benchmarks, not asserted here)."""
    import random
    import re

    from arena_gen.core import redact

    rng = random.Random(7)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    kinds = []
    for n in (8, 64, 1024, 4096):
        key = "".join(rng.choices(alphabet, k=n))
        for search in redact._patterns((key,)):
            assert search is None or isinstance(search, re.Pattern) or (
                len(search) <= redact._FEW_FORMS), (n, len(search))
            kinds.append((n, type(search).__name__))
        text = "x" * 50 + key + "y" * 50
        assert redact_text(text, [key]) == "x" * 50 + redact.REDACTED + "y" * 50
    assert (4096, "Pattern") in kinds  # a long key's many partial forms are one trie scan


def test_a_key_in_an_unnamed_query_item_or_the_path_is_not_recorded(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 41: ``?sk-...`` and ``/v1/KEY/`` reached run.json whole."""
    from arena_gen.runner.meta import public_config

    key = "sk-proj-0123456789abcdefABCDEF"
    assert public_url(f"https://h/v1?{key}") == "https://h/v1?[REDACTED]"
    assert public_url(f"https://h/v1?{key}&stream") == "https://h/v1?[REDACTED]&stream"
    assert public_url(f"https://h/{key}/v1") == "https://h/[REDACTED]/v1"
    assert public_url("https://h/keys/a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7/v1") == (
        "https://h/keys/[REDACTED]/v1")
    assert public_url("https://h/openai/deployments/gpt-4o-mini/v1?x=1") == (
        "https://h/openai/deployments/gpt-4o-mini/v1?x=1")
    assert public_url("https://h/v1/custom-0042/x", ("custom-0042",)) == "https://h/v1/[REDACTED]/x"
    assert key in url_secrets(f"https://h/v1?{key}") and key in url_secrets(f"https://h/{key}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "plain-words-key")
    config = public_config({"base_url": "https://h/plain-words-key/v1", "model": "m"})
    assert config == {"base_url": "https://h/[REDACTED]/v1", "model": "m"}
