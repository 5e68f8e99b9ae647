"""Tokens split into prompt and completion, and what they cost at the user's prices.

Prices are USD per 1M tokens (``arena-gen score --price-in X --price-out Y``); they are kept in
``summary.json`` under ``prices`` so the HTML report prices the same tokens the same way.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from arena_gen.core.errors import ArenaGenError
from arena_gen.core.usage import clean_usage


def token_counts(turns: Iterable[dict[str, Any]]) -> dict[str, int]:
    """Prompt and completion tokens over turns (a turn without usage counts 0), for the cost."""
    prompt = completion = 0
    for turn in turns:
        usage = turn.get("tokens")
        clean, _ = clean_usage(usage if isinstance(usage, dict) else None)  # no negative cost
        prompt += (clean or {}).get("prompt_tokens", 0)
        completion += (clean or {}).get("completion_tokens", 0)
    return {"prompt_tokens": prompt, "completion_tokens": completion}


def prices_of(price_in: float | None, price_out: float | None) -> dict[str, float] | None:
    """The ``prices`` record of two options given together (neither: no cost is shown)."""
    if price_in is None and price_out is None:
        return None
    if price_in is None or price_out is None:
        raise ArenaGenError("--price-in and --price-out go together (USD per 1M prompt and "
                            "completion tokens; give 0 for a free side)")
    return {"input_usd_per_1m": float(price_in), "output_usd_per_1m": float(price_out)}


def cost_usd(metrics: dict[str, Any], prices: dict[str, Any] | None) -> float | None:
    """A group's cost in USD at ``prices``; None without prices or a prompt/completion split."""
    if not prices or "prompt_tokens" not in metrics or "completion_tokens" not in metrics:
        return None
    return (metrics["prompt_tokens"] * float(prices["input_usd_per_1m"])
            + metrics["completion_tokens"] * float(prices["output_usd_per_1m"])) / 1e6
