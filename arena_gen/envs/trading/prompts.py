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


def _examples_v5(public: dict[str, Any]) -> list[str]:
    stocks = list(public.get("stocks") or ["S0", "S1"])
    return [json.dumps({"buy": {stocks[0]: 10}, "sell": {stocks[-1]: 5}, "expect": stocks[0]}),
            json.dumps({"sell": {stocks[0]: 3}, "expect": "cash"}), "{}"]


def _trade_parameters_v5(public: dict[str, Any]) -> dict[str, Any]:
    schema = _trade_parameters(public)
    places = ["cash", *(str(s) for s in public.get("stocks") or [])]
    schema["properties"]["expect"] = {
        "type": "string", "enum": places,
        "description": "the place you expect to gain most by tomorrow (graded; trades nothing)"}
    return schema


def _trade_text_v5(args: dict[str, Any]) -> str:
    return json.dumps({k: args[k] for k in ("buy", "sell", "expect") if k in args})


#: Trading v5: v1's orders plus ``"expect"``, the place named as tomorrow's best.
GRAMMAR_V5 = Grammar(
    note=("The action is one JSON object with optional \"buy\" and \"sell\" maps from "
          "stock symbol to a whole number of shares, and an optional \"expect\": \"cash\" or "
          "the stock you expect to gain most by tomorrow (graded every day; it trades "
          "nothing); {} holds for the day."),
    examples=_examples_v5,
    tools=[ActionTool(name="trade", description="Place today's orders and name tomorrow's best "
                                                "place (no arguments: hold).",
                      parameters=_trade_parameters_v5, render=_trade_text_v5)],
)
