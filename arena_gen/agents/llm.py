"""The LLM agent: any OpenAI-compatible chat endpoint (vLLM, SGLang, Ollama, hosted APIs).

Each turn it rebuilds one prompt (goal, action grammar, rules in with-rules mode, the last
``history`` turns, the current observation; see :mod:`.llm_prompts`), asks the endpoint through a
:class:`~.llm_client.ChatClient` and plays the text of the reply's last ``<action>`` tag. A reply
without a tag is a malformed action (an empty action: the env's invalid-action feedback, one turn
spent), not an infra error. ``aact`` is the async turn used by the runner's async executor, which
shares one client (and its connection limit) among all episodes; ``act`` is the blocking turn for
the generic runner (a fresh client per call).

The API key comes from ``OPENAI_API_KEY`` (or ``api_key=``) and is never stored in the agent's
config, the run directory or error messages.
"""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np

from .base import MODES, Reply, TaskView
from .llm_client import ChatClient
from .llm_prompts import Turn, build_messages, extract_action, split_reasoning


class LLMAgent:
    """Plays one episode by asking a chat model for one action per turn."""

    name = "llm"
    privileged = False

    def __init__(self, model: str, base_url: str | None = None, temperature: float = 0.6,
                 max_tokens: int | None = None, history: int | None = None,
                 max_connections: int = 8, timeout: float = 300.0, retries: int = 5,
                 backoff: float = 1.0, backoff_max: float = 60.0, api_key: str | None = None,
                 client: ChatClient | None = None) -> None:
        if not model:
            raise ValueError("the llm agent needs a model name (--model)")
        if history is not None and history < 0:
            raise ValueError("history must be >= 0 turns (or None for all)")
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

    def __repr__(self) -> str:
        return f"LLMAgent(model={self.model!r})"

    def make_client(self) -> ChatClient:
        """A client built from this agent's connection settings."""
        return ChatClient(**self._client_args)

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        self._view, self._mode, self._rng = view, mode, rng
        self._turns = []

    def messages(self, observation: str) -> list[dict[str, str]]:
        """The prompt for the next turn."""
        view = self._view
        if view is None:
            raise RuntimeError("reset() must be called before act()")
        return build_messages(env=view.env, public=view.public,
                              rules_text=view.rules_text if self._mode == "with-rules" else None,
                              history=self._turns, observation=observation,
                              window=self.history_window, budget=view.budget)

    def payload(self, observation: str) -> dict[str, Any]:
        """The request body for the next turn."""
        body: dict[str, Any] = {"model": self.model, "messages": self.messages(observation),
                                "temperature": self.temperature}
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        return body

    async def aact(self, observation: str) -> Reply:
        """One turn on the shared (or own) async client."""
        if self.client is None:
            self.client = self.make_client()
        done = await self.client.complete(self.payload(observation), self._rng)
        answer, think = split_reasoning(done.content)
        reasoning = "\n\n".join(r for r in (done.reasoning, think) if r) or None
        action = extract_action(answer)
        self._turns.append(Turn(observation, action))
        extra: dict[str, Any] = {"retries": done.retries}
        if done.finish_reason is not None:
            extra["finish_reason"] = done.finish_reason
        if action is None:
            extra["no_action_tag"] = True
        return Reply(action=action if action is not None else "", raw=done.content,
                     tokens=done.usage, reasoning=reasoning, extra=extra)

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
