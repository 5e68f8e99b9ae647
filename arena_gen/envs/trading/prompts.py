"""How trading actions are written, for the LLM prompt: a grammar note and example actions."""

from __future__ import annotations

import json
from typing import Any

from arena_gen.core.registry import ActionTool, Grammar


def _examples(public: dict[str, Any]) -> list[str]:
    stocks = list(public.get("stocks") or ["S0", "S1"])
    return [json.dumps({"buy": {stocks[0]: 10}, "sell": {stocks[-1]: 5}}),
            json.dumps({"sell": {stocks[0]: 3}}), "{}"]


def _trade_parameters(public: dict[str, Any]) -> dict[str, Any]:
    stocks = ", ".join(str(s) for s in public.get("stocks") or [])
    def side(verb: str) -> dict[str, Any]:
        return {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0},
                "description": f"stock symbol ({stocks}) to the whole number of shares to {verb}"}
    return {"type": "object", "additionalProperties": False, "required": [],
            "properties": {"buy": side("buy"), "sell": side("sell")}}


def _trade_text(args: dict[str, Any]) -> str:
    return json.dumps({k: args[k] for k in ("buy", "sell") if k in args})


GRAMMAR = Grammar(
    note=("The action is one JSON object with optional \"buy\" and \"sell\" maps from "
     "stock symbol to a whole number of shares; {} holds for the day."),
    examples=_examples,
    tools=[ActionTool(name="trade", description="Place today's orders (no arguments: hold).",
                      parameters=_trade_parameters, render=_trade_text)],
)
