"""The LLM agent's context policy: how many past turns a prompt may carry.

Two limits cut the history window, both dropping the oldest turns first and never the task,
the grammar, the rules or the current observation:

- ``max_prompt_tokens`` (set up front): the prompt's approximate size, characters / 4 over
  every message, must not exceed it; the largest window that fits is found by bisection (the
  size only grows with the window).
- a context-length error from the endpoint: the agent drops a quarter of the turns it showed
  (at least one) and asks again; the window that fit is kept for the rest of the episode, so
  later turns do not hit the same error. With no history left to drop, the error is the
  agent's (the observation alone does not fit), never an infra error.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

#: Approximate characters per token for the ``max_prompt_tokens`` estimate.
CHARS_PER_TOKEN = 4


def approx_tokens(messages: Sequence[dict[str, str]]) -> int:
    """A tokenizer-free size estimate of a chat prompt (characters / 4, rounded up)."""
    chars = sum(len(m.get("content") or "") for m in messages)
    return -(-chars // CHARS_PER_TOKEN)


def fit_window(shown: int, size: Callable[[int], int], limit: int | None) -> int:
    """The most recent turns (at most ``shown``) whose prompt ``size(window)`` is <= ``limit``."""
    if limit is None or size(shown) <= limit:
        return shown
    lo, hi = 0, shown  # size(hi) > limit; find the largest lo with size(lo) <= limit
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if size(mid) <= limit:
            lo = mid
        else:
            hi = mid
    return lo


def shrink(shown: int) -> int:
    """The window to try after a context-length error with ``shown`` turns in the prompt."""
    return max(0, shown - max(1, shown // 4))
