"""Solvers that play one arena-gen episode per sample: a model through inspect, or a baseline.

:func:`model_agent` is the built-in LLM agent's protocol on inspect's model API: each turn one
``generate`` call on the prompt :func:`~arena_gen.agents.llm_prompts.build_messages` builds (goal,
action grammar, rules in with-rules mode, the history window, the current observation), and the
text of the reply's last ``<action>`` (after ``<think>`` blocks are split off) is played through
the task's game by the runner's :class:`~arena_gen.core.episode.Episode`, which also records
the trajectory exactly as ``arena-gen run`` writes it. The history window follows the built-in
agent's context policy (:class:`~arena_gen.agents.llm_context.ContextWindow`): a context-length
error (inspect's ``model_length`` stop reason, or a provider error the built-in client would
recognise) drops the oldest turns and asks again, never plays the error's text; with no history
left to drop the episode ends as ``agent_error``, as in ``arena-gen run``. Other model errors are
left to inspect (the sample errors and is retried or excluded, never scored 0), as infra errors
are in arena-gen.
``state.messages`` keeps a readable dialogue (observations and replies); what each call really
sent is in the transcript's model events. ``harness="odyssey"`` plays the OdysseyArena
reference protocol instead (:mod:`~arena_gen.agents.harness`): the same prompt builder and reply
handling as ``arena-gen run --harness odyssey``, ``</action>`` sent as a stop sequence, and the
episode's budget and observations set by the harness's protocol.

Offline with inspect's mock model: ``mockllm`` fills in the usage of a reply that has none by
counting the prompt with tiktoken's ``o200k_base`` vocabulary, which tiktoken downloads on first
use (the only network access of ``inspect eval arena_gen/lite --model mockllm/model``). A mock's
token counts are made up either way, so :func:`model_agent` gives a mock model a character
estimate instead (:func:`offline_token_counts`); every other provider is left as it is.
"""

from __future__ import annotations

import dataclasses
import inspect as pyinspect
import json
import time
from collections.abc import Sequence
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
    GenerateConfig,
    Model,
    get_model,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import ToolCall, ToolInfo

from arena_gen.agents.harness import get_harness
from arena_gen.agents.llm_client import ContextLengthError, is_context_error
from arena_gen.agents.llm_context import ContextWindow, approx_tokens
from arena_gen.agents.llm_parse import cap_action, split_reasoning
from arena_gen.agents.llm_probes import parse_answers, probe_message
from arena_gen.agents.llm_prompts import Turn
from arena_gen.agents.llm_tools import (
    DEFAULT_ACTION_FORMAT,
    ToolsHarness,
    check_action_format,
    check_tool_choice,
    history_call,
    note_required_ignored,
    read_calls,
    tool_schemas,
)
from arena_gen.agents.registry import make_agent
from arena_gen.core.agent import Reply, TaskView
from arena_gen.core.episode import Episode
from arena_gen.core.probes import Probe
from arena_gen.core.protocol import DEFAULT_HARNESS, check_harness
from arena_gen.inspect.dataset import MODE_KEY, sample_task

#: Store key of the trajectory record the scorer judges.
TRAJECTORY = "arena_gen_trajectory"
#: Characters of an action played (the built-in LLM agent's default cap).
MAX_ACTION_CHARS = 4096

#: Characters per token of the mock model's estimate (a common rule of thumb for English text).
CHARS_PER_TOKEN = 4

_ROLES = {"system": ChatMessageSystem, "user": ChatMessageUser, "assistant": ChatMessageAssistant}


def chat(messages: list[dict[str, Any]]) -> list[ChatMessage]:
    """arena-gen's chat messages as inspect's: role/content, and the tools format's assistant
    tool calls and the tool messages answering them."""
    out: list[ChatMessage] = []
    names: dict[str, str] = {}
    for m in messages:
        if m["role"] == "tool":
            out.append(ChatMessageTool(content=m["content"], tool_call_id=m["tool_call_id"],
                                       function=names.get(m["tool_call_id"])))
        elif m.get("tool_calls"):
            calls = []
            for c in m["tool_calls"]:
                names[c["id"]] = c["function"]["name"]
                calls.append(ToolCall(id=c["id"], function=c["function"]["name"],
                                      arguments=json.loads(c["function"]["arguments"])))
            out.append(ChatMessageAssistant(content=m.get("content") or "", tool_calls=calls))
        else:
            out.append(_ROLES[m["role"]](content=m["content"]))
    return out


async def _estimate_tokens(text: str) -> int:
    """Tokens of ``text`` estimated from its length: no vocabulary, no download."""
    return max(1, -(-len(text) // CHARS_PER_TOKEN))


def offline_token_counts(model: Model) -> Model:
    """``model`` itself; if it is inspect's mock model, its text token counts become a character
    estimate (through ``count_text_tokens``, the method inspect documents for a provider to
    override), so a reply without usage needs no tiktoken vocabulary from the network."""
    api = getattr(model, "api", None)
    if str(model).split("/", 1)[0] == "mockllm" and api is not None:
        api.count_text_tokens = _estimate_tokens
    return model


#: arena-gen's ``tool_choice`` values in inspect's terms (inspect calls ``required`` ``any``).
INSPECT_TOOL_CHOICE: dict[str, Any] = {"auto": "auto", "required": "any"}


class ModelAgent:
    """An arena-gen agent whose turns are inspect ``generate`` calls (one per turn)."""

    name = "inspect"
    privileged = False

    def __init__(self, model: Model, *, history: int | None = None,
                 max_action_chars: int = MAX_ACTION_CHARS,
                 harness: str = DEFAULT_HARNESS, max_prompt_tokens: int | None = None,
                 action_format: str = DEFAULT_ACTION_FORMAT,
                 tool_choice: str | None = None) -> None:
        if history is not None and history < 0:
            raise ValueError("history must be >= 0 turns (or None for all)")
        if max_prompt_tokens is not None and max_prompt_tokens < 1:
            raise ValueError("max_prompt_tokens must be >= 1 (or None for no limit)")
        self.harness = check_harness(harness)
        if history is not None and self.harness != DEFAULT_HARNESS:
            raise ValueError(f"history does not apply to the {harness} harness")
        self._harness = get_harness(self.harness)
        self.action_format = check_action_format(action_format)
        if self.action_format == "tools":
            if self.harness != DEFAULT_HARNESS:
                raise ValueError(f"action_format=tools does not apply to the {harness} harness "
                                 f"(it keeps the paper's <action> tags)")
            self._harness = ToolsHarness()
        self.tool_choice = check_tool_choice(tool_choice, self.action_format)
        self._tools: list[ToolInfo] = []
        self.model, self.history, self.max_action_chars = model, history, max_action_chars
        self.name = f"inspect:{model}"
        self._view: TaskView | None = None
        self._mode = "inductive"
        self._turns: list[Turn] = []
        self.max_prompt_tokens = max_prompt_tokens
        #: the history window under the built-in agent's context policy
        self._context = ContextWindow(stable=self._harness.prefix_stable)
        #: the usage of the last probe call (recorded apart from the turns)
        self.probe_tokens: dict[str, Any] | None = None

    async def aanswer_probes(self, probes: Sequence[Probe], observation: str = "") -> list[str]:
        """World-model probes in a forked conversation, as the built-in LLM agent asks them:
        the next turn's prompt (its context policy on a copy) plus the questions, no tools,
        no stop sequence; answers read strictly (:mod:`~arena_gen.agents.llm_probes`)."""
        self.probe_tokens = None
        saved, self._context = self._context, dataclasses.replace(self._context)
        try:
            prompt = [*self.messages(observation), probe_message(probes)]
        finally:
            self._context = saved
        output = await self.model.generate(chat(prompt), config=GenerateConfig())
        usage = output.usage
        self.probe_tokens = None if usage is None else {
            "prompt_tokens": usage.input_tokens, "completion_tokens": usage.output_tokens,
            "total_tokens": usage.total_tokens}
        return parse_answers(output.completion, [p.id for p in probes])

    def reset(self, view: TaskView, mode: str, rng: Any) -> None:
        self._view, self._mode, self._turns = view, mode, []
        self._context.reset()
        self._tools = tool_infos(view) if self.action_format == "tools" else []

    def window(self, observation: str) -> int:
        """Past turns the next prompt carries (as :meth:`LLMAgent.window` counts them)."""
        return self._context.shown(self._harness.entries(self._turns),
                                   self._harness.window(self._view, self.history),
                                   lambda w: approx_tokens(self.messages(observation, w)),
                                   self.max_prompt_tokens)

    def messages(self, observation: str, window: int | None = None) -> list[dict[str, str]]:
        """This turn's prompt, built exactly as the built-in LLM agent builds it."""
        view = self._view
        if view is None:
            raise RuntimeError("reset() must be called before act()")
        if window is None:
            window = self.window(observation)
        rules = view.rules_text if self._mode == "with-rules" else None
        return self._harness.messages(view, rules, self._turns, observation, window)

    def _wanted(self) -> int:
        """History entries the harness's window shows before the context policy."""
        done = self._harness.entries(self._turns)
        window = self._harness.window(self._view, self.history)
        return done if window is None else min(done, window)

    async def _generate(self, observation: str) -> tuple[Any, int, int]:
        """One answered call, dropping old turns on context-length errors: (output, shown,
        errors)."""
        shown, errors = self.window(observation), 0
        while True:
            try:
                output = await self.model.generate(chat(self.messages(observation, shown)),
                                                   tools=self._tools,
                                                   tool_choice=INSPECT_TOOL_CHOICE.get(
                                                       self.tool_choice or ""),
                                                   config=self.config())
            except Exception as exc:
                reason = context_reason(exc)
                if reason is None:
                    raise  # a model failure is inspect's to retry or record
            else:
                if output.stop_reason != "model_length":
                    return output, shown, errors
                reason = output.completion or "model_length"
            errors += 1
            if shown == 0:
                raise ContextLengthError(
                    f"the prompt exceeds the model's context even without history (after "
                    f"{errors} context-length errors): {reason[:500]}")
            shown = self._context.failed(self._harness.entries(self._turns), shown)

    def config(self) -> GenerateConfig:
        """Generation settings the harness needs (the odyssey stop sequence)."""
        stop = self._harness.stop
        return GenerateConfig(stop_seqs=list(stop)) if stop else GenerateConfig()

    async def aact(self, observation: str) -> Reply:
        """One turn: one model call, the harness's tag of its answer (or no action)."""
        output, shown, errors = await self._generate(observation)
        content = output.completion
        answer, think = split_reasoning(content)
        reasoning = "\n\n".join(r for r in (_reasoning_of(output), think) if r) or None
        extra: dict[str, Any] = {}
        assert self._view is not None
        called: dict[str, Any] = {}
        if self._tools:
            calls = _calls_of(output)
            action, called = read_calls(self._view.env, self._view.public, calls,
                                        self.max_action_chars, version=self._view.env_version)
            if not calls and self.tool_choice == "required":
                called["tool_choice_ignored"] = True
                note_required_ignored(f"{self._view.task_id} turn {len(self._turns) + 1}")
            extra.update(called)
        else:
            action = self._harness.extract(answer)
        if action is None:
            if not self._tools:
                extra["no_action_tag"] = True
        else:
            action, cut = cap_action(action, self.max_action_chars)
            if cut:
                extra["truncated"] = {"action": cut}
        if output.stop_reason:
            extra["finish_reason"] = output.stop_reason
        assert self._view is not None
        play = self._harness.play(self._view, action, self._turns)
        if play.replayed:
            extra["replayed_previous"] = True
        wanted = self._wanted()
        if shown < wanted or errors:
            extra["context"] = {"turns_shown": shown, "turns_dropped": wanted - shown,
                                "context_errors": errors}
        self._turns.append(Turn(observation, action, play.kept, history_call(called)))
        tokens = usage_of(output.usage)
        return Reply(action=play.action, raw=content, tokens=tokens,
                     reasoning=reasoning, extra=extra)

def usage_of(usage: Any) -> dict[str, Any] | None:
    """inspect's usage as ``arena-gen run`` records it: inspect counts the prompt's cached (and
    cache-written) tokens apart from ``input_tokens``, the endpoint's ``prompt_tokens`` holds
    them all; ``cached_tokens`` when the provider reported any."""
    if usage is None:
        return None
    read = getattr(usage, "input_tokens_cache_read", None) or 0
    written = getattr(usage, "input_tokens_cache_write", None) or 0
    tokens: dict[str, Any] = {"prompt_tokens": usage.input_tokens + read + written,
                              "completion_tokens": usage.output_tokens,
                              "total_tokens": usage.total_tokens}
    if getattr(usage, "input_tokens_cache_read", None) is not None:
        tokens["cached_tokens"] = read
    reasoning = getattr(usage, "reasoning_tokens", None)
    if isinstance(reasoning, int):
        tokens["reasoning_tokens"] = reasoning
    return tokens


def same_schemas(model: Model) -> Model:
    """``model`` itself; if its provider is inspect's OpenAI-compatible one, its tools are sent
    as ``arena-gen run`` sends them: the schemas whole (inspect strips ``minimum`` and
    ``maximum``, which say the bulb range) and no ``strict`` (inspect sets ``true``)."""
    api = getattr(model, "api", None)
    if api is not None and callable(getattr(api, "tools_to_openai", None)):
        def tools_to_openai(tools: list[ToolInfo]) -> list[Any]:
            return [{"type": "function",
                     "function": {"name": t.name, "description": t.description,
                                  "parameters": t.parameters.model_dump(exclude_none=True)}}
                    for t in tools]

        api.tools_to_openai = tools_to_openai
    return model


def tool_infos(view: TaskView) -> list[ToolInfo]:
    """The task's action tools in inspect's form (from the public view: no world, no witness)."""
    return [ToolInfo.model_validate(s["function"])
            for s in tool_schemas(view.env, view.public, version=view.env_version)]


def _calls_of(output: Any) -> list[dict[str, Any]]:
    """A reply's tool calls as :func:`~arena_gen.agents.llm_tools.read_calls` reads them (a call
    inspect could not parse keeps its raw text, so it is malformed there too)."""
    calls = getattr(getattr(output, "message", None), "tool_calls", None) or []
    out = []
    for call in calls:
        error = getattr(call, "parse_error", None)
        arguments = getattr(call, "arguments", None)
        out.append({"name": str(getattr(call, "function", "")),
                    "arguments": f"(not JSON: {error})" if error else arguments})
    return out


def context_reason(exc: BaseException) -> str | None:
    """The provider's message if ``exc`` (or an error it was raised from) is a context-length
    error as the built-in client recognises one (status and body), else None."""
    seen: set[int] = set()
    err: BaseException | None = exc
    while err is not None and id(err) not in seen:
        seen.add(id(err))
        status = getattr(err, "status_code", None)
        if isinstance(status, int):
            body = getattr(err, "body", None)
            text = (getattr(err, "provider_message", None) or getattr(err, "message", None)
                    or str(err))
            if body is not None:
                text = f"{text} {body}"
            if is_context_error(status, str(text).encode("utf-8", "replace")):
                return str(text)
        err = err.__cause__ or err.__context__
    return None


def _reasoning_of(output: Any) -> str | None:
    """Reasoning the provider returned separately from the text (reasoning content blocks)."""
    message = getattr(output, "message", None)
    blocks = getattr(message, "content", None)
    if not isinstance(blocks, list):
        return None
    texts = [getattr(b, "reasoning", "") for b in blocks if getattr(b, "type", "") == "reasoning"]
    return "\n\n".join(t for t in texts if t) or None


async def play(state: TaskState, agent: Any, probes: int = 0) -> TaskState:
    """Play the sample's task with ``agent`` and keep its trajectory for the scorer. The task is
    looked up by id in the sample's suite (the sample carries no world); the agent gets the view
    it is entitled to (the world only for a privileged baseline, the oracle). An inspect limit
    (``--message-limit``, ``--token-limit``, ``--time-limit``) that stops the solver ends the
    attempt as ``quit``: the trajectory so far is kept, and the judge scores the state reached.
    ``probes``: world-model probes per milestone, asked as ``arena-gen run --probes`` asks them."""
    task = sample_task(state.metadata)
    episode = Episode(task, agent, mode=str(state.metadata.get(MODE_KEY, "inductive")),
                      attempt=max(0, int(state.epoch) - 1), probes=probes)
    dialogue: list[ChatMessage] = []
    finished = False
    try:
        while not episode.over:
            observation = episode.obs
            t0 = time.perf_counter()
            aact = getattr(agent, "aact", None)
            try:
                reply = await aact(observation) if aact else agent.act(observation)
                if pyinspect.isawaitable(reply):
                    reply = await reply
            except Exception as exc:
                if isinstance(agent, ModelAgent) and not isinstance(exc, ContextLengthError):
                    raise  # a model failure (or an inspect limit) is inspect's to handle
                # a baseline's bug, or a first prompt over the model's context: the attempt
                # ends as agent_error, as in the runner
                episode.fail(exc)
                break
            episode.step(reply, time.perf_counter() - t0)
            await episode.aask_probes()
            raw = reply.raw if isinstance(reply, Reply) and reply.raw is not None else str(
                getattr(reply, "action", reply))
            dialogue += [ChatMessageUser(content=observation), ChatMessageAssistant(content=raw)]
        await episode.aask_probes()  # the end, when the agent's failure ended the episode
        finished = True
    finally:  # also when inspect stops the solver: the scorer judges what was played
        if not finished and not episode.over:
            episode.end_reason = "quit"
        state.store.set(TRAJECTORY, episode.result())
        state.messages = [*state.messages[:1], *dialogue[1:]] if dialogue else state.messages
    state.completed = True
    return state


@solver
def model_agent(history: int | None = None, max_action_chars: int = MAX_ACTION_CHARS,
                harness: str = DEFAULT_HARNESS, max_prompt_tokens: int | None = None,
                action_format: str = DEFAULT_ACTION_FORMAT,
                tool_choice: str | None = None, probes: int = 0) -> Solver:
    """Play each sample with the eval's model, one call per turn (``history``: turns shown;
    ``harness``: ``arena-gen`` or ``odyssey``; ``max_prompt_tokens``: the context policy's
    up-front limit, as ``arena-gen run --max-prompt-tokens``; ``action_format``: ``text`` or
    ``tools``; ``tool_choice``: ``auto`` or ``required`` with tools, as ``--tool-choice``;
    ``probes``: world-model probes per milestone, as ``--probes-per-milestone``, 0: off)."""
    check_harness(harness)
    check_action_format(action_format)
    check_tool_choice(tool_choice, action_format)
    if action_format == "tools" and harness != DEFAULT_HARNESS:
        raise ValueError(f"action_format=tools does not apply to the {harness} harness "
                         f"(it keeps the paper's <action> tags)")

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = same_schemas(offline_token_counts(get_model()))
        return await play(state, ModelAgent(model, history=history,
                                            max_action_chars=max_action_chars,
                                            harness=harness,
                                            max_prompt_tokens=max_prompt_tokens,
                                            action_format=action_format,
                                            tool_choice=tool_choice), probes)

    return solve


@solver
def baseline(agent: str = "oracle", probes: int = 0) -> Solver:
    """Play each sample with a built-in agent (``random``, ``oracle``, ``heuristic``): no model
    (``probes``: world-model probes per milestone, 0: off)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        env = str(state.metadata.get("env", ""))
        return await play(state, make_agent(agent, env), probes)

    return solve
