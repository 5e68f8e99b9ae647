"""How trading actions are written, for the LLM prompt: a grammar note and example actions."""

from __future__ import annotations

import json
from typing import Any

from arena_gen.core.registry import Grammar


def _examples(public: dict[str, Any]) -> list[str]:
    stocks = list(public.get("stocks") or ["S0", "S1"])
    return [json.dumps({"buy": {stocks[0]: 10}, "sell": {stocks[-1]: 5}}),
            json.dumps({"sell": {stocks[0]: 3}}), "{}"]


GRAMMAR = Grammar(
    note=("The action is one JSON object with optional \"buy\" and \"sell\" maps from "
     "stock symbol to a whole number of shares; {} holds for the day."),
    examples=_examples,
)
