"""How repo actions are written, for the LLM prompt: a grammar note and example actions."""

from __future__ import annotations

from typing import Any

from arena_gen.core.registry import Grammar


def _examples(public: dict[str, Any]) -> list[str]:
    packages = list(public.get("packages") or {"pkg0": ["1.0"]})
    first = packages[0]
    versions = (public.get("packages") or {}).get(first) or ["1.0"]
    pythons = list(public.get("pythons") or ["3.10"])
    return ["python run.py", f"pip install python=={pythons[-1]}",
            f"pip install {first}=={versions[-1]}", "pip list"]


GRAMMAR = Grammar(
    note="The action is exactly one terminal command (no shell operators, no cd).",
    examples=_examples,
)
