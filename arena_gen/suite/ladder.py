"""The baseline ladder of one task: random, the env's inductive baselines, the with-rules planner.

Each rung is played by :func:`~.episode.run_episode` exactly as ``arena-gen run`` would play it
(run seed 0, attempt seeds 0..k-1), so the ladder in a certificate is what a user measures by
running the same agents, and ``verify`` recomputes it turn for turn. Per attempt the ladder
keeps success, steps, item credit (share of rubric checks met at the end) and, where the game
defines one, its headline value (e.g. trading's profit rate).

From ladder format 3 each attempt also records its knowledge curve: at every milestone turn
(:func:`~arena_gen.core.probes.milestone_turns` of the budget) the rung answers the probes
:func:`~arena_gen.core.probes.draw` draws for that milestone, and the game grades the replies.
A milestone the episode does not reach (it ended earlier) is asked at the episode's end, so
every curve has one point per milestone. A rung that cannot answer (no ``answer_probes``)
guesses uniformly from a stream of its own (spawned from the milestone's by its place).
Probes never change the episode.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import numpy as np

from arena_gen.agents.random_agent import RandomAgent
from arena_gen.core import registry
from arena_gen.core.calibration import HEURISTIC, PLANNER, RANDOM, Calibration
from arena_gen.core.episode import Episode
from arena_gen.core.probe_ask import probe_key  # the one key of runs, ladder and judge
from arena_gen.core.probes import (
    ProbeAnswerer,
    draw,
    grade,
    guess,
    milestone_turns,
    offers_probes,
    probe_seed,
)
from arena_gen.core.task import Task

#: The newest ladder format (an env version names the one its certificates carry in
#: ``EnvSpec.ladder_version``): 1 = rungs without kinds; 2 = each rung records its kind and
#: model-free rungs are played; 3 = each attempt records its knowledge curve (``probes``).
LADDER_VERSION = 3


def _rungs(spec: registry.EnvSpec, cal: Calibration) -> list[tuple[str, Any, str, int, str]]:
    """(rung, agent factory, mode, attempts, kind) for each rung the spec has."""
    rungs: list[tuple[str, Any, str, int, str]] = [(RANDOM, RandomAgent, "inductive",
                                                    cal.random_attempts, "random")]
    if spec.ladder_version >= 2:
        for name, factory in spec.load_model_free().items():
            rungs.append((name, factory, "inductive", 1, "model_free"))
    if spec.heuristic is not None:
        rungs.append((HEURISTIC, spec.load("heuristic"), "inductive", 1, "inductive"))
    for name, factory in spec.load_baselines().items():
        rungs.append((name, factory, "inductive", 1, "inductive"))
    if spec.planner is not None:
        rungs.append((PLANNER, spec.load("planner"), "with-rules", 1, "planner"))
    return rungs


class _Knowledge:
    """One attempt's probe bookkeeping: the states visited, and each milestone's score."""

    def __init__(self, task: Task, agent: Any, attempt: int, budget: int, key: str,
                 rung: int) -> None:
        self.task, self.agent, self.attempt, self.key = task, agent, attempt, key
        self.rung = rung  # the rung's place in the ladder: its own guessing stream
        self.turns = milestone_turns(budget)
        self.visited: list[Any] = []
        self.curve: list[dict[str, int]] = []

    def _ask(self, game: Any, state: Any, turn: int) -> None:
        """Ask the next milestone's probes at ``state`` (reached after ``turn`` turns)."""
        m = len(self.curve)
        probes = draw(game, state, self.visited, self.key, self.attempt, m)
        if isinstance(self.agent, ProbeAnswerer):
            try:
                replies = list(self.agent.answer_probes(probes))
            except Exception:  # a baseline bug in answering scores the milestone 0
                replies = []
        else:
            seq = probe_seed(self.key, self.attempt, m).spawn(self.rung + 1)[self.rung]
            replies = guess(probes, np.random.Generator(np.random.PCG64(seq)))
        right = grade(game, state, probes, replies)
        self.curve.append({"turn": turn, "asked": len(probes), "correct": sum(right)})

    def after(self, episode: Episode) -> None:
        """Record the state a turn reached and ask the milestone that turn completes."""
        game, state, turn = episode.env.game, episode.env.state, len(episode.turns)
        if not self.visited:
            self.visited.append(game.initial())
        self.visited.append(state)
        if len(self.curve) < len(self.turns) and turn == self.turns[len(self.curve)]:
            self._ask(game, state, turn)

    def finish(self, episode: Episode) -> list[dict[str, int]]:
        """Ask the milestones the episode did not reach at its final state; the curve."""
        game, state = episode.env.game, episode.env.state
        if not self.visited:
            self.visited.append(game.initial())
        while len(self.curve) < len(self.turns):
            self._ask(game, state, len(episode.turns))
        return self.curve


def _attempt(task: Task, agent: Any, mode: str, attempt: int, probes: str | None = None,
             rung: int = 0) -> dict[str, Any]:
    """One rung attempt's record; with ``probes`` (the :func:`probe_key`) its knowledge
    curve too (``rung``: the rung's place in the ladder, which picks a guesser's stream)."""
    episode = Episode(task, agent, mode=mode, attempt=attempt, run_seed=0)
    know = (_Knowledge(task, agent, attempt, episode.budget, probes, rung)
            if probes is not None and episode.env is not None else None)
    while not episode.over:
        try:
            reply = agent.act(episode.obs)
        except Exception as exc:  # a baseline bug is recorded as a failed attempt
            episode.fail(exc)
            break
        turns = len(episode.turns)
        episode.step(reply, 0.0)
        if know is not None and len(episode.turns) > turns:
            know.after(episode)
    if episode.env is None:  # the game could not be built: no state to credit
        return {"success": False, "steps": 0, "credit": 0.0, "error": episode.end_reason}
    game, state = episode.env.game, episode.env.state
    checks = game.checks(game.facts(state))
    credit = sum(c.met is True for c in checks) / len(checks) if checks else 0.0
    success = episode.end_reason != "env_error" and bool(episode.env.success)  # as the runner
    out: dict[str, Any] = {"success": success, "steps": len(episode.turns),
                           "credit": round(credit, 6)}
    value = getattr(game, "ladder_value", None)
    if value is not None:
        v = value(state)
        out["value"] = None if v is None else round(float(v), 6)
    if episode.error is not None:
        out["error"] = episode.end_reason
    if know is not None and episode.end_reason != "env_error":
        out["probes"] = know.finish(episode)
    return out


def climb(task: Task, cal: Calibration, only: Collection[str] | None = None) -> dict[str, Any]:
    """Play every rung of the ladder on ``task`` (or the rungs named in ``only``, so an
    ablation pays for the rungs it compares); deterministic for a task and calibration."""
    spec = registry.for_task(task)
    probes = (probe_key(task) if spec.ladder_version >= 3 and offers_probes(spec.load("game"))
              else None)
    ladder: dict[str, Any] = {}
    for place, (rung, factory, mode, attempts, kind) in enumerate(_rungs(spec, cal)):
        if only is not None and rung not in only:
            continue
        results = [_attempt(task, factory(), mode, a, probes, place) for a in range(attempts)]
        ladder[rung] = {
            "mode": mode,
            "attempts": attempts,
            "successes": sum(r["success"] for r in results),
            "results": results,
        }
        if spec.ladder_version >= 2:
            ladder[rung]["kind"] = kind
    return ladder


def rung_names(spec: registry.EnvSpec, cal: Calibration) -> list[str]:
    """The rungs a full climb of ``spec``'s ladder plays, in order."""
    return [rung for rung, *_ in _rungs(spec, cal)]


#: One attempt of one agent on a task, played and summarised as a rung plays it (the random
#: bound's fallback plays the random agent so).
play_attempt = _attempt
