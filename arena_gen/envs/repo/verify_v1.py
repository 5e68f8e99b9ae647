"""Repo verifier entry point: static SAT layer, MaxSAT lower bound, then SAT-BMC for the minimum.

1. Static (python-sat): the stored solution is a model of the run-success clauses; the number
   of success configurations is counted up to a cap.
2. Lower bound: a MaxSAT cover bound (``repo_sat.cover_lower_bound``), so the BMC starts where
   short bounds are already refuted.
3. Dynamic: incremental SAT bounded model checking of the install transition from that bound
   upwards; the first satisfiable bound is the minimum and its plan is the witness. Every solver
   call has a deterministic conflict budget (``params["bmc_conflicts"]``); if a call runs out,
   the certificate says so: ``exact`` false, ``min_steps`` null (the task contract keeps that
   field for proven minima) and ``min_steps_bounds`` = [proven lower bound, witness length].
"""

from __future__ import annotations

import time
from typing import Any

from arena_gen.core.errors import VerificationError
from arena_gen.core.game import play
from arena_gen.core.task import Certificate
from arena_gen.envs.repo.bmc import Bmc, trace
from arena_gen.envs.repo.game_v1 import Repo, RepoGame
from arena_gen.envs.repo.sat import cover_lower_bound, static_check

VERIFIER_VERSION = 1
COUNT_CAP = 2000
DEFAULT_CONFLICTS = 200_000


def verify(task: Any) -> Certificate:
    """Prove a repo world solvable through the install dynamics, with its minimum and a plan."""
    start = time.perf_counter()
    world = task.world
    static = static_check(world, cap=COUNT_CAP)
    facts: dict[str, Any] = {
        "solution_is_model": static.solution_is_model,
        "success_configs": static.count,
        "success_configs_capped": static.capped,
        "static_clauses": static.clauses,
    }
    max_steps = max(2, int(task.budget) // 4)
    if not static.solution_is_model:
        return Certificate(False, "sat-bmc", None, [], VERIFIER_VERSION,
                           time.perf_counter() - start, facts)
    engine = Bmc(world)
    try:
        writes = [(m.action[1:], m.writes) for m in engine.actions if m.action[0] == "inst"]
        lower = cover_lower_bound(engine.rules, writes)
        facts["cover_lower_bound"] = lower
        budget = int(task.params.get("bmc_conflicts", DEFAULT_CONFLICTS))
        result = engine.solve(max_T=max_steps - 1, start_T=max(1, lower - 1),
                              conf_budget=budget)
    finally:
        engine.close()
    facts.update({"exact": result.exact, "lower_bound": max(lower, result.lower_bound),
                  "sat_calls": result.sat_calls, "bmc_variables": result.variables,
                  "bmc_clauses": result.clauses, "searched_up_to": max_steps})
    witness = result.witness
    if result.min_steps is not None:
        _replay_rules(engine.game, witness)
        if not result.exact:  # a bound only: tighten the plan by deleting commands
            witness = shorten(engine.game, witness)
            facts["bmc_plan_length"] = result.min_steps
            facts["exact"] = len(witness) == facts["lower_bound"]
    exact = bool(witness) and bool(facts["exact"])
    if witness:
        facts["min_steps_bounds"] = [facts["lower_bound"], len(witness)]
    return Certificate(solvable=result.min_steps is not None, method="sat-bmc",
                       min_steps=len(witness) if exact else None, witness=witness,
                       verifier_version=VERIFIER_VERSION, seconds=time.perf_counter() - start,
                       facts=facts)


def _reaches(game: RepoGame, plan: list[str]) -> bool:
    """Whether every command of the body changes the configuration (by the game's command rule)
    and the last one then succeeds (by the game's own success rule)."""
    states = trace(game, plan[:-1])
    if states is None:
        return False
    after, _ = game.act(Repo(states[-1]), plan[-1])
    return game.success(after)


def _replay_rules(game: RepoGame, plan: list[str]) -> None:
    """Play the BMC plan through the game before the builder replays it: it must succeed on
    its last command, every command valid and state-changing."""
    result = play(game, plan)
    if not (result.success and result.steps == len(plan) and _reaches(game, plan)
            and all(e.valid for e in result.events)):
        raise VerificationError("BMC plan does not reach success through the game's rules")


def shorten(game: RepoGame, plan: list[str]) -> list[str]:
    """Drop commands (one, then two at a time) while the plan still succeeds: a better bound."""
    changed = True
    while changed:
        changed = False
        body = plan[:-1]
        for width in (1, 2):
            for i in range(len(body)):
                for j in range(i + 1, len(body)) if width == 2 else [i + 1]:
                    cand = body[:i] + body[i + 1:j] + body[j + 1:] if width == 2 else \
                        body[:i] + body[i + 1:]
                    if _reaches(game, cand + plan[-1:]):
                        plan, changed = cand + plan[-1:], True
                        break
                if changed:
                    break
            if changed:
                break
    return plan
