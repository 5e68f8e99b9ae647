"""How lights actions are written, for the LLM prompt: a grammar note and example actions."""

from __future__ import annotations

from typing import Any

from arena_gen.core.registry import Grammar


def _examples(public: dict[str, Any]) -> list[str]:
    n = int(public.get("n", 4))
    return [str(min(3, n - 1)), "0"]


GRAMMAR = Grammar(
    note="The action is one bulb index (an integer), nothing else.",
    examples=_examples,
)
