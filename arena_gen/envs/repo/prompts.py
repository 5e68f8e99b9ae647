"""How repo actions are written, for the LLM prompt: a grammar note and example actions."""

from __future__ import annotations

from typing import Any

from arena_gen.core.registry import ActionTool, Grammar


def _examples(public: dict[str, Any]) -> list[str]:
    packages = list(public.get("packages") or {"pkg0": ["1.0"]})
    first = packages[0]
    versions = (public.get("packages") or {}).get(first) or ["1.0"]
    pythons = list(public.get("pythons") or ["3.10"])
    return ["python run.py", f"pip install python=={pythons[-1]}",
            f"pip install {first}=={versions[-1]}", "pip list"]


def _command_parameters(public: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "additionalProperties": False, "required": ["command"],
            "properties": {"command": {"type": "string", "description": (
                "one terminal command, e.g. " + "; ".join(_examples(public)))}}}


GRAMMAR = Grammar(
    note="The action is exactly one terminal command (no shell operators, no cd).",
    examples=_examples,
    tools=[ActionTool(name="run_command", description="Run one terminal command.",
                      parameters=_command_parameters, render=lambda args: str(args["command"]))],
)
