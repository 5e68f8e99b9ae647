"""Reply parsing for the LLM agent in linear time: ``<think>`` split, last ``<action>``, caps.

A reply is untrusted text of any size, parsed on the event loop every episode shares, so nothing
here may backtrack: every function is a left-to-right ``str.find`` scan, O(length of the reply).
The semantics are those of the former regexes (``<think>(.*?)</think>`` and
``<action>(.*?)</action>``, DOTALL and IGNORECASE, leftmost non-overlapping matches, and a
fence ``^```[a-zA-Z]*\\s*(.*?)\\s*```$``): tags match case-insensitively under the same
Unicode folds ``re.IGNORECASE`` applies to their letters (e.g. the Kelvin sign is a ``k``), and
the fold never changes the text's length, so indices found in the folded text cut the original.
"""

from __future__ import annotations

import string

_FOLDS = {ord(c): c.lower() for c in string.ascii_uppercase}
#: Non-ASCII letters ``re.IGNORECASE`` equates with a tag letter (dotted/dotless i, long s, Kelvin).
_FOLDS.update({0x130: "i", 0x131: "i", 0x17F: "s", 0x212A: "k"})

THINK_OPEN, THINK_CLOSE = "<think>", "</think>"
ACTION_OPEN, ACTION_CLOSE = "<action>", "</action>"
FENCE = "```"
TRUNCATED = "\n[... {dropped} characters truncated ...]\n"


def fold(text: str) -> str:
    """Case-fold only what tag matching needs, keeping every index of ``text`` valid."""
    return text.translate(_FOLDS)


def spans(folded: str, opening: str, closing: str) -> list[tuple[int, int, int, int]]:
    """Leftmost non-overlapping ``opening...closing`` pairs: (open, inner start, inner end, end)."""
    out: list[tuple[int, int, int, int]] = []
    pos = 0
    while True:
        start = folded.find(opening, pos)
        if start < 0:
            return out
        inner = start + len(opening)
        close = folded.find(closing, inner)
        if close < 0:  # no later opening can close either
            return out
        pos = close + len(closing)
        out.append((start, inner, close, pos))


def split_reasoning(content: str) -> tuple[str, str | None]:
    """Separate ``<think>`` reasoning from the answer (also an unclosed or unopened block)."""
    folded = fold(content)
    thoughts, pieces, pos = [], [], 0
    for start, inner, close, end in spans(folded, THINK_OPEN, THINK_CLOSE):
        thoughts.append(content[inner:close].strip())
        pieces.append(content[pos:start])
        pos = end
    pieces.append(content[pos:])
    answer = "".join(pieces)
    lower = fold(answer)
    cut = lower.rfind(THINK_CLOSE)
    if cut >= 0:  # the server stripped the opening tag
        thoughts.append(answer[:cut].strip())
        answer = answer[cut + len(THINK_CLOSE):]
    else:
        cut = lower.find(THINK_OPEN)
        if cut >= 0:  # truncated mid-thought: nothing after it is an answer
            thoughts.append(answer[cut + len(THINK_OPEN):].strip())
            answer = answer[:cut]
    reasoning = "\n\n".join(t for t in thoughts if t)
    return answer, reasoning or None


def unfence(text: str) -> str:
    """A stripped action without its surrounding code fence (and the fence's language tag)."""
    if len(text) < 2 * len(FENCE) or not (text.startswith(FENCE) and text.endswith(FENCE)):
        return text
    return text[len(FENCE):-len(FENCE)].lstrip(string.ascii_letters).strip()


def extract_action(answer: str) -> str | None:
    """The text of the last ``<action>...</action>`` (code fences removed), or None."""
    found = spans(fold(answer), ACTION_OPEN, ACTION_CLOSE)
    if not found:
        return None
    _, inner, close, _ = found[-1]
    return unfence(answer[inner:close].strip())


def cap(text: str, limit: int) -> tuple[str, int]:
    """``text`` cut to about ``limit`` characters (head and tail kept) and the count dropped."""
    if len(text) <= limit:
        return text, 0
    dropped = len(text) - limit
    head = limit - limit // 2
    return text[:head] + TRUNCATED.format(dropped=dropped) + text[len(text) - limit // 2:], dropped


def cap_action(action: str, limit: int) -> tuple[str, int]:
    """An action cut to its first ``limit`` characters (what is played and replayed)."""
    if len(action) <= limit:
        return action, 0
    return action[:limit], len(action) - limit


def reply_action(reply: str, limit: int) -> str:
    """The action a raw reply plays: its last ``<action>`` tag outside the reasoning, cut to
    ``limit`` characters as the LLM agent cuts it (no tag: the empty action, a wasted turn),
    so a 20 MB reply neither reaches the env whole nor is stored whole."""
    answer, _ = split_reasoning(reply)
    return cap_action(extract_action(answer) or "", limit)[0]
