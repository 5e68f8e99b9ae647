"""How energy actions are written, for the LLM prompt: a grammar note and example actions."""

from __future__ import annotations

import json
from typing import Any

from arena_gen.core.registry import ActionTool, Grammar

#: The action's fields, in the order the action text writes them.
SOURCES = ("thermal", "wind", "solar", "battery")


def _examples(public: dict[str, Any]) -> list[str]:
    return ['{"thermal": 250, "wind": 120, "solar": 80, "battery": 0}',
            '{"thermal": 200, "wind": 150, "solar": 100, "battery": -20}']


def _dispatch_parameters(public: dict[str, Any]) -> dict[str, Any]:
    what = {"thermal": "thermal output", "wind": "wind output", "solar": "solar output",
            "battery": "battery power: positive discharges, negative charges"}
    return {"type": "object", "additionalProperties": False, "required": list(SOURCES),
            "properties": {k: {"type": "number", "description": what[k]} for k in SOURCES}}


def _dispatch_text(args: dict[str, Any]) -> str:
    return json.dumps({k: args[k] for k in SOURCES})


GRAMMAR = Grammar(
    note=("The action is one JSON object with a number for each of thermal, wind and solar "
     "(rated output) and battery (positive discharges, negative charges)."),
    examples=_examples,
    tools=[ActionTool(name="dispatch", description="Set today's dispatch of every source.",
                      parameters=_dispatch_parameters, render=_dispatch_text)],
)
