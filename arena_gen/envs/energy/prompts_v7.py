"""How energy v7 actions are written, for the LLM prompt: every site named in the action."""

from __future__ import annotations

import json
from typing import Any

from arena_gen.core.registry import ActionTool, Grammar


def _keys(public: dict[str, Any]) -> list[str]:
    return ["thermal", *public.get("sites", []), "battery"]


def _examples(public: dict[str, Any]) -> list[str]:
    sites = list(public.get("sites", []))
    return [json.dumps({"thermal": 250, **dict.fromkeys(sites, 40), "battery": 0}),
            json.dumps({"thermal": 200, **dict.fromkeys(sites, 50), "battery": -20})]


def _dispatch_parameters(public: dict[str, Any]) -> dict[str, Any]:
    keys = _keys(public)
    what = {k: f"rated output of {k}" for k in keys}
    what["battery"] = "battery power: positive discharges, negative charges"
    return {"type": "object", "additionalProperties": False, "required": keys,
            "properties": {k: {"type": "number", "description": what[k]} for k in keys}}


def _dispatch_text(args: dict[str, Any]) -> str:
    return json.dumps(args)


GRAMMAR = Grammar(
    note=("The action is one JSON object with a number for thermal, for every renewable site "
          "by its name (wind1, solar2, ...: the sites the task lists) and for battery "
          "(positive discharges, negative charges)."),
    examples=_examples,
    tools=[ActionTool(name="dispatch", description="Set today's dispatch of every source.",
                      parameters=_dispatch_parameters, render=_dispatch_text)],
)
