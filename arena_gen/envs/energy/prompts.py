"""How energy actions are written, for the LLM prompt: a grammar note and example actions."""

from __future__ import annotations

from typing import Any

from arena_gen.core.registry import Grammar


def _examples(public: dict[str, Any]) -> list[str]:
    return ['{"thermal": 250, "wind": 120, "solar": 80, "battery": 0}',
            '{"thermal": 200, "wind": 150, "solar": 100, "battery": -20}']


GRAMMAR = Grammar(
    note=("The action is one JSON object with a number for each of thermal, wind and solar "
     "(rated output) and battery (positive discharges, negative charges)."),
    examples=_examples,
)
