"""The LLM agent: any OpenAI-compatible chat endpoint (vLLM, SGLang, Ollama, hosted APIs).

Each turn it extends one dialogue (goal, action grammar, rules in with-rules mode, then the
actions played and observations seen, the last ``history`` turns of them; see
:mod:`.llm_prompts`: a prompt only appends, so a server's prefix cache reuses it), asks the
endpoint through a :class:`~.llm_client.ChatClient` and plays the text of the reply's last
``<action>`` tag. A reply without a tag is a malformed action (an empty action: the env's
invalid-action feedback, one turn spent), not an infra error. ``aact`` is the async turn used by
the runner's async executor, which shares one client (and its connection limit) among all
episodes; ``act`` is the blocking turn for the generic runner (a fresh client per call).

The API key comes from ``OPENAI_API_KEY`` (or ``api_key=``) and is never stored in the agent's
config, the run directory or error messages: every recorded field of a turn is scrubbed of it.

Replies are untrusted and may be huge: they are parsed in linear time (:mod:`.llm_parse`), the
recorded reply and reasoning are capped at ``max_reply_chars`` each (head and tail kept) and the
action played and replayed in later prompts at ``max_action_chars``; what was cut is recorded in
the turn as ``truncated`` (characters dropped per field). The history window follows the
context policy of :mod:`.llm_context` (``max_prompt_tokens`` up front, and fewer turns after a
context-length error; cut a quarter further than needed, so later prompts extend the cut one);
a turn whose prompt lost turns to it records ``context``.

``harness`` picks the protocol (:mod:`.harness`): ``arena-gen`` (the above) or ``odyssey`` (the
OdysseyArena reference: per-env history shapes and windows, ``stop: ["</action>"]``, the first
tag counts); the episode reads ``agent.harness`` for the env side of the protocol.

``action_format="tools"`` (arena-gen harness only) offers the env's actions as tool schemas and
plays the reply's first tool call instead of a tag (:mod:`.llm_tools`).

World-model probes (``run --probes``) are answered in a forked conversation
(:meth:`LLMAgent.aanswer_probes`, :mod:`.llm_probes`): the next turn's prompt plus the
questions, no tools, on a copy of the context policy's state and its own backoff stream, so the
episode's prompts, turns and randomness are unchanged; the request's usage is left in
``probe_tokens`` for the runner to record apart.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np

from arena_gen.agents.harness import get_harness
from arena_gen.agents.llm_client import ChatClient, Completion, ContextLengthError
from arena_gen.agents.llm_context import ContextWindow, approx_tokens
from arena_gen.agents.llm_parse import cap, cap_action, split_reasoning
from arena_gen.agents.llm_probes import fork_payload, parse_answers
from arena_gen.agents.llm_prompts import Turn
from arena_gen.agents.llm_tools import (
    DEFAULT_ACTION_FORMAT,
    ToolsHarness,
    check_action_format,
    check_tool_choice,
    history_call,
    note_required_ignored,
    read_calls,
    rejected_tools,
    tool_schemas,
)
from arena_gen.core.agent import MODES, InfraError, Reply, TaskView
from arena_gen.core.probes import Probe
from arena_gen.core.protocol import DEFAULT_HARNESS, check_harness
from arena_gen.core.redact import scrub

#: Default caps: characters of a reply (and of its reasoning) recorded, of an action played.
MAX_REPLY_CHARS = 65536
MAX_ACTION_CHARS = 4096


class LLMAgent:
    """Plays one episode by asking a chat model for one action per turn."""

    name = "llm"
    privileged = False

    def __init__(self, model: str, base_url: str | None = None, temperature: float = 0.6,
                 max_tokens: int | None = None, history: int | None = None,
                 max_connections: int = 8, timeout: float = 300.0, retries: int = 5,
                 backoff: float = 1.0, backoff_max: float = 60.0, api_key: str | None = None,
                 client: ChatClient | None = None, max_prompt_tokens: int | None = None,
                 max_reply_chars: int = MAX_REPLY_CHARS,
                 max_action_chars: int = MAX_ACTION_CHARS,
                 harness: str = DEFAULT_HARNESS,
                 action_format: str = DEFAULT_ACTION_FORMAT,
                 tool_choice: str | None = None) -> None:
        if not model:
            raise ValueError("the llm agent needs a model name (--model)")
        if history is not None and history < 0:
            raise ValueError("history must be >= 0 turns (or None for all)")
        self.harness = check_harness(harness)
        if history is not None and self.harness != DEFAULT_HARNESS:
            raise ValueError(f"history does not apply to the {harness} harness (its history "
                             f"windows are fixed per env)")
        self._harness = get_harness(self.harness)
        self.action_format = check_action_format(action_format)
        if self.action_format == "tools":
            if self.harness != DEFAULT_HARNESS:
                raise ValueError(f"--action-format tools does not apply to the {harness} "
                                 f"harness (it keeps the paper's <action> tags); use the "
                                 f"{DEFAULT_HARNESS} harness or --action-format text")
            self._harness = ToolsHarness()
        self.tool_choice = check_tool_choice(tool_choice, self.action_format)
        self._tools: list[dict[str, Any]] | None = None
        if max_prompt_tokens is not None and max_prompt_tokens < 1:
            raise ValueError("max_prompt_tokens must be >= 1 (or None for no limit)")
        if max_reply_chars < 1 or max_action_chars < 1:
            raise ValueError("max_reply_chars and max_action_chars must be >= 1")
        self.max_prompt_tokens = None if max_prompt_tokens is None else int(max_prompt_tokens)
        self.max_reply_chars = int(max_reply_chars)
        self.max_action_chars = int(max_action_chars)
        self.model = model
        self.temperature = float(temperature)
        self.max_tokens = None if max_tokens is None else int(max_tokens)
        self.history_window = history
        self._client_args: dict[str, Any] = {
            "base_url": base_url, "api_key": api_key, "timeout": timeout, "retries": retries,
            "backoff": backoff, "backoff_max": backoff_max, "max_connections": max_connections}
        self.client = client
        self._view: TaskView | None = None
        self._mode = "inductive"
        self._rng = np.random.default_rng(0)
        self._turns: list[Turn] = []
        #: the history window under the context policy
        self._context = ContextWindow(stable=self._harness.prefix_stable)
        #: the usage of the last probe request (the runner records it apart from the turns)
        self.probe_tokens: dict[str, Any] | None = None
        self._probe_rng = np.random.default_rng(0)

    def __repr__(self) -> str:
        return f"LLMAgent(model={self.model!r})"

    def make_client(self) -> ChatClient:
        """A client built from this agent's connection settings."""
        return ChatClient(**self._client_args)

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        self._view, self._mode, self._rng = view, mode, rng
        # the probe requests' own backoff stream: asking probes never draws from the episode's
        seed_seq = getattr(getattr(rng, "bit_generator", None), "seed_seq", None)
        child = (seed_seq.spawn(1)[0] if isinstance(seed_seq, np.random.SeedSequence)
                 else np.random.SeedSequence(0))
        self._probe_rng = np.random.Generator(np.random.PCG64(child))
        self.probe_tokens = None
        self._turns = []
        self._context.reset()
        self._tools = (tool_schemas(view.env, view.public, version=view.env_version)
                       if self.action_format == "tools" else None)

    def _wanted(self) -> int:
        """History entries the harness's window shows (all of them for None)."""
        done = self._harness.entries(self._turns)
        window = self._harness.window(self._view, self.history_window)
        return done if window is None else min(done, window)

    def window(self, observation: str) -> int:
        """Past turns the next prompt carries under the history window and the context policy."""
        return self._context.shown(self._harness.entries(self._turns),
                                   self._harness.window(self._view, self.history_window),
                                   lambda w: approx_tokens(self.messages(observation, w)),
                                   self.max_prompt_tokens)

    def messages(self, observation: str, window: int | None = None) -> list[dict[str, str]]:
        """The prompt for the next turn (the last ``window`` turns, default :meth:`window`)."""
        view = self._view
        if view is None:
            raise RuntimeError("reset() must be called before act()")
        if window is None:
            window = self.window(observation)
        rules = view.rules_text if self._mode == "with-rules" else None
        return self._harness.messages(view, rules, self._turns, observation, window)

    def payload(self, observation: str, window: int | None = None) -> dict[str, Any]:
        """The request body for the next turn."""
        body: dict[str, Any] = {"model": self.model,
                                "messages": self.messages(observation, window),
                                "temperature": self.temperature}
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        if self._harness.stop:
            body["stop"] = list(self._harness.stop)
        if self._tools is not None:
            body["tools"] = self._tools
            if self.tool_choice is not None:
                body["tool_choice"] = self.tool_choice
        return body

    async def _complete(self, observation: str) -> tuple[Completion, int, int]:
        """Ask the endpoint, dropping old turns on context-length errors: (reply, shown, errors)."""
        assert self.client is not None
        shown, errors = self.window(observation), 0
        while True:
            try:
                done = await self.client.complete(self.payload(observation, shown), self._rng)
                return done, shown, errors
            except InfraError as exc:
                if self._tools is None:
                    raise
                raise rejected_tools(exc) from None
            except ContextLengthError as exc:
                errors += 1
                if shown == 0:
                    raise ContextLengthError(
                        f"the prompt exceeds the model's context even without history "
                        f"(after {errors} context-length errors): {exc}") from None
                shown = self._context.failed(self._harness.entries(self._turns), shown)

    async def aact(self, observation: str) -> Reply:
        """One turn on the shared (or own) async client."""
        if self.client is None:
            self.client = self.make_client()
        done, shown, errors = await self._complete(observation)
        answer, think = split_reasoning(done.content)
        reasoning = "\n\n".join(r for r in (done.reasoning, think) if r) or None
        called: dict[str, Any] = {}
        assert self._view is not None
        if self._tools is not None:
            action, called = read_calls(self._view.env, self._view.public,
                                        done.tool_calls or [], self.max_action_chars,
                                        version=self._view.env_version)
            if not done.tool_calls and self.tool_choice == "required":
                called["tool_choice_ignored"] = True
                note_required_ignored(f"{self._view.task_id} turn {len(self._turns) + 1}")
        else:
            action = self._harness.extract(answer)
        truncated: dict[str, int] = {}
        if action is not None:
            action, truncated["action"] = cap_action(action, self.max_action_chars)
        play = self._harness.play(self._view, action, self._turns)
        raw, truncated["raw"] = cap(done.content, self.max_reply_chars)
        if reasoning is not None:
            reasoning, truncated["reasoning"] = cap(reasoning, self.max_reply_chars)
        extra: dict[str, Any] = {"retries": done.retries}
        if done.finish_reason is not None:
            extra["finish_reason"] = done.finish_reason
        extra.update(called)
        if action is None and self._tools is None:
            extra["no_action_tag"] = True
        if play.replayed:
            extra["replayed_previous"] = True
        if any(truncated.values()):
            extra["truncated"] = {k: v for k, v in truncated.items() if v}
        wanted = self._wanted()
        if shown < wanted or errors:
            extra["context"] = {"turns_shown": shown, "turns_dropped": wanted - shown,
                                "context_errors": errors}
        secret = getattr(self.client, "secret", None)  # the client redacted; this is the net
        action = scrub(action, secret)
        played = scrub(play.action, secret)
        self._turns.append(Turn(observation, action, play.kept, history_call(called)))
        return Reply(action=played, raw=scrub(raw, secret),
                     tokens=done.usage, reasoning=scrub(reasoning, secret),
                     extra=scrub(extra, secret))

    def probe_payload(self, probes: Sequence[Probe], observation: str) -> dict[str, Any]:
        """The forked probe request: the next turn's request as the context policy would cut
        it (on a copy of the policy's state, so the episode's later prompts do not change),
        plus the questions, without tools (:mod:`.llm_probes`)."""
        saved, self._context = self._context, dataclasses.replace(self._context)
        try:
            return fork_payload(self.payload(observation), probes)
        finally:
            self._context = saved

    async def aanswer_probes(self, probes: Sequence[Probe], observation: str = "") -> list[str]:
        """Answer probes in a forked conversation (no tools, no turn); an unreadable answer is
        an empty reply (wrong), an endpoint failure raises and the runner records it."""
        self.probe_tokens = None
        if self.client is None:
            self.client = self.make_client()
        done = await self.client.complete(self.probe_payload(probes, observation),
                                          self._probe_rng)
        self.probe_tokens = done.usage
        secret = getattr(self.client, "secret", None)
        return [scrub(a, secret) for a in parse_answers(done.content, [p.id for p in probes])]

    def answer_probes(self, probes: Sequence[Probe], observation: str = "") -> list[str]:
        """:meth:`aanswer_probes`, blocking (its own event loop and connection)."""
        return asyncio.run(self._answer_once(probes, observation))

    async def _answer_once(self, probes: Sequence[Probe], observation: str) -> list[str]:
        shared, self.client = self.client, self.make_client()
        try:
            return await self.aanswer_probes(probes, observation)
        finally:
            await self.client.aclose()
            self.client = shared

    def act(self, observation: str) -> Reply:
        """One blocking turn (its own event loop and connection)."""
        return asyncio.run(self._act_once(observation))

    async def _act_once(self, observation: str) -> Reply:
        shared, self.client = self.client, self.make_client()
        try:
            return await self.aact(observation)
        finally:
            await self.client.aclose()
            self.client = shared
