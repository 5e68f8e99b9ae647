"""The baseline ladder of one task: random, the env's inductive baselines, the with-rules planner.

Each rung is played by :func:`~.episode.run_episode` exactly as ``arena-gen run`` would play it
(run seed 0, attempt seeds 0..k-1), so the ladder in a certificate is what a user measures by
running the same agents, and ``verify`` recomputes it turn for turn. Per attempt the ladder
keeps success, steps, item credit (share of rubric checks met at the end) and, where the game
defines one, its headline value (e.g. trading's profit rate).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from arena_gen.agents.random_agent import RandomAgent
from arena_gen.core import registry
from arena_gen.core.calibration import HEURISTIC, PLANNER, RANDOM, Calibration
from arena_gen.core.episode import Episode
from arena_gen.core.task import Task

#: The newest ladder format (an env version names the one its certificates carry in
#: ``EnvSpec.ladder_version``): 1 = rungs without kinds; 2 = each rung records its kind and
#: model-free rungs are played.
LADDER_VERSION = 2


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


def _attempt(task: Task, agent: Any, mode: str, attempt: int) -> dict[str, Any]:
    episode = Episode(task, agent, mode=mode, attempt=attempt, run_seed=0)
    while not episode.over:
        try:
            reply = agent.act(episode.obs)
        except Exception as exc:  # a baseline bug is recorded as a failed attempt
            episode.fail(exc)
            break
        episode.step(reply, 0.0)
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
    return out


def climb(task: Task, cal: Calibration, only: Collection[str] | None = None) -> dict[str, Any]:
    """Play every rung of the ladder on ``task`` (or the rungs named in ``only``, so an
    ablation pays for the rungs it compares); deterministic for a task and calibration."""
    spec = registry.for_task(task)
    ladder: dict[str, Any] = {}
    for rung, factory, mode, attempts, kind in _rungs(spec, cal):
        if only is not None and rung not in only:
            continue
        results = [_attempt(task, factory(), mode, a) for a in range(attempts)]
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
