"""Token usage as recorded: only counts an endpoint could have meant, so costs stay sane.

An endpoint reports usage; nothing replays it, so a hostile or broken one can claim anything:
``1e400`` (infinite once parsed), ``-5``, ``0.5`` or ``10**30`` tokens. :func:`clean_usage`
keeps a count only when it is a whole number in ``0..MAX_TURN_TOKENS`` and drops the others
with a note (recorded with the turn), so no figure (tokens, cost, token efficiency) is ever
negative, infinite or absurd, and a bad usage never ends an episode.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

#: The usage counts arena-gen records (``reasoning_tokens``: of the completion;
#: ``cached_tokens``: of the prompt, served from the server's cache).
USAGE_KEYS = ("prompt_tokens", "completion_tokens", "total_tokens", "reasoning_tokens",
              "cached_tokens")
#: Most tokens one turn may report: ten times the largest context windows of 2025 models.
MAX_TURN_TOKENS = 100_000_000


def _count(value: Any) -> int | None:
    """``value`` as a token count, or None when it is not one (bool, NaN, inf, fraction,
    negative, absurd, not a number)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and (not math.isfinite(value) or not value.is_integer()):
        return None
    count = int(value)
    return count if 0 <= count <= MAX_TURN_TOKENS else None


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def clean_usage(usage: Mapping[str, Any] | None) -> tuple[dict[str, int] | None, list[str]]:
    """The valid counts of a reported usage and one note per value dropped; a total below
    prompt + completion is replaced by their sum (with a note), a missing one is their sum."""
    if not usage:
        return None, []
    out: dict[str, int] = {}
    notes: list[str] = []
    for key in USAGE_KEYS:
        if key not in usage:
            continue
        count = _count(usage[key])
        if count is None:
            notes.append(f"usage.{key} {_shown(usage[key])} dropped: not a token count "
                         f"(a whole number from 0 to {MAX_TURN_TOKENS})")
        else:
            out[key] = count
    parts = out.get("prompt_tokens", 0) + out.get("completion_tokens", 0)
    if "total_tokens" in out and out["total_tokens"] < parts:
        notes.append(f"usage.total_tokens {out['total_tokens']} is below prompt + completion "
                     f"({parts}): replaced by their sum")
        out["total_tokens"] = parts
    elif "total_tokens" not in out and ("prompt_tokens" in out or "completion_tokens" in out):
        out["total_tokens"] = parts
    return out or None, notes


def turn_tokens(usage: Mapping[str, Any] | None) -> int:
    """Tokens one turn used (its clean total, else 0): what a score sums."""
    clean, _ = clean_usage(usage if isinstance(usage, Mapping) else None)
    return (clean or {}).get("total_tokens", 0)
