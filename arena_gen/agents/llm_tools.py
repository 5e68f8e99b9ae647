"""Tool calls as the LLM agent's action format (``--action-format tools``).

The env's actions are offered as OpenAI tool (function) schemas generated from its one action
grammar, the ``GRAMMAR`` of its ``prompts.py`` (:class:`~arena_gen.core.registry.Grammar`): each
:class:`~arena_gen.core.registry.ActionTool` gives a name, a description, the JSON schema of its
arguments and how a call's arguments are written as the action text the game reads; an env
whose grammar declares no tools gets one generic ``act`` tool taking that text. Nothing here
names an env.

A reply's first tool call is played (the rest are recorded as ignored). A reply without a
call, or whose call names an unknown tool, carries arguments that are not a JSON object, or
misses a required field or gives one of the wrong type, is a malformed action exactly as a reply
without an ``<action>`` tag is in the text format: the empty action is played (the env's
invalid-action feedback, one turn spent) and the reason is recorded as ``tool_error``. What the
game played is the turn's ``action`` text, so replay and scoring read a tools run as a text run.

The prompt is the text format's prompt with the tag instructions replaced by tool instructions;
past actions are shown as the action text they were played as.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from arena_gen.agents.harness import ArenaGenHarness
from arena_gen.agents.llm_prompts import CLOSE, NO_ACTION, SYSTEM, Turn, grammar_text
from arena_gen.core import registry
from arena_gen.core.agent import InfraError, TaskView
from arena_gen.core.errors import RegistryError
from arena_gen.core.registry import ActionTool

#: The action formats of the LLM agent: ``<action>`` tags in the reply text, or tool calls.
ACTION_FORMATS = ("text", "tools")
DEFAULT_ACTION_FORMAT = "text"

TOOLS_SYSTEM = (
    "You are an agent acting in a text environment whose rules are partly hidden. Learn them "
    "from the feedback you get and reach the goal within the turn budget. Each turn, think as "
    "briefly as you can, then call exactly one of the provided tools with your action; only "
    "the first tool call of your reply is executed. A reply without a valid tool call wastes "
    "the turn."
)
TOOLS_NO_ACTION = "(none: your reply had no valid tool call)"
#: The closing line of a text-format prompt and its tools-format replacement.
TEXT_INSTRUCTION = CLOSE
#: How a past turn's played action reads in a tools prompt (the text prompt's assistant
#: message ``<action>X</action>``, which would teach the model to answer in tags).
TOOLS_PLAYED = "(tool call played as: {action})"
TOOLS_INSTRUCTION = "Think briefly, then call exactly one tool."
#: Ignored parallel calls recorded per turn (a reply may carry any number).
MAX_IGNORED_RECORDED = 16


#: ``tool_choice`` values a run may send with its tools (absent: the provider's default, auto).
#: ``required`` makes the model call a tool every turn, which every turn of an episode needs.
TOOL_CHOICES = ("auto", "required")


def check_tool_choice(tool_choice: str | None, action_format: str) -> str | None:
    """``tool_choice`` if None or one of :data:`TOOL_CHOICES` with tools, else a ValueError."""
    if tool_choice is None:
        return None
    if tool_choice not in TOOL_CHOICES:
        raise ValueError(f"tool choice must be one of {', '.join(TOOL_CHOICES)}, "
                         f"got {tool_choice!r}")
    if action_format != "tools":
        raise ValueError("a tool choice applies to the tools action format only "
                         "(--action-format tools)")
    return tool_choice


def check_action_format(action_format: str) -> str:
    """``action_format`` if it is one of :data:`ACTION_FORMATS`, else a ValueError naming them."""
    if action_format not in ACTION_FORMATS:
        raise ValueError(f"action format must be one of {', '.join(ACTION_FORMATS)}, "
                         f"got {action_format!r}")
    return action_format


def _generic_tool(public: dict[str, Any]) -> ActionTool:
    """The one tool of an env whose grammar declares none: the action text as an argument."""
    hint = str(public.get("action_format") or "the action text")

    def parameters(_: dict[str, Any]) -> dict[str, Any]:
        return {"type": "object", "additionalProperties": False, "required": ["action"],
                "properties": {"action": {"type": "string", "description": hint}}}

    return ActionTool(name="act", description="Play one action.", parameters=parameters,
                      render=lambda args: str(args["action"]))


def action_tools(env: str, public: dict[str, Any]) -> list[ActionTool]:
    """The env's actions as tools, from its grammar (the generic ``act`` tool without one)."""
    try:
        grammar = registry.newest_with(env, "grammar").load("grammar")
    except RegistryError:
        grammar = None
    tools = list(grammar.tools or []) if grammar is not None else []
    return tools or [_generic_tool(public)]


def tool_schemas(env: str, public: dict[str, Any]) -> list[dict[str, Any]]:
    """The ``tools`` field of a chat request: one OpenAI function schema per action tool."""
    return [{"type": "function",
             "function": {"name": t.name, "description": t.description,
                          "parameters": t.parameters(public)}}
            for t in action_tools(env, public)]


def tools_grammar_text(env: str, public: dict[str, Any]) -> str:
    """The prompt's action section in the tools format: the format, the note, the tool names."""
    lines = []
    if public.get("action_format"):
        lines.append(f"Action format: {public['action_format']}.")
    try:
        grammar = registry.newest_with(env, "grammar").load("grammar")
    except RegistryError:
        grammar = None
    if grammar is not None and grammar.note:
        lines.append(grammar.note)
    names = ", ".join(t.name for t in action_tools(env, public))
    lines.append(f"Play it by calling one tool ({names}); its arguments are the action.")
    return "\n".join(lines)


def tools_messages(messages: list[dict[str, str]], env: str,
                   public: dict[str, Any]) -> list[dict[str, str]]:
    """A text-format prompt rewritten for tool calls (system prompt, action section, the
    closing instruction and the no-action marker of past turns); nothing else changes."""
    text_actions = f"## Actions\n{grammar_text(env, public)}"
    tool_actions = f"## Actions\n{tools_grammar_text(env, public)}"
    out = []
    for m in messages:
        content = m.get("content") or ""
        if m.get("role") == "system":
            content = content.replace(SYSTEM, TOOLS_SYSTEM)
        elif m.get("role") == "assistant" and content.startswith("<action>") and content.endswith(
                "</action>"):
            played = content[len("<action>"):-len("</action>")]
            content = TOOLS_PLAYED.format(action=played) if played else TOOLS_NO_ACTION
        else:
            content = (content.replace(text_actions, tool_actions, 1)
                       .replace(TEXT_INSTRUCTION, TOOLS_INSTRUCTION)
                       .replace(NO_ACTION, TOOLS_NO_ACTION))
        out.append({**m, "content": content})
    return out


def _kind(value: Any) -> str:
    """The JSON type of a decoded value, as a schema names it."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "null"


def schema_error(schema: dict[str, Any], value: Any, path: str = "arguments") -> str | None:
    """Why ``value`` does not fit ``schema`` (types, required and unknown fields; bounds and
    enums are the game's to judge, as they are for text), or None when it fits."""
    want = schema.get("type")
    kind = _kind(value)
    if isinstance(want, str):
        fits = kind == want or (want == "number" and kind == "integer") or (
            want == "integer" and kind == "number" and float(value).is_integer())
        if not fits:
            return f"{path} must be {want}, got {kind}"
        if kind == "number" and not math.isfinite(value):
            return f"{path} must be a finite number"
    if kind != "object":
        return None
    properties = schema.get("properties") or {}
    for name in schema.get("required") or []:
        if name not in value:
            return f"{path} misses the required field {name!r}"
    extra = schema.get("additionalProperties", True)
    for name, item in value.items():
        if name in properties:
            why = schema_error(properties[name], item, f"{path}.{name}")
        elif extra is False:
            why = f"{path} has an unknown field {str(name)[:40]!r}"
        elif isinstance(extra, dict):
            why = schema_error(extra, item, f"{path}.{str(name)[:40]}")
        else:
            why = None
        if why:
            return why
    return None


def _integral(value: Any, schema: dict[str, Any]) -> Any:
    """Whole floats where the schema says integer (``3.0`` is written ``3``), recursively."""
    if isinstance(value, dict):
        properties = schema.get("properties") or {}
        extra = schema.get("additionalProperties")
        return {k: _integral(v, properties.get(k) or (extra if isinstance(extra, dict) else {}))
                for k, v in value.items()}
    if schema.get("type") == "integer" and isinstance(value, float):
        return int(value)
    return value


def call_action(env: str, public: dict[str, Any], name: str,
                arguments: str | dict[str, Any] | None) -> tuple[str | None, str | None]:
    """The action text one tool call plays, or None and why the call is malformed."""
    tools = {t.name: t for t in action_tools(env, public)}
    tool = tools.get(name)
    if tool is None:
        return None, f"unknown tool {str(name)[:60]!r} (tools: {', '.join(tools)})"
    if isinstance(arguments, str):
        try:
            args = json.loads(arguments) if arguments.strip() else {}
        except (json.JSONDecodeError, RecursionError) as exc:
            return None, f"the arguments are not JSON ({getattr(exc, 'msg', 'too deep')})"
    else:
        args = {} if arguments is None else arguments
    if not isinstance(args, dict):
        return None, f"the arguments are a JSON {_kind(args)}, not an object"
    schema = tool.parameters(public)
    why = schema_error(schema, args)
    if why:
        return None, why
    try:
        return tool.render(_integral(args, schema)), None
    except (KeyError, TypeError, ValueError) as exc:
        return None, f"the arguments do not make an action ({type(exc).__name__}: {exc})"


def _shown(call: dict[str, Any], limit: int) -> dict[str, Any]:
    """A call as a turn records it: its name and its arguments' text, capped."""
    arguments = call.get("arguments")
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"name": str(call.get("name"))[:200], "arguments": text[:limit]}


def read_calls(env: str, public: dict[str, Any], calls: Sequence[dict[str, Any]],
               limit: int = 4096) -> tuple[str | None, dict[str, Any]]:
    """The action of a reply's tool calls (the first one; None when malformed) and what the
    turn records: ``tool_call``, ``tool_calls_ignored`` and ``tool_error``."""
    record: dict[str, Any] = {}
    if not calls:
        record["tool_error"] = "the reply made no tool call"
        return None, record
    first = calls[0]
    record["tool_call"] = _shown(first, limit)
    if len(calls) > 1:
        record["tool_calls_ignored"] = [_shown(c, limit)
                                        for c in calls[1:1 + MAX_IGNORED_RECORDED]]
        if len(calls) - 1 > MAX_IGNORED_RECORDED:
            record["tool_calls_ignored_count"] = len(calls) - 1
    action, why = call_action(env, public, str(first.get("name")), first.get("arguments"))
    if why is not None:
        record["tool_error"] = why
    return action, record


def rejected_tools(exc: InfraError) -> InfraError:
    """An endpoint's error as a tools run shows it: one that names tools says what to do."""
    text = str(exc)
    if "tool" not in text.lower():
        return exc
    return InfraError(f"{text} -- the endpoint seems not to accept tool calls (the request's "
                      f"`tools`); run with --action-format text (the default) instead")


class ToolsHarness(ArenaGenHarness):
    """arena-gen's protocol with tool calls in place of ``<action>`` tags."""

    def messages(self, view: TaskView, rules_text: str | None, turns: Sequence[Turn],
                 observation: str, window: int | None) -> list[dict[str, str]]:
        """The text-format messages rewritten for tools (see :func:`tools_messages`)."""
        return tools_messages(super().messages(view, rules_text, turns, observation, window),
                              view.env, view.public)


__all__ = ["ACTION_FORMATS", "DEFAULT_ACTION_FORMAT", "TOOLS_NO_ACTION", "TOOLS_SYSTEM",
           "TOOL_CHOICES", "ToolsHarness", "action_tools", "call_action", "check_action_format",
           "check_tool_choice",
           "read_calls", "rejected_tools", "schema_error", "tool_schemas", "tools_grammar_text",
           "tools_messages"]
