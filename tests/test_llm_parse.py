"""Reply parser: same answers as the former regexes, linear time on adversarial replies, caps."""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena_gen.agents.llm_parse import cap, cap_action, extract_action, split_reasoning

# -- the former regex implementation: the oracle the scanners must agree with -------------------
_THINK = re.compile(r"<think>(.*?)</think>", re.DOTALL | re.IGNORECASE)
_ACTION = re.compile(r"<action>(.*?)</action>", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"^```[a-zA-Z]*\s*(.*?)\s*```$", re.DOTALL)


def old_split(content: str) -> tuple[str, str | None]:
    thoughts = [m.strip() for m in _THINK.findall(content)]
    answer = _THINK.sub("", content)
    lower = answer.lower()
    if "</think>" in lower:
        cut = lower.rfind("</think>")
        thoughts.append(answer[:cut].strip())
        answer = answer[cut + len("</think>"):]
    elif "<think>" in lower:
        cut = lower.find("<think>")
        thoughts.append(answer[cut + len("<think>"):].strip())
        answer = answer[:cut]
    reasoning = "\n\n".join(t for t in thoughts if t)
    return answer, reasoning or None


def old_extract(answer: str) -> str | None:
    found = _ACTION.findall(answer)
    if not found:
        return None
    text = found[-1].strip()
    fenced = _FENCE.match(text)
    return fenced.group(1).strip() if fenced else text


# Fragments that make tags, near-tags, fences and whitespace likely; "\u212a" is the Kelvin sign
# (re.IGNORECASE matches it with "k"), "\ud800" a lone surrogate.
FRAGMENTS = ["<think>", "</think>", "<THINK>", "</Think>", "<thin\u212a>", "<action>",
             "</action>", "<ACTION>", "</Action>", "<act", "ion>", "</", "<", ">", "```",
             "```json", "json", " ", "\n", "\t", "\u00a0", "0", "7", "x", "{}", "é", "\ud800"]
replies = st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=4), max_size=40).map("".join)
FUZZ = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(replies)
def test_scanners_agree_with_the_former_regexes(reply: str) -> None:
    answer, reasoning = split_reasoning(reply)
    # str.lower() lengthens a few characters (e.g. U+0130), which broke the former indexing.
    if len(reply.lower()) == len(reply) and not set(reply) & {"\u0131", "\u017f"}:
        assert (answer, reasoning) == old_split(reply)
    assert extract_action(answer) == old_extract(answer)


@FUZZ
@given(replies, st.integers(1, 64))
def test_cap_keeps_head_and_tail_and_counts_the_rest(reply: str, limit: int) -> None:
    kept, dropped = cap(reply, limit)
    assert dropped == max(0, len(reply) - limit)
    if not dropped:
        assert kept == reply
    else:
        assert kept.startswith(reply[:limit - limit // 2])
        assert kept.endswith(reply[len(reply) - limit // 2:])
        assert f"{dropped} characters truncated" in kept
    action, cut = cap_action(reply, limit)
    assert action == reply[:limit] and cut == max(0, len(reply) - limit)


ADVERSARIAL = {
    "action opens, never closed": "<action>" * 131_072,
    "think opens, never closed": "<think>" * 149_797,
    "alternating opens": "<think><action>" * 69_906,
    "fence padded with whitespace": "<action>```" + " \n" * 524_288 + "x</action>",
    "closes only": "</action></think>" * 61_680,
}


@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_one_megabyte_adversarial_reply_parses_fast(name: str) -> None:
    reply = ADVERSARIAL[name]
    assert len(reply) >= 1_000_000
    start = time.process_time()  # CPU time: other work on the machine must not fail it
    answer, _ = split_reasoning(reply)
    extract_action(answer)
    assert time.process_time() - start < 0.5, name


def test_adversarial_answers() -> None:
    assert extract_action("<action>" * 1000 + "<action>3</action>") == "<action>" * 1000 + "3"
    assert split_reasoning("<think>" * 1000) == ("", "<think>" * 999)
    fenced = "```" + " \n" * 1000 + "x"
    assert extract_action(f"<action>{fenced}</action>") == fenced
    assert extract_action(f"<action>{fenced}```</action>") == "x"


def test_reply_action_caps_what_is_played_and_stored() -> None:
    """Issue 41: the verifiers env stored 20 MB actions whole (1.3 GB after 50 replies); it
    plays and keeps what the LLM agent would: the last tag outside the reasoning, capped."""
    from arena_gen.agents.llm import MAX_ACTION_CHARS
    from arena_gen.agents.llm_parse import reply_action

    huge = "x" * (20 * 1024 * 1024)
    played = reply_action(f"<think><action>no</action></think><action>{huge}</action>",
                          MAX_ACTION_CHARS)
    assert played == "x" * MAX_ACTION_CHARS
    assert reply_action("no tag at all", MAX_ACTION_CHARS) == ""
    assert reply_action("<action>toggle 3</action>", MAX_ACTION_CHARS) == "toggle 3"
