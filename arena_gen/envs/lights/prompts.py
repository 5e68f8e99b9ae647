"""How lights actions are written, for the LLM prompt: a grammar note and example actions."""

from __future__ import annotations

from typing import Any

from arena_gen.core.registry import ActionTool, Grammar


def _examples(public: dict[str, Any]) -> list[str]:
    n = int(public.get("n", 4))
    return [str(min(3, n - 1)), "0"]


def _toggle_parameters(public: dict[str, Any]) -> dict[str, Any]:
    n = int(public.get("n", 4))
    return {"type": "object", "additionalProperties": False, "required": ["bulb"],
            "properties": {"bulb": {"type": "integer", "minimum": 0, "maximum": n - 1,
                                    "description": f"the bulb index, 0 to {n - 1}"}}}


GRAMMAR = Grammar(
    note="The action is one bulb index (an integer), nothing else.",
    examples=_examples,
    tools=[ActionTool(name="toggle", description="Try to toggle one bulb.",
                      parameters=_toggle_parameters, render=lambda args: str(args["bulb"]))],
)
