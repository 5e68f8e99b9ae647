"""What a run will cost before it is played (``run --dry-run``): episodes, calls, tokens.

Model calls are the turn budgets (one call per turn; an episode that succeeds early makes
fewer, so this is an upper bound). Prompt tokens follow the agent's own prompt and context
policy: per task, the first prompt ``p0`` is built by the agent itself (characters / 4, as the
context policy counts), each past turn a prompt carries adds ``g`` tokens (the first
observation after the task's first certified action, with that action, as the dialogue shows
them), and turn ``t`` carries ``min(t, window)`` past turns (``--history`` or the harness's
window), capped at ``--max-prompt-tokens``. Summed over a budget ``B`` without a window that is
``B x p0 + g x B(B-1)/2``: the history makes the cost grow with the square of the budget.
Completion tokens are ``--max-tokens`` per call when set (a bound), else
:data:`ASSUMED_REPLY_TOKENS` per call (an assumption, said as one).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from arena_gen.agents.harness import get_harness
from arena_gen.agents.llm_context import approx_tokens
from arena_gen.agents.llm_prompts import observation_text, played_text
from arena_gen.agents.registry import make_agent
from arena_gen.core.agent import TaskView
from arena_gen.core.episode import Episode
from arena_gen.core.protocol import DEFAULT_HARNESS
from arena_gen.core.task import Task

#: Completion tokens assumed per call when ``--max-tokens`` is not set: a short reasoning
#: paragraph and the action (reasoning models write many more; set ``--max-tokens`` to bound).
ASSUMED_REPLY_TOKENS = 200


@dataclass
class Estimate:
    """One env's (or the run's) workload: episodes, model calls, prompt and completion tokens."""

    episodes: int = 0
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    #: first prompts' tokens, summed over tasks (for the mean a line shows)
    first_prompts: int = 0
    tasks: int = 0
    envs: dict[str, Estimate] = field(default_factory=dict)

    def add(self, other: Estimate) -> None:
        """Fold another estimate into this one."""
        self.episodes += other.episodes
        self.calls += other.calls
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.first_prompts += other.first_prompts
        self.tasks += other.tasks


def prompt_tokens(p0: int, growth: int, budget: int, window: int | None,
                  limit: int | None) -> int:
    """Prompt tokens of one episode of ``budget`` calls (see the module docstring)."""
    total = 0
    for done in range(budget):
        shown = done if window is None else min(done, window)
        size = p0 + shown * growth
        total += size if limit is None else min(size, max(limit, p0))
    return total


def task_estimate(task: Task, agent: str, agent_config: dict[str, Any] | None, mode: str,
                  attempts: int) -> Estimate:
    """The workload of ``attempts`` attempts of one task."""
    config = dict(agent_config or {})
    player = make_agent(agent, task.env, config, task.env_version)
    episode = Episode(task, player, mode=mode)
    est = Estimate(episodes=attempts, calls=attempts * episode.budget, tasks=1)
    messages = getattr(player, "messages", None)
    if messages is None or episode.over:  # not a model, or the game did not start
        return est
    p0 = approx_tokens(messages(episode.obs, 0))
    witness = task.certificate.witness
    action = witness[0] if witness else ""
    after = episode.env.step(action)[0] if witness else episode.obs
    intro = str(task.public.get("intro", ""))
    growth = -(-(len(played_text(action)) + len(observation_text(after, intro, 2,
                                                                  episode.budget))) // 4)
    harness = str(config.get("harness", DEFAULT_HARNESS))
    window = (config.get("history") if harness == DEFAULT_HARNESS else
              get_harness(harness).window(TaskView.of(task, mode), None))
    per_episode = prompt_tokens(p0, growth, episode.budget, window,
                                config.get("max_prompt_tokens"))
    reply = int(config.get("max_tokens") or ASSUMED_REPLY_TOKENS)
    est.prompt_tokens = attempts * per_episode
    est.completion_tokens = attempts * episode.budget * reply
    est.first_prompts = p0
    return est


def estimate(tasks: Sequence[Task], agent: str, agent_config: dict[str, Any] | None, mode: str,
             attempts: Sequence[int] | int) -> Estimate:
    """The run's workload per env and in total (``attempts``: per task, or one for all)."""
    total = Estimate()
    for i, task in enumerate(tasks):
        k = attempts if isinstance(attempts, int) else attempts[i]
        if k <= 0:
            continue
        one = task_estimate(task, agent, agent_config, mode, k)
        total.envs.setdefault(task.env, Estimate()).add(one)
        total.add(one)
    return total
