"""The per-episode cache of past turns' messages (#40, runner CPU per turn): prompts built
with it are exactly those built without it, whatever the windows and episodes in between."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from arena_gen.agents.llm_prompts import Turn, build_messages
from arena_gen.core.suite_io import read_suite

TASK = read_suite("lite").tasks["trading"][0]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["obs A", "obs B", "a longer observation"]),
                          st.one_of(st.none(), st.sampled_from(["1", "{}", "x"])),
                          st.one_of(st.none(), st.integers(0, 6))), min_size=1, max_size=14),
       st.integers(0, 3))
def test_cached_prompts_equal_uncached(steps: list[tuple[str, Any, Any]], restart: int) -> None:
    cache: dict[int, Any] = {}
    turns: list[Turn] = []
    for n, (obs, action, window) in enumerate(steps):
        if restart and n == restart:  # a new episode on the same cache
            turns = []
        observation = f"{obs} {n}"
        args = {"env": TASK.env, "public": TASK.public, "rules_text": None, "history": turns,
                "observation": observation, "window": window, "budget": TASK.budget,
                "version": TASK.env_version}
        assert build_messages(**args, cache=cache) == build_messages(**args)
        assert build_messages(**args, cache=cache) == build_messages(**args)  # a retry
        turns.append(Turn(observation, action))
