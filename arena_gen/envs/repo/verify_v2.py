"""Repo v2 verifier: exact minimum command count by SAT bounded model checking of the game.

Every released Requires-Python bound is ``>=`` (checked here: a bound met by some Python is met
by the newest), so selecting the newest Python first never hurts: a plan's failed commands are
no-ops and can be dropped, and every install that succeeded still succeeds. The minimum is then
1 (Python) + the fewest state-changing package commands reaching a state where every entrypoint
passes + 1 (``python run.py``).

The encoding is built from what the game exposes: each install's :class:`InstallPlan` (its
static preconditions, ``touches`` and the per-package ``update`` table) and the run-time
predicates as clauses (:func:`success_clauses`, differentially tested against
``RepoGameV2.run_ok``). Per step: one-hot package values (absent | version); exactly one of the
install / uninstall / idle actions; the idle action makes bounds monotone, so the first
satisfiable bound, searched upwards, is the exact minimum. The plan is replayed through the game.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from pysat.card import CardEnc, EncType
from pysat.formula import IDPool
from pysat.solvers import Solver

from arena_gen.core.errors import VerificationError
from arena_gen.core.game import WorldView, play
from arena_gen.core.task import Certificate
from arena_gen.envs.repo.common import ABSENT
from arena_gen.envs.repo.game_v2 import RepoGameV2
from arena_gen.envs.repo.semver import holds, version_text

VERIFIER_VERSION = 1
SOLVER = "cadical153"


@dataclass
class Move:
    """One state-changing command: its text, static feasibility and value tables."""

    text: str
    package: int
    version: int | None  # None = uninstall
    tables: dict[int, list[int]] = field(default_factory=dict)  # q -> new value per old value+1
    need_present: list[int] = field(default_factory=list)
    forbid: list[tuple[int, int]] = field(default_factory=list)  # (q, old value) that fail


def newest_python(game: RepoGameV2) -> int:
    """The index of the newest Python, after checking that it meets every bound any Python
    meets (the reduction in the module docstring)."""
    r = game.rules
    best = max(range(len(r.pythons)), key=lambda i: r.pythons[i])
    for plans in r.plans:
        for plan in plans:
            if plan.python is None:
                continue
            op, target = plan.python
            if any(holds(py, op, target) for py in r.pythons) and \
                    not holds(r.pythons[best], op, target):
                raise VerificationError(f"Requires-Python {op}{version_text(target)} is not upward "
                                        f"closed; the v2 verifier needs >= bounds")
    return best


def moves(game: RepoGameV2, python: int) -> list[Move]:
    """Every install and uninstall that can change a state with ``python`` selected."""
    r = game.rules
    out: list[Move] = []
    for p in range(r.n):
        for v in range(len(r.versions[p])):
            plan = game.install_plan(p, v)
            if plan.python is not None and not holds(r.pythons[python], *plan.python):
                continue
            if plan.priority == "high" and (any(not a for _, a in plan.deps) or
                                            any(not a for _, _, a in plan.effects)):
                continue
            if plan.priority == "medium" and any(not a for _, a in plan.deps):
                continue
            m = Move(f"pip install {r.names[p]}=={r.vname(p, v)}", p, v)
            if plan.priority == "medium":
                m.need_present = list(dict.fromkeys(q for q, _ in plan.deps))
            values = [ABSENT] + list(range(len(r.versions[p])))
            pre: dict[int, list[int]] = {}
            moved_self: list[bool] = [False] * (len(r.versions[p]) + 1)
            for q in plan.touches():
                qvals = [ABSENT] + list(range(len(r.versions[q])))
                row = [plan.update(q, o) for o in qvals]
                pre[q] = [x for x, _ in row]
                if q == p:
                    moved_self = [mv for _, mv in row]
            for q, versions, _ in plan.conflicts:
                qvals = [ABSENT] + list(range(len(r.versions[q])))
                for o in qvals:
                    after = pre[q][o + 1] if q in pre else o
                    if after != ABSENT and after in versions:
                        m.forbid.append((q, o))
            m.tables = {q: row for q, row in pre.items() if q != p}
            m.tables[p] = [pre[p][o + 1] if moved_self[o + 1] else v for o in values] \
                if p in pre else [v] * len(values)
            out.append(m)
        out.append(Move(f"pip uninstall {r.names[p]}", p, None,
                        tables={p: [ABSENT] * (len(r.versions[p]) + 1)},
                        forbid=[(p, ABSENT)]))
    return out


Literal = tuple[int, int, bool]  # (package, value or ABSENT, positive)


def success_clauses(game: RepoGameV2) -> list[list[Literal]]:
    """The run-success condition as CNF over ``(package, value, positive)`` literals: every
    entrypoint's consistency rules, calls, symbol requirements and hidden rules."""
    r = game.rules
    eps = r.entrypoints
    touched = set().union(*(r.touched[p] for p in eps)) if eps else set()
    out: list[list[Literal]] = []

    def good(call: Any) -> list[int]:
        return [v for v in range(len(r.versions[call.provider]))
                if game.call_failure(_only(r.n, call.provider, v), call, None) is None]

    for kind, anchor, members, _ in r.consistency:
        if not any(pth for pth in eps if anchor in r.touched[pth] or
                   any(m in r.touched[pth] for m in members)):
            continue
        for a in range(len(r.versions[anchor])):
            av = r.versions[anchor][a]
            for m in members:
                for x in range(len(r.versions[m])):
                    mv = r.versions[m][x]
                    bad = mv[0] != av[0] if kind == "same_major_with_anchor" else \
                        mv != av if kind == "same_minor_with_anchor" else False
                    if bad and m != anchor:
                        out.append([(anchor, a, False), (m, x, False)])
    for pth in eps:
        for call in r.calls[pth]:
            out.append([(call.provider, v, True) for v in good(call)])
    for (caller, cv), reqs in r.needs.items():
        if caller in touched:
            for call in reqs:
                out.append([(caller, cv, False)] + [(call.provider, v, True)
                                                    for v in good(call)])
    for when, scopes, _ in r.hidden:
        if any(pth in scopes for pth in eps) or "run.py" in scopes or "*" in scopes:
            out.append([(q, w, True) for q, allowed in when
                        for w in range(-1, len(r.versions[q])) if w not in allowed])
    return out


def _only(n: int, p: int, v: int) -> tuple[int, ...]:
    return tuple(v if q == p else ABSENT for q in range(n))


def clause_holds(clause: list[Literal], installed: tuple[int, ...]) -> bool:
    """Whether one success clause holds for installed values."""
    return any((installed[q] == x) == pos for q, x, pos in clause)


@dataclass
class Result:
    """The BMC outcome."""

    commands: list[str] | None
    sat_calls: int
    variables: int
    clauses: int


class Bmc:
    """The incremental unrolling (see the module docstring); with ``empty_start`` false layer 0
    is left free, so one solver answers from many start configurations given as assumptions
    (:meth:`start_literals`)."""

    def __init__(self, game: RepoGameV2, python: int, *, empty_start: bool = True) -> None:
        self.game, self.r = game, game.rules
        self.moves = moves(game, python)
        self.goal = success_clauses(game)
        self.pool = IDPool()
        self.solver = Solver(name=SOLVER)
        self.nclauses = 0
        self.layers = 0
        self._state(0)
        if empty_start:
            for p in range(self.r.n):
                self._add([self.x(0, p, ABSENT)])

    def start_literals(self, installed: tuple[int, ...]) -> list[int]:
        """Assumptions that put layer 0 at ``installed`` (a value or ABSENT per package)."""
        return [self.x(0, p, v) for p, v in enumerate(installed)]

    def x(self, t: int, p: int, value: int) -> int:
        return self.pool.id(("x", t, p, value))

    def _add(self, clause: list[int]) -> None:
        self.solver.add_clause(clause)
        self.nclauses += 1

    def _card(self, lits: list[int]) -> None:
        enc = CardEnc.equals(lits=lits, bound=1, vpool=self.pool, encoding=EncType.seqcounter)
        for c in enc.clauses:
            self._add(c)

    def _state(self, t: int) -> None:
        for p in range(self.r.n):
            self._card([self.x(t, p, v) for v in range(-1, len(self.r.versions[p]))])

    def extend(self) -> None:
        """Add the transition from layer ``layers`` to the next."""
        t = self.layers
        self._state(t + 1)
        acts = [self.pool.id(("a", t, i)) for i in range(len(self.moves))]
        idle = self.pool.id(("idle", t))
        self._card(acts + [idle])
        writers: dict[int, list[int]] = {p: [] for p in range(self.r.n)}
        for a, m in zip(acts, self.moves, strict=True):
            if m.version is not None:
                self._add([-a, -self.x(t, m.package, m.version)])  # no no-ops
            for q in m.need_present:
                self._add([-a, -self.x(t, q, ABSENT)])
            for q, o in m.forbid:
                self._add([-a, -self.x(t, q, o)])
            for q, row in m.tables.items():
                writers[q].append(a)
                for o, new in enumerate(row):
                    self._add([-a, -self.x(t, q, o - 1), self.x(t + 1, q, new)])
        for p in range(self.r.n):
            for v in range(-1, len(self.r.versions[p])):
                self._add([self.x(t, p, v), -self.x(t + 1, p, v)] + writers[p])
                self._add([-self.x(t, p, v), self.x(t + 1, p, v)] + writers[p])
        self.layers += 1

    def goal_literal(self, t: int) -> int:
        """An assumption literal that makes layer ``t`` a success state."""
        g = self.pool.id(("goal", t))
        for clause in self.goal:
            lits = [self.x(t, q, x) if pos else -self.x(t, q, x) for q, x, pos in clause]
            self._add([-g] + lits)
        return g

    def solve(self, max_t: int) -> Result:
        calls = 0
        t = 0
        while True:
            g = self.goal_literal(t)
            calls += 1
            if self.solver.solve(assumptions=[g]):
                model = set(lit for lit in self.solver.get_model() or [] if lit > 0)
                plan = []
                for s in range(t):
                    for i, m in enumerate(self.moves):
                        if self.pool.id(("a", s, i)) in model:
                            plan.append(m.text)
                return Result(plan, calls, self.pool.top, self.nclauses)
            if t >= max_t:
                return Result(None, calls, self.pool.top, self.nclauses)
            self.extend()
            t += 1

    def close(self) -> None:
        self.solver.delete()


def verify(task: Any) -> Certificate:
    """Prove a repo v2 world solvable with its exact minimum and a replayed witness plan."""
    start = time.perf_counter()
    game = RepoGameV2(WorldView(task.world, task.public, task.budget))
    python = newest_python(game)
    engine = Bmc(game, python)
    try:
        limit = int(task.params.get("search_limit", task.budget)) if hasattr(task, "params") \
            else int(task.budget)
        result = engine.solve(max_t=max(0, limit - 2))
    finally:
        engine.close()
    facts: dict[str, Any] = {"sat_calls": result.sat_calls, "bmc_variables": result.variables,
                             "bmc_clauses": result.clauses, "moves": len(engine.moves),
                             "success_clauses": len(engine.goal), "exact": True}
    if result.commands is None:
        return Certificate(False, "sat-bmc", None, [], VERIFIER_VERSION,
                           time.perf_counter() - start, facts)
    witness = [f"pip install python=={version_text(game.rules.pythons[python])}", *result.commands,
               "python run.py"]
    played = play(game, witness)
    if not (played.success and played.steps == len(witness) and
            all(e.valid for e in played.events)):
        raise VerificationError("BMC plan does not reach success through the game's rules")
    return Certificate(solvable=True, method="sat-bmc", min_steps=len(witness), witness=witness,
                       verifier_version=VERIFIER_VERSION, seconds=time.perf_counter() - start,
                       facts=facts)
