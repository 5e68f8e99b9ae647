"""Static layer of the repo verifier: the run-success checks of a world as CNF (python-sat).

One one-hot Boolean per (package, absent | version) and per Python version. Every run-time check
of every script (consistency, calls, symbol requirements, declared dependencies and
Requires-Python, hidden rules) becomes clauses read from the compiled :class:`Rules`, so the
clauses describe exactly the configurations where ``python run.py`` succeeds. The BMC reuses
them on its last time step.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pysat.formula import IDPool
from pysat.solvers import Solver

from arena_gen.envs.repo.common import ABSENT
from arena_gen.envs.repo.game_v1 import Rules, State

SOLVER = "glucose4"
Lit = Callable[[int, int], int]


def _ok_versions(rules: Rules, q: int, module: str, symbol: str, kw: str | None) -> list[int]:
    out = []
    for u, rel in enumerate(rules.releases[q]):
        sig = rel.api.get(module, {}).get(symbol)
        if sig is not None and (kw is None or kw in sig):
            out.append(u)
    return out


def success_clauses(rules: Rules, x: Lit, py: Callable[[int], int]) -> list[list[int]]:
    """CNF of "python run.py succeeds"; ``x(q, o)`` / ``py(i)`` give the one-hot variables."""
    clauses: set[tuple[int, ...]] = {tuple(py(i) for i in range(len(rules.pythons)))}
    for s, touched in enumerate(rules.touched):
        path = rules.script_paths[s]
        tset = set(touched)
        for anchor, members, level in rules.consistency:
            if not (set(members) | {anchor}) & tset:
                continue
            for m in members:
                for w, av in enumerate(rules.versions[anchor]):
                    for u, mv in enumerate(rules.versions[m]):
                        if (mv[0] != av[0]) if level == "major" else (mv != av):
                            clauses.add((-x(anchor, w), -x(m, u)))
        for q in touched:
            clauses.add(tuple(x(q, u) for u in range(len(rules.versions[q]))))
        for call in rules.scripts[s]["calls"]:
            q = rules.index[call["pkg"]]
            ok = _ok_versions(rules, q, call["module"], call["symbol"], call.get("keyword"))
            clauses.add(tuple(x(q, u) for u in ok))
        for t in touched:
            for w, rel in enumerate(rules.releases[t]):
                for q, module, symbol, kw in rel.needs:
                    ok = _ok_versions(rules, q, module, symbol, kw)
                    clauses.add((-x(t, w),) + tuple(x(q, u) for u in ok))
                for q, allowed, _ in rel.deps:
                    clauses.add((-x(t, w),) + tuple(x(q, u) for u in sorted(allowed)))
                if rel.python is not None:
                    clauses.add((-x(t, w),) + tuple(py(i) for i in sorted(rel.python)))
        for a, ra, b, rb, scope, _ in rules.hidden:
            if scope in ("*", path):
                for u in sorted(ra):
                    for u2 in sorted(rb):
                        clauses.add((-x(a, u), -x(b, u2)))
    return [list(c) for c in sorted(clauses)]


@dataclass
class StaticResult:
    """Whether the stored solution is a model, and the success-configuration count (capped)."""

    solution_is_model: bool
    count: int
    capped: bool
    variables: int
    clauses: int


class ConfigEncoding:
    """One-hot configuration variables of a world, shared by the static layer and tests."""

    def __init__(self, rules: Rules, pool: IDPool | None = None, tag: str = "c") -> None:
        self.rules = rules
        self.pool = pool or IDPool()
        self.tag = tag
        self.x_vars = [[self.pool.id((tag, "x", q, o)) for o in range(-1, len(vs))]
                       for q, vs in enumerate(rules.versions)]
        self.py_vars = [self.pool.id((tag, "py", i)) for i in range(len(rules.pythons))]

    def x(self, q: int, o: int) -> int:
        return self.x_vars[q][o + 1]

    def py(self, i: int) -> int:
        return self.py_vars[i]

    def one_hot(self) -> list[list[int]]:
        """Exactly one value per package and exactly one Python."""
        out: list[list[int]] = []
        for group in self.x_vars + [self.py_vars]:
            out.append(list(group))
            out.extend([-a, -b] for i, a in enumerate(group) for b in group[i + 1:])
        return out

    def literals(self, state: State) -> list[int]:
        """The assumption literals fixing a full configuration (Python must be set)."""
        return [self.py(state[0])] + [self.x(q, state[1 + q]) for q in range(self.rules.n)]

    def decode(self, model: set[int]) -> State:
        py = next(i for i, v in enumerate(self.py_vars) if v in model)
        vals = [next(o - 1 for o, v in enumerate(g) if v in model) for g in self.x_vars]
        return (py, *vals)


def solution_state(rules: Rules, world: dict[str, Any]) -> State:
    """The stored ground-truth configuration as a state."""
    sol = world["solution"]
    vals = []
    for q, name in enumerate(rules.names):
        v = sol["versions"].get(name)
        vals.append(ABSENT if v is None else rules.version_names[q].index(v))
    return (rules.pythons.index(sol["python"]), *vals)


def static_check(world: dict[str, Any], *, cap: int = 256) -> StaticResult:
    """Prove the solution is a model of the success clauses and count models up to ``cap``."""
    rules = Rules(world)
    enc = ConfigEncoding(rules)
    cnf = enc.one_hot() + success_clauses(rules, enc.x, enc.py)
    proj = [v for g in enc.x_vars for v in g] + enc.py_vars
    with Solver(name=SOLVER, bootstrap_with=cnf) as solver:
        is_model = bool(solver.solve(assumptions=enc.literals(solution_state(rules, world))))
        count = 0
        while count < cap and solver.solve():
            model = set(v for v in solver.get_model() if v > 0)
            count += 1
            solver.add_clause([-v for v in proj if v in model])
        capped = count >= cap and bool(solver.solve())
    return StaticResult(is_model, count, capped, enc.pool.top, len(cnf))


def cover_lower_bound(rules: Rules, writes: list[tuple[tuple[int, int], dict[int, list[int]]]]
                      ) -> int:
    """A proven lower bound on the minimum command count, by MaxSAT (RC2).

    Any plan ends in a success configuration, and the last command writing each installed
    package must be an install whose value table can produce that package's final version. So
    the number of distinct installs in a plan is at least the smallest set of installs whose
    tables cover some success configuration; add one for the Python selection and one for
    ``python run.py``. ``writes`` lists each install ``(p, v)`` with its value tables.
    """
    from pysat.examples.rc2 import RC2
    from pysat.formula import WCNF

    enc = ConfigEncoding(rules)
    wcnf = WCNF()
    for clause in enc.one_hot() + success_clauses(rules, enc.x, enc.py):
        wcnf.append(clause)
    producers: dict[tuple[int, int], list[int]] = {}
    for action, tables in writes:
        y = enc.pool.id(("y", *action))
        wcnf.append([-y], weight=1)
        for q, table in tables.items():
            for u in sorted(set(table)):
                if u >= 0:
                    producers.setdefault((q, u), []).append(y)
    for q in range(rules.n):
        for u in range(len(rules.versions[q])):
            wcnf.append([-enc.x(q, u)] + producers.get((q, u), []))
    with RC2(wcnf) as rc2:
        if rc2.compute() is None:
            raise ValueError("no success configuration: the cover bound is undefined")
        return int(rc2.cost) + 2
