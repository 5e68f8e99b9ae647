"""Tool calls as the LLM agent's action format (``--action-format tools``).

The env's actions are offered as OpenAI tool (function) schemas generated from the action
grammar of the task's own env version (its spec's ``grammar``, e.g. the ``GRAMMAR`` of its
``prompts.py``; the newest released version's when it declares none), whose game reads the
actions (:class:`~arena_gen.core.registry.Grammar`): each
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
past turns are the API's own messages: an assistant message carrying the call the reply made
(``tool_calls``, the arguments as the JSON object sent, or ``{}`` when they were not one) and a
``tool`` message answering it with the next observation (headed by why the call was malformed,
when it was). A reply without a call is an empty assistant message followed by a user message
saying so: never assistant prose the model could copy (a real server's model copied such a
marker back in 48 of 50 turns; written as tool messages, 0 of 5).

Tool-call arguments are untrusted: more than ``MAX_ARGUMENT_CHARS`` characters, an integer
over Python's 4,300-digit limit, nesting deeper than the parser's stack, or a number the
action cannot be written from is a malformed call (``tool_error``, one turn), never an error
of the agent.

Under ``tool_choice=required`` a reply without any call means the server ignored the setting:
the turn records ``tool_choice_ignored`` and the watchers hear of it (:func:`watch_required`),
so ``arena-gen run`` says so once, at the first such reply, and gives the count at the end.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from arena_gen.agents.harness import ArenaGenHarness
from arena_gen.agents.llm_prompts import CLOSE, SYSTEM, Turn, grammar_text, task_grammar
from arena_gen.core.agent import InfraError, TaskView
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
#: The user message's head after a reply without a tool call (never an assistant message).
TOOLS_NO_CALL = "Your last reply made no tool call: no action was played and the turn was spent."
#: The tool message's head after a malformed call.
TOOLS_BAD_CALL = "Invalid call ({why}): no action was played and the turn was spent."
#: The closing line of a text-format prompt and its tools-format replacement.
TEXT_INSTRUCTION = CLOSE
TOOLS_INSTRUCTION = "Think briefly, then call exactly one tool."
#: Ignored parallel calls recorded per turn (a reply may carry any number).
MAX_IGNORED_RECORDED = 16
#: Most characters of one call's arguments read (an action is a few dozen; megabytes are
#: malformed, not parsed).
MAX_ARGUMENT_CHARS = 65536
#: What a reply without a call under ``tool_choice=required`` records as its tool error.
NO_CALL = "the reply made no tool call"

#: Callbacks told of each reply without a call under ``tool_choice=required`` (see
#: :func:`watch_required`).
_required_watchers: list[Callable[[str], None]] = []


@contextmanager
def watch_required(callback: Callable[[str], None]) -> Iterator[None]:
    """Within the block, ``callback(where)`` hears of every reply in this process that made no
    tool call although ``tool_choice=required`` was sent (a run says so at the first one)."""
    _required_watchers.append(callback)
    try:
        yield
    finally:
        _required_watchers.remove(callback)


def note_required_ignored(where: str) -> None:
    """Tell the watchers of one reply without a call under ``tool_choice=required``."""
    for callback in list(_required_watchers):
        callback(where)


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


def action_tools(env: str, public: dict[str, Any], *, version: int | None) -> list[ActionTool]:
    """The actions of a task of ``env`` v``version`` as tools, from that version's grammar
    (:func:`~arena_gen.agents.llm_prompts.task_grammar`; the generic ``act`` tool without one)."""
    grammar = task_grammar(env, version)
    tools = list(grammar.tools or []) if grammar is not None else []
    return tools or [_generic_tool(public)]


def tool_schemas(env: str, public: dict[str, Any], *,
                 version: int | None) -> list[dict[str, Any]]:
    """The ``tools`` field of a chat request: one OpenAI function schema per action tool."""
    return [{"type": "function",
             "function": {"name": t.name, "description": t.description,
                          "parameters": t.parameters(public)}}
            for t in action_tools(env, public, version=version)]


def tools_grammar_text(env: str, public: dict[str, Any], *, version: int | None) -> str:
    """The prompt's action section in the tools format: the format, the note, the tool names."""
    lines = []
    if public.get("action_format"):
        lines.append(f"Action format: {public['action_format']}.")
    grammar = task_grammar(env, version)
    if grammar is not None and grammar.note:
        lines.append(grammar.note)
    names = ", ".join(t.name for t in action_tools(env, public, version=version))
    lines.append(f"Play it by calling one tool ({names}); its arguments are the action.")
    return "\n".join(lines)


def history_call(record: dict[str, Any]) -> dict[str, Any] | None:
    """The call of a turn (what :func:`read_calls` recorded) as the prompt replays it: its name,
    its arguments as JSON object text (``{}`` when they were not one), the error if malformed;
    None when the reply made no call."""
    call = record.get("tool_call")
    if not isinstance(call, dict):
        return None
    arguments = "{}"
    text = call.get("arguments")
    if isinstance(text, str) and len(text) <= MAX_ARGUMENT_CHARS:
        try:
            parsed = json.loads(text)
        except (ValueError, RecursionError):
            parsed = None
        if isinstance(parsed, dict):
            arguments = json.dumps(parsed, ensure_ascii=False)
    return {"name": str(call.get("name")), "arguments": arguments,
            "error": record.get("tool_error")}


def tools_messages(messages: list[dict[str, Any]], env: str, public: dict[str, Any],
                   shown: Sequence[Turn] = (), first: int = 1, *,
                   version: int | None) -> list[dict[str, Any]]:
    """A text-format prompt rewritten for tool calls: the system prompt, the action section and
    the closing instruction of the first user message, and each past turn (``shown``, the
    first of them turn ``first``) as an assistant tool call and the tool message answering
    it with the next observation (see the module docstring); nothing else changes."""
    text_actions = f"## Actions\n{grammar_text(env, public, version=version)}"
    tool_actions = f"## Actions\n{tools_grammar_text(env, public, version=version)}"
    out: list[dict[str, Any]] = []
    for m in messages[:2]:
        content = m.get("content") or ""
        if m.get("role") == "system":
            content = content.replace(SYSTEM, TOOLS_SYSTEM)
        else:
            content = (content.replace(text_actions, tool_actions, 1)
                       .replace(TEXT_INSTRUCTION, TOOLS_INSTRUCTION))
        out.append({**m, "content": content})
    for number, (turn, seen) in enumerate(zip(shown, messages[3::2], strict=True), start=first):
        observation = seen.get("content") or ""
        if turn.call is None:
            out.append({"role": "assistant", "content": ""})
            out.append({"role": "user", "content": f"{TOOLS_NO_CALL}\n\n{observation}"})
            continue
        call_id = f"call_{number}"
        out.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": call_id, "type": "function",
             "function": {"name": turn.call["name"], "arguments": turn.call["arguments"]}}]})
        error = turn.call.get("error")
        result = (observation if error is None
                  else f"{TOOLS_BAD_CALL.format(why=error)}\n\n{observation}")
        out.append({"role": "tool", "tool_call_id": call_id, "content": result})
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
                arguments: str | dict[str, Any] | None, *,
                version: int | None) -> tuple[str | None, str | None]:
    """The action text one tool call plays (a task of ``env`` v``version``), or None and why
    the call is malformed."""
    tools = {t.name: t for t in action_tools(env, public, version=version)}
    tool = tools.get(name)
    if tool is None:
        return None, f"unknown tool {str(name)[:60]!r} (tools: {', '.join(tools)})"
    try:
        return _call_action(tool, public, arguments)
    except RecursionError:  # a value nested deeper than the stack (a dict passed as is)
        return None, "the arguments are nested too deeply"


def _call_action(tool: ActionTool, public: dict[str, Any],
                 arguments: str | dict[str, Any] | None) -> tuple[str | None, str | None]:
    """:func:`call_action` once the tool is known."""
    if isinstance(arguments, str):
        if len(arguments) > MAX_ARGUMENT_CHARS:
            return None, (f"the arguments are {len(arguments)} characters, over the limit of "
                          f"{MAX_ARGUMENT_CHARS}")
        try:
            args = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError as exc:
            return None, f"the arguments are not JSON ({exc.msg})"
        except RecursionError:
            return None, "the arguments are not JSON (nested too deeply)"
        except ValueError as exc:  # e.g. an integer over Python's 4,300-digit limit
            return None, f"the arguments are not JSON ({str(exc).split(':')[0][:120]})"
    else:
        args = {} if arguments is None else arguments
    if not isinstance(args, dict):
        return None, f"the arguments are a JSON {_kind(args)}, not an object"
    schema = tool.parameters(public)
    try:
        why = schema_error(schema, args)
        if why:
            return None, why
        return tool.render(_integral(args, schema)), None
    except RecursionError:
        raise
    except (KeyError, TypeError, ValueError, ArithmeticError) as exc:
        return None, f"the arguments do not make an action ({type(exc).__name__}: {str(exc)[:200]})"


def _shown(call: dict[str, Any], limit: int) -> dict[str, Any]:
    """A call as a turn records it: its name and its arguments' text, capped."""
    arguments = call.get("arguments")
    try:
        text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    except (ValueError, TypeError, RecursionError):  # nested too deeply, or not JSON
        text = "(not JSON)"
    return {"name": str(call.get("name"))[:200], "arguments": text[:limit]}


def read_calls(env: str, public: dict[str, Any], calls: Sequence[dict[str, Any]],
               limit: int = 4096, *, version: int | None) -> tuple[str | None, dict[str, Any]]:
    """The action of a reply's tool calls (the first one; None when malformed) and what the
    turn records: ``tool_call``, ``tool_calls_ignored`` and ``tool_error``."""
    record: dict[str, Any] = {}
    if not calls:
        record["tool_error"] = NO_CALL
        return None, record
    first = calls[0]
    record["tool_call"] = _shown(first, limit)
    if len(calls) > 1:
        record["tool_calls_ignored"] = [_shown(c, limit)
                                        for c in calls[1:1 + MAX_IGNORED_RECORDED]]
        if len(calls) - 1 > MAX_IGNORED_RECORDED:
            record["tool_calls_ignored_count"] = len(calls) - 1
    action, why = call_action(env, public, str(first.get("name")), first.get("arguments"),
                              version=version)
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
                 observation: str, window: int | None) -> list[dict[str, Any]]:
        """The text-format messages rewritten for tools (see :func:`tools_messages`)."""
        shown = list(turns) if window is None else (list(turns[-window:]) if window > 0 else [])
        return tools_messages(super().messages(view, rules_text, turns, observation, window),
                              view.env, view.public, shown, len(turns) - len(shown) + 1,
                              version=view.env_version)


__all__ = ["ACTION_FORMATS", "DEFAULT_ACTION_FORMAT", "MAX_ARGUMENT_CHARS", "NO_CALL",
           "TOOLS_BAD_CALL", "TOOLS_NO_CALL", "TOOLS_SYSTEM", "TOOL_CHOICES", "ToolsHarness",
           "action_tools", "call_action", "check_action_format", "check_tool_choice",
           "history_call", "note_required_ignored", "read_calls", "rejected_tools",
           "schema_error", "tool_schemas", "tools_grammar_text", "tools_messages",
           "watch_required"]
