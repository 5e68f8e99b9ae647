"""Repo v3 verifier: exact minimum by SAT BMC of the v2 game from a cover lower bound, a replayed
witness, and the size of the success set.

The minimum is 1 (the newest Python, as in v2) + the fewest package commands + 1 (``python
run.py``). The v2 unrolling (:class:`~.repo2.Bmc`, the same move tables built from the game's
install plans) is asked for a plan of exactly :func:`cover_bound` commands, then one more, and
so on: the bound skips the layers below it, whose refutations grow steeply with the package
count (a 22-package world: 27 s to refute 8 commands, 53 s for 9 by the plain upward search),
and where it is tight no refutation is needed at all. Each SAT call is capped (the preset's
``bmc_conflicts``); a minimum not proven within the cap is reported as bounds, and the
acceptance resamples such a world, so every accepted task is exact.

The success set is every assignment of the packages (absent or one version each) under which
``python run.py`` passes with a Python selected: the models of
:func:`~.repo2.success_clauses` (run time reads the Python only as "one is selected"). It is
counted exactly, per connected component of the clauses' package graph (a package no clause
names contributes its versions + 1), by enumerating each component's models with python-sat,
up to ``cap`` per component; ``success_capped`` says a component reached the cap (the count is
then a lower bound).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from pysat.examples.rc2 import RC2
from pysat.formula import WCNF, IDPool
from pysat.solvers import Solver

from arena_gen.core.errors import VerificationError
from arena_gen.core.game import WorldView, play
from arena_gen.core.task import Certificate
from arena_gen.envs.repo.common import ABSENT
from arena_gen.envs.repo.game_v2 import RepoGameV2
from arena_gen.envs.repo.semver import version_text
from arena_gen.envs.repo.verify_v2 import SOLVER, Bmc, Literal, Move, newest_python, success_clauses

VERIFIER_VERSION = 1
CAP = 100_000


def count_success(game: RepoGameV2, cap: int = CAP) -> tuple[int, bool]:
    """The number of success configurations, and whether a component reached ``cap``."""
    r = game.rules
    clauses = success_clauses(game)
    parent = list(range(r.n))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for clause in clauses:
        for q, _, _ in clause[1:]:
            parent[find(q)] = find(clause[0][0])
    comps: dict[int, list[int]] = {}
    for p in range(r.n):
        comps.setdefault(find(p), []).append(p)
    total, capped = 1, False
    for root, members in sorted(comps.items()):
        own = [c for c in clauses if c and find(c[0][0]) == root]
        if not own:
            for p in members:
                total *= len(r.versions[p]) + 1
            continue
        var = {(p, v): i + 1 for i, (p, v) in enumerate(
            (p, v) for p in members for v in range(-1, len(r.versions[p])))}
        solver = Solver(name=SOLVER)
        try:
            for p in members:
                lits = [var[(p, v)] for v in range(-1, len(r.versions[p]))]
                solver.add_clause(lits)
                for i, a in enumerate(lits):
                    for b in lits[i + 1:]:
                        solver.add_clause([-a, -b])
            for c in own:
                solver.add_clause([var[(q, x)] if pos else -var[(q, x)] for q, x, pos in c])
            found = 0
            while found < cap and solver.solve():
                found += 1
                solver.add_clause([-lit for lit in solver.get_model() or [] if lit > 0])
            capped = capped or found >= cap
        finally:
            solver.delete()
        total *= found
    return total, capped


def cover_bound(game: RepoGameV2, moves: list[Move], goal: list[list[Literal]]) -> int | None:
    """A lower bound on the package commands of any plan: the fewest installs that, over some
    success configuration, can each leave a present package at its final version (None: no
    success configuration at all).

    Sound because in a plan reaching a success state, each present package's final value was
    written by some command (its own install or a high-priority adjustment of another's), and
    that command's move can produce that value; and a medium-priority install's dependencies
    were put there by earlier commands. So the plan's commands form such a cover. It ignores
    order and clobbering, which is what the BMC then adds."""
    r = game.rules
    pool = IDPool()

    def x(q: int, v: int) -> int:
        return pool.id(("x", q, v))

    wcnf = WCNF()
    for q in range(r.n):
        lits = [x(q, v) for v in range(-1, len(r.versions[q]))]
        wcnf.append(lits)
        for i, a in enumerate(lits):
            for b in lits[i + 1:]:
                wcnf.append([-a, -b])
    for clause in goal:
        wcnf.append([x(q, v) if pos else -x(q, v) for q, v, pos in clause])
    producers: dict[tuple[int, int], list[int]] = {}
    for i, m in enumerate(moves):
        if m.version is None:
            continue
        u = pool.id(("u", i))
        wcnf.append([-u], weight=1)
        for q, row in m.tables.items():
            for v in set(row) - {ABSENT}:
                producers.setdefault((q, v), []).append(u)
    for q in range(r.n):
        for v in range(len(r.versions[q])):
            wcnf.append([-x(q, v)] + producers.get((q, v), []))
    for i, m in enumerate(moves):  # a medium install needs its dependencies put there before
        for q in m.need_present:
            wcnf.append([-pool.id(("u", i))] + sorted({
                u for v in range(len(r.versions[q])) for u in producers.get((q, v), [])
                if u != pool.id(("u", i))}))
    with RC2(wcnf) as rc2:
        return None if rc2.compute() is None else int(rc2.cost)


@dataclass
class Plan:
    """A plan search's outcome: the Python index, the package commands (None: none found),
    whether they are proven shortest, the proven lower bound and the SAT calls made."""

    python: int
    commands: list[str] | None
    exact: bool
    lower: int
    sat_calls: int
    variables: int = 0
    clauses: int = 0
    moves: int = 0
    goal: int = 0
    cover: int | None = None  # the cover bound the search started from


def shortest_plan(game: RepoGameV2, max_t: int, conflicts: int | None = None) -> Plan:
    """Package commands (after selecting the newest Python) that make every entrypoint pass.

    The search starts at :func:`cover_bound` and asks the v2 BMC (idle steps make bounds
    monotone) for a plan of exactly that many commands, then one more, and so on up to
    ``max_t``: the first satisfiable bound is the exact minimum. ``conflicts`` caps each SAT
    call; a call that runs out leaves the plan unproven (``exact`` false, ``commands`` None)."""
    python = newest_python(game)
    engine = Bmc(game, python)
    calls = 0
    try:
        lower = cover_bound(game, engine.moves, engine.goal)
        done = Plan(python, None, lower is not None, max_t + 1 if lower is None else lower, 0,
                    moves=len(engine.moves), goal=len(engine.goal), cover=lower)
        if lower is None or lower > max_t:
            return done
        while engine.layers < lower:
            engine.extend()
        while True:
            t = engine.layers
            g = engine.goal_literal(t)
            calls += 1
            if conflicts is not None:
                engine.solver.conf_budget(conflicts)
            verdict = engine.solver.solve_limited(assumptions=[g])
            done.sat_calls, done.variables, done.clauses = calls, engine.pool.top, \
                engine.nclauses
            if verdict is None:
                done.exact, done.lower = False, t
                return done
            if verdict:
                model = {lit for lit in engine.solver.get_model() or [] if lit > 0}
                done.commands = [m.text for s in range(t) for i, m in enumerate(engine.moves)
                                 if engine.pool.id(("a", s, i)) in model]
                done.lower = t
                return done
            if t >= max_t:
                done.lower = t + 1
                return done
            engine.extend()
    finally:
        engine.close()


def some_plan(game: RepoGameV2, max_t: int, conflicts: int) -> Plan:
    """A plan, not necessarily shortest, found fast: the shortest search with ``conflicts`` per
    call; where a call runs out, the bound jumps by 4 (slack makes a plan easy to find), and
    the last try, at ``max_t``, has no cap."""
    plan = shortest_plan(game, max_t, conflicts)
    while plan.commands is None and not plan.exact and plan.lower <= max_t:
        t = min(max_t, plan.lower + 4)
        plan = _solve_at(game, t, None if t >= max_t else conflicts)
        if plan.commands is None and plan.exact:  # no plan within t: try further out
            plan = Plan(plan.python, None, False, t + 1, plan.sat_calls)
    return plan


def _solve_at(game: RepoGameV2, t: int, conflicts: int | None) -> Plan:
    """One SAT call: a plan of at most ``t`` package commands (exact false: not proven
    shortest; a refutation is reported as ``exact`` with no commands)."""
    python = newest_python(game)
    engine = Bmc(game, python)
    try:
        while engine.layers < t:
            engine.extend()
        g = engine.goal_literal(t)
        if conflicts is not None:
            engine.solver.conf_budget(conflicts)
        verdict = engine.solver.solve_limited(assumptions=[g])
        if verdict is None:
            return Plan(python, None, False, t, 1)
        if not verdict:
            return Plan(python, None, True, t + 1, 1)
        model = {lit for lit in engine.solver.get_model() or [] if lit > 0}
        return Plan(python, [m.text for s in range(t) for i, m in enumerate(engine.moves)
                             if engine.pool.id(("a", s, i)) in model], False, 0, 1)
    finally:
        engine.close()


def verify(task: Any) -> Certificate:
    """Solvability, the exact minimum and a replayed witness, and the success-set size.

    The count comes first, capped just above the task's ``success_max``: a world with a looser
    success set is rejected by the acceptance whatever its plan, so its BMC is skipped and the
    certificate says so (``solvable`` false, ``skipped: "loose"``; never frozen). Then
    :func:`shortest_plan` from the cover bound, each SAT call capped at ``bmc_conflicts``: an
    unproven minimum leaves ``exact`` false with ``min_steps_bounds`` (the acceptance rejects
    it, so every accepted task's minimum is exact)."""
    start = time.perf_counter()
    game = RepoGameV2(WorldView(task.world, task.public, task.budget))
    params = getattr(task, "params", {})
    limit = int(params.get("success_max", CAP))
    count, capped = count_success(game, limit + 1)
    facts: dict[str, Any] = {"success_configurations": count, "success_capped": capped}
    if count > limit:
        facts["skipped"] = "loose"
        return Certificate(False, "sat-bmc", None, [], VERIFIER_VERSION,
                           time.perf_counter() - start, facts)
    max_t = max(0, int(params.get("search_limit", task.budget)) - 2)
    conflicts = params.get("bmc_conflicts")
    plan = shortest_plan(game, max_t, None if conflicts is None else int(conflicts))
    facts.update({"sat_calls": plan.sat_calls, "bmc_variables": plan.variables,
                  "bmc_clauses": plan.clauses, "moves": plan.moves,
                  "success_clauses": plan.goal, "exact": plan.exact,
                  "cover_bound": None if plan.cover is None else plan.cover + 2})
    seconds = time.perf_counter() - start
    if plan.commands is None:
        if not plan.exact:
            facts["min_steps_bounds"] = [plan.lower + 2, None]
        return Certificate(False, "sat-bmc", None, [], VERIFIER_VERSION, seconds, facts)
    witness = [f"pip install python=={version_text(game.rules.pythons[plan.python])}",
               *plan.commands, "python run.py"]
    played = play(game, witness)
    if not (played.success and played.steps == len(witness) and
            all(e.valid for e in played.events)):
        raise VerificationError("BMC plan does not reach success through the game's rules")
    return Certificate(True, "sat-bmc", len(witness), witness, VERIFIER_VERSION,
                       time.perf_counter() - start, facts)
