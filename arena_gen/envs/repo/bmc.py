"""Dynamic layer of the repo verifier: exact minimum command count by SAT bounded model checking.

Time steps ``0..T`` each hold one-hot state variables (Python unset | 3.8..3.11, and per package
absent | version); one action per step (select a Python, install an exact version, uninstall).
An install's effect on each package is a table ``old value -> new value`` computed by the env's
own :func:`~arena_gen.envs.repo.game_v1.adjust` through ``Rules.adjustments``; its preconditions
(Requires-Python, medium dependencies present, conflicts on the post-state in both directions)
come from the same compiled rules. Failed and no-op commands never shorten a plan, so they are
left out. The last state must satisfy the static success clauses. One incremental solver holds
the unrolling; the success clauses of each bound ``T`` sit behind an assumption literal.

A plan of ``T`` state-changing commands pads to ``T + 1`` (an extra Python selection first), so
refuting ``T`` refutes every shorter bound. The search ascends from a proven lower bound while
bounds are refuted; the first satisfiable bound is then the exact minimum ``T + 1`` (the final
``python run.py`` included).

Adjacent independent commands (disjoint reads and writes) are kept in one canonical order, a
sound partial-order reduction: swapping two adjacent independent commands gives the same state.
Each solver call has a deterministic conflict budget. If a call runs out, the search jumps
upwards geometrically until a plan is found and then descends from it until a bound is refuted
(exact again) or a call runs out: the result is then a pair of bounds, ``exact`` false.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pysat.card import CardEnc, EncType
from pysat.formula import IDPool
from pysat.solvers import Solver

from arena_gen.core.game import WorldView
from arena_gen.envs.repo.common import ABSENT, adjust
from arena_gen.envs.repo.game_v1 import RepoGame, Rules, State
from arena_gen.envs.repo.sat import SOLVER, success_clauses

Action = tuple[str, int, int]  # ("py", i, 0) | ("inst", p, v) | ("uninst", p, 0)


@dataclass
class ActionModel:
    """What one command reads, writes (as value tables) and requires, for the encoding."""

    action: Action
    text: str
    writes: dict[int, list[int]]  # package -> new value per old value (index o + 1); -2 = python
    reads: set[int]
    python: frozenset[int] | None = None  # allowed Python indices (install preconditions)
    need_present: list[int] = field(default_factory=list)
    post_forbid: list[tuple[int, int]] = field(default_factory=list)  # (package, value) after
    not_value: tuple[int, int] | None = None  # the command is a no-op when (package, value) now


PY = -2


def action_models(rules: Rules) -> list[ActionModel]:
    """Every command that can change a state, with its tables (built from the env's rules)."""
    out: list[ActionModel] = []
    for i, name in enumerate(rules.pythons):
        out.append(ActionModel(("py", i, 0), f"pip install python=={name}", {PY: []}, {PY}))
    for p in range(rules.n):
        dom = list(range(-1, len(rules.versions[p])))
        for v, rel in enumerate(rules.releases[p]):
            writes: dict[int, list[int]] = {}
            reads: set[int] = {p}
            for _kind, q, _allowed in rules.adjustments(p, v):
                reads.add(q)
                writes.setdefault(q, list(range(-1, len(rules.versions[q]))))
            for q in writes:
                table = []
                for o in range(-1, len(rules.versions[q])):
                    val = o
                    for kind, q2, allowed in rules.adjustments(p, v):
                        if q2 == q:
                            val = adjust(kind, allowed, val)
                    table.append(val)
                writes[q] = table
            writes[p] = [v] * len(dom)
            model = ActionModel(("inst", p, v), f"pip install {rules.names[p]}=="
                                f"{rules.vname(p, v)}", writes, reads, not_value=(p, v))
            if rel.python is not None:
                model.python = rel.python
                reads.add(PY)
            if rules.priority[p] == "medium":
                model.need_present = [q for q, _, _ in rel.deps]
                reads.update(model.need_present)
            for q, allowed in rel.conflicts:
                model.post_forbid.extend((q, u) for u in sorted(allowed))
                reads.add(q)
            for q, w, allowed in rules.against[p]:
                if v in allowed and q != p:
                    model.post_forbid.append((q, w))
                    reads.add(q)
            out.append(model)
        out.append(ActionModel(("uninst", p, 0), f"pip uninstall {rules.names[p]}",
                               {p: [ABSENT] * len(dom)}, {p}, not_value=(p, ABSENT)))
    return out


def _independent(a: ActionModel, b: ActionModel) -> bool:
    wa, wb = set(a.writes), set(b.writes)
    return not (wa & (wb | b.reads)) and not (wb & a.reads)


@dataclass
class BmcResult:
    """The minimum found (exact or a bound), its plan and the solver facts."""

    min_steps: int | None
    exact: bool
    lower_bound: int
    witness: list[str]
    sat_calls: int
    variables: int
    clauses: int


class Bmc:
    """Incremental BMC of one world's install transition."""

    def __init__(self, world: dict[str, Any], *, por: bool = True) -> None:
        self.game = RepoGame(WorldView(world))
        self.rules = self.game.rules
        self.actions = action_models(self.rules)
        self.por_pairs: list[tuple[int, int]] = []
        if por:
            idx = range(len(self.actions))
            self.por_pairs = [(i, j) for i in idx for j in idx
                              if i > j and _independent(self.actions[i], self.actions[j])]
        self.pool = IDPool()
        self.solver = Solver(name=SOLVER)
        self.n_clauses = 0
        self.T = 0
        self.calls = 0
        self.guards: dict[int, int] = {}
        r = self.rules
        self._add([[self.py(0, ABSENT)]] + [[self.x(0, q, ABSENT)] for q in range(r.n)])
        self._one_hot(0)

    # -- variables ------------------------------------------------------------------------------
    def x(self, t: int, q: int, o: int) -> int:
        return self.pool.id(("x", t, q, o))

    def py(self, t: int, i: int) -> int:
        return self.pool.id(("py", t, i))

    def act(self, t: int, a: int) -> int:
        return self.pool.id(("a", t, a))

    def _val(self, t: int, q: int, o: int) -> int:
        return self.py(t, o) if q == PY else self.x(t, q, o)

    def _domain(self, q: int) -> range:
        return range(-1, len(self.rules.pythons) if q == PY else len(self.rules.versions[q]))

    def _add(self, clauses: list[list[int]]) -> None:
        for c in clauses:
            self.solver.add_clause(c)
        self.n_clauses += len(clauses)

    def _one_hot(self, t: int) -> None:
        for q in [PY, *range(self.rules.n)]:
            group = [self._val(t, q, o) for o in self._domain(q)]
            self._add([group] + [[-a, -b] for i, a in enumerate(group) for b in group[i + 1:]])

    # -- one step -------------------------------------------------------------------------------
    def _step(self, t: int) -> None:
        """Add the transition from step ``t`` to ``t + 1``."""
        self._one_hot(t + 1)
        acts = [self.act(t, a) for a in range(len(self.actions))]
        card = CardEnc.equals(lits=acts, bound=1, vpool=self.pool, encoding=EncType.seqcounter)
        self._add(card.clauses)
        writers: dict[int, list[int]] = {}
        for a, model in enumerate(self.actions):
            lit = acts[a]
            kind, i, _ = model.action
            if kind == "py":
                self._add([[-lit, -self.py(t, i)], [-lit, self.py(t + 1, i)]])
                writers.setdefault(PY, []).append(lit)
                continue
            if model.not_value is not None:
                q, o = model.not_value
                self._add([[-lit, -self.x(t, q, o)]])
            for q, table in model.writes.items():
                writers.setdefault(q, []).append(lit)
                for o, new in zip(self._domain(q), table, strict=True):
                    self._add([[-lit, -self.x(t, q, o), self.x(t + 1, q, new)]])
            if model.python is not None:
                self._add([[-lit] + [self.py(t, j) for j in sorted(model.python)]])
            self._add([[-lit, -self.x(t, q, ABSENT)] for q in model.need_present])
            self._add([[-lit, -self.x(t + 1, q, u)] for q, u in model.post_forbid])
        for q in [PY, *range(self.rules.n)]:
            for o in self._domain(q):
                self._add([[-self._val(t, q, o), self._val(t + 1, q, o)] + writers.get(q, [])])
        if t > 0:
            self._add([[-self.act(t - 1, i), -self.act(t, j)] for i, j in self.por_pairs])

    def _goal(self, t: int) -> int:
        """Success at step ``t`` behind a guard literal (an assumption of the query)."""
        guard = self.pool.id(("goal", t))
        clauses = success_clauses(self.rules, lambda q, o: self.x(t, q, o),
                                  lambda i: self.py(t, i))
        self._add([[-guard] + c for c in clauses])
        return guard

    def _plan(self, T: int, model: set[int]) -> list[str]:
        plan = []
        for t in range(T):
            a = next(a for a in range(len(self.actions)) if self.act(t, a) in model)
            plan.append(self.actions[a].text)
        return plan + ["python run.py"]

    def _query(self, T: int, conf_budget: int | None) -> list[str] | bool | None:
        """Is there a plan of exactly ``T`` state-changing commands? Plan, False or unknown."""
        while self.T < T:
            self._step(self.T)
            self.T += 1
        if T not in self.guards:
            self.guards[T] = self._goal(T)
        self.calls += 1
        if conf_budget is None:
            status = self.solver.solve(assumptions=[self.guards[T]])
        else:
            self.solver.conf_budget(conf_budget)
            status = self.solver.solve_limited(assumptions=[self.guards[T]])
        if status is True:
            return self._plan(T, set(v for v in self.solver.get_model() if v > 0))
        return status

    def solve(self, *, max_T: int, conf_budget: int | None = None,
              start_T: int = 1) -> BmcResult:
        """Minimum plan length; ``start_T`` must be a proven lower bound on the transitions.

        Plans of ``T`` commands can always be padded to ``T + 1`` (one extra Python selection
        first), so "no plan of ``T``" also refutes every shorter bound. Ascend from ``start_T``
        while calls are refuted; after a call runs out of budget, jump geometrically to find a
        plan, then descend until a bound is refuted (exact) or a call runs out (bounds only).
        """
        lower = start_T + 1  # proven: minimum commands >= lower
        best: list[str] | None = None
        T = start_T
        while T <= max_T:
            got = self._query(T, conf_budget)
            if isinstance(got, list):
                best = got
                break
            if got is None:
                break
            lower, T = T + 2, T + 1
        if best is None and T <= max_T:  # a call ran out: look further up for any plan
            unknown, jump = T, 1
            while True:
                T = min(max_T, unknown + jump)
                got = self._query(T, conf_budget)
                if isinstance(got, list):
                    best = got
                    break
                if T == max_T:
                    break
                if got is False:
                    lower, unknown, jump = T + 2, T, 1
                else:
                    jump *= 2
            while best is not None and len(best) > lower:  # descend from the plan found
                got = self._query(len(best) - 2, conf_budget)
                if isinstance(got, list):
                    best = got
                    continue
                if got is False:
                    lower = len(best)
                break
        if best is None:
            return BmcResult(None, False, lower, [], self.calls, self.pool.top, self.n_clauses)
        return BmcResult(len(best), len(best) == lower, lower, best, self.calls, self.pool.top,
                         self.n_clauses)

    def close(self) -> None:
        self.solver.delete()


def trace(game: RepoGame, body: list[str]) -> list[State] | None:
    """The configurations before and after each command of a plan body, by the game's own
    command rule (``RepoGame.command``); None if a command fails or changes nothing."""
    states = [game.initial().config]
    for text in body:
        nxt, _ = game.command(states[-1], game.parse(text))
        if nxt == states[-1]:
            return None
        states.append(nxt)
    return states


def bmc(world: dict[str, Any], *, max_T: int, conf_budget: int | None = None,
        por: bool = True) -> BmcResult:
    """Exact minimum commands (including the final ``python run.py``) by incremental BMC."""
    engine = Bmc(world, por=por)
    try:
        return engine.solve(max_T=max_T, conf_budget=conf_budget)
    finally:
        engine.close()
