"""The odyssey harness's prompts, pinned byte for byte: the env packages own the per-env text
and reply rules, and moving them there (or anywhere) must not change one character."""

from __future__ import annotations

import json

from harness_util import ODYSSEY_GOLDEN, odyssey_golden_prompts


def test_odyssey_prompts_are_unchanged() -> None:
    expected = json.loads(ODYSSEY_GOLDEN.read_text(encoding="utf-8"))
    got = odyssey_golden_prompts()
    assert sorted(got) == sorted(expected)
    for key, messages in expected.items():
        assert got[key] == messages, key
