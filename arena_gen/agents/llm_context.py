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

:class:`ContextWindow` applies both per episode. For a prefix-stable harness (arena-gen's own,
whose prompt only appends) it keeps the first turn shown fixed, so each prompt extends the last
one and a server's prefix cache reuses it; when the window must be cut it is cut a quarter
further than needed (a *truncation turn*, the only kind that rewrites the prompt), so the next
turns append again. ``--history K`` slides by one turn per turn, as asked. For the others (the
odyssey harness rebuilds its prompt each turn) it shows the most recent turns that fit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

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


@dataclass
class ContextWindow:
    """One episode's history window under the context policy (see the module docstring)."""

    #: keep the first turn shown fixed between truncations (the prompt only appends)
    stable: bool = True
    #: the most turns a prompt may carry after a context-length error (None: no error yet)
    cap: int | None = None
    #: index of the first turn shown (stable windows only)
    start: int = 0

    def reset(self) -> None:
        """A new episode: no error seen, every turn shown."""
        self.cap, self.start = None, 0

    def shown(self, done: int, window: int | None, size: Callable[[int], int],
              limit: int | None) -> int:
        """Past turns the next prompt carries (of ``done``; ``window``: the harness's or
        ``--history``'s; ``size(w)``: the prompt's tokens with ``w`` turns)."""
        if not self.stable:
            shown = done if window is None else min(done, window)
            if self.cap is not None:
                shown = min(shown, self.cap)
            return fit_window(shown, size, limit)
        start = self.start if window is None else max(self.start, done - window)
        shown = done - start
        over_cap = self.cap is not None and shown > self.cap
        if over_cap or (limit is not None and size(shown) > limit):
            fits = fit_window(shown if self.cap is None else min(shown, self.cap), size, limit)
            shown = shrink(fits)
        self.start = done - shown
        return shown

    def failed(self, done: int, shown: int) -> int:
        """The window to retry with after a context-length error with ``shown`` turns (the
        caller handles ``shown == 0``: nothing left to drop)."""
        retry = shrink(shown)
        if self.stable:
            self.cap = shown - 1 if self.cap is None else min(self.cap, shown - 1)
            self.start = done - retry
        else:
            self.cap = retry
        return retry
