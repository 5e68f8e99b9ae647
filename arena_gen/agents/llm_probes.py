"""The LLM agent's probe fork: its next prompt plus the questions, and its answers read strictly.

At a milestone the agent is asked world-model probes in a forked conversation: the messages its
next turn would send (its own history as its context policy cuts it, ending with the latest
observation), then one user message holding the questions. The request carries no tools and no
stop sequence (an answer is no action), and nothing of it enters the episode's dialogue.

The reply is untrusted: answers are read in linear time (``str.find`` scans, as
:mod:`.llm_parse` does) from ``<answer id="qN">...</answer>`` tags after any ``<think>`` block
is removed. A probe with no tag, or with two tags (a hedge), gets an empty reply: wrong, never
an error.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena_gen.agents.llm_parse import fold, spans, split_reasoning
from arena_gen.core.probes import Probe

ANSWER_OPEN, ANSWER_CLOSE = '<answer id="', "</answer>"

PROBE_HEAD = (
    "## Questions about the hidden rules (not a turn)\n"
    "This is a side question: no action is taken and no turn is spent. From what you have "
    "learned so far, answer each question below. Reply with exactly one "
    '<answer id="ID">...</answer> per question, holding only the answer in the form the '
    "question asks for; do not give an <action>."
)


def probe_message(probes: Sequence[Probe]) -> dict[str, str]:
    """The user message that asks ``probes`` (ids, questions and their allowed answers)."""
    parts = [PROBE_HEAD]
    for probe in probes:
        choices = f"\n(one of: {' | '.join(probe.choices)})" if probe.choices else ""
        parts.append(f'<question id="{probe.id}">{probe.question}</question>{choices}')
    return {"role": "user", "content": "\n\n".join(parts)}


def fork_payload(body: dict[str, Any], probes: Sequence[Probe]) -> dict[str, Any]:
    """The probe request from the next turn's request ``body``: same model, sampling and
    messages, the questions appended, without tools, tool choice or stop sequences."""
    out = {k: v for k, v in body.items() if k not in ("tools", "tool_choice", "stop")}
    out["messages"] = [*body["messages"], probe_message(probes)]
    return out


def parse_answers(content: str, ids: Sequence[str]) -> list[str]:
    """One answer per id, in order: the text of its only ``<answer id="...">`` tag, stripped;
    empty when the id has no tag or more than one."""
    answer, _ = split_reasoning(content)
    found: dict[str, list[str]] = {}
    for _, inner, close, _ in spans(fold(answer), fold(ANSWER_OPEN), ANSWER_CLOSE):
        cut = answer.find('">', inner, close)
        if cut < 0:
            continue
        found.setdefault(answer[inner:cut].strip(), []).append(answer[cut + 2:close].strip())
    return [texts[0] if len(texts := found.get(i, [])) == 1 else "" for i in ids]
