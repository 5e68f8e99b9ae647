"""SAT bounded model checking for lights worlds: plans (upper bounds) and proven minima past BFS.

Encoding (python-sat, one incremental solver per bulb set, horizon grown by two steps at a time,
the goal asked through assumptions, only lengths ``k`` with ``k - N`` even):

- state ``x[t][i]`` per step, one action ``a[t][i]`` per step (exactly one), frame axioms, and
  ``a[t][i] -> cond_i(x[t-1])`` in Plaisted-Greenbaum (one-polarity Tseitin) form over the NNF.
- Trace normal form: toggles of bulbs that do not read each other commute, so only the
  lexicographic normal form of each trace is allowed (no ``b u a`` with ``a < b`` and ``a``
  independent of ``b`` and of all of ``u``), with one "could move left" variable per bulb/step.
- No useless retoggle: between two toggles of a bulb some bulb reading it must toggle (otherwise
  dropping both toggles gives a shorter plan); a bulb nobody reads toggles once, from off to on.
- Structural lower bounds: a bulb set closed under "reads" (a prefix of the DAG order) is a world
  of its own, and any plan restricted to it is a plan for it. The minima ``m_S`` of prefixes are
  computed bottom up (BFS for small prefixes, this same SAT search above), and each prefix whose
  excess ``(m_S - |S|) / 2`` grew adds a counter constraint "toggles outside S <= k - m_S".
  Since ``m_{S+b} >= m_S + 1``, when the new bulb's condition holds somewhere along the
  prefix's witness, inserting one toggle there proves ``m_{S+b} = m_S + 1`` with no solver call;
  only the remaining prefixes need BMC, starting at ``k = m_S + 1``.
- Upper bounds without proof (when effort runs out): each further bulb is inserted, or found by
  a short SAT call, or added by a constructive detour (set its condition's bulbs, latest first,
  toggle it, restore all-on), then pairs of toggles with no reader in between are pruned.

Every constraint keeps at least one shortest plan (the normal form of a shortest trace), so UNSAT
at ``k`` proves that no plan of length ``k`` exists. Search effort is limited by deterministic
conflict budgets (and optionally by wall-clock, for benchmarks only); when a budget runs out the
result carries honest bounds ``[lower, upper]`` and the method that proved each.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from pysat.solvers import Solver

from arena_gen.core.game import WorldView, play
from arena_gen.envs.lights.bfs import bfs
from arena_gen.envs.lights.formula import Formula, compile_bits, variables
from arena_gen.envs.lights.game_v1 import LightsGame, Rules

SOLVER = "cadical153"  # measured faster than 1.9.5 on these UNSAT proofs
BFS_PREFIX = 18
PLAN_SLACK = 2  # extra toggle pairs allowed beyond the first admissible length
PLAN_CALL = 20_000
PLAN_TRIES = 2
MAX_PLAN = 100_000  # conflicts per length tried when only a plan is wanted
CHUNK = 20_000  # conflicts between wall-clock checks (benchmarks only)


@dataclass
class SatResult:
    """Outcome of the SAT search: bounds, whether they meet, a witness plan of length ``upper``."""

    lower: int
    upper: int | None
    witness: list[int]
    lower_method: str
    upper_method: str | None
    solver_calls: int = 0
    conflicts: int = 0
    prefix_minima: list[int] = field(default_factory=list)
    solvable: bool | None = None

    @property
    def exact(self) -> bool:
        return self.upper is not None and self.lower == self.upper

    @property
    def min_steps(self) -> int | None:
        return self.upper if self.exact else None


def _nnf(node: Formula, neg: bool = False) -> Formula:
    """Push negations to the variables (De Morgan), so one-polarity Tseitin suffices."""
    if "const" in node:
        return {"const": bool(node["const"]) != neg}
    if "var" in node:
        return {"not": node} if neg else node
    if "not" in node:
        return _nnf(node["not"], not neg)
    op = "and" if "and" in node else "or"
    flip = {"and": "or", "or": "and"}[op] if neg else op
    return {flip: [_nnf(c, neg) for c in node[op]]}


def _remap(node: Formula, index: dict[int, int]) -> Formula:
    if "var" in node:
        return {"var": index[int(node["var"])]}
    if "const" in node:
        return node
    if "not" in node:
        return {"not": _remap(node["not"], index)}
    op = "and" if "and" in node else "or"
    return {op: [_remap(c, index) for c in node[op]]}


def topo_order(conditions: list[Formula]) -> list[int] | None:
    """A topological order of the reads-DAG (smallest index first), or None if it has a cycle."""
    n = len(conditions)
    reads = [variables(c) for c in conditions]
    done: set[int] = set()
    order: list[int] = []
    while len(order) < n:
        ready = [i for i in range(n) if i not in done and reads[i] <= done]
        if not ready:
            return None
        order.append(ready[0])
        done.add(ready[0])
    return order


def satisfiable(node: Formula) -> bool:
    """Whether a condition holds in some state (brute force over its few variables)."""
    vs = sorted(variables(node))
    f = compile_bits(node)
    for m in range(1 << len(vs)):
        if f(sum(1 << v for j, v in enumerate(vs) if m >> j & 1)):
            return True
    return False


class _Counter:
    """Incremental sequential counter: ``s[t][c]`` is forced true when >= c of the first t
    literals are true; "at most b" is asked by assuming ``-s[t][b+1]``."""

    def __init__(self, enc: _Bmc) -> None:
        self.enc = enc
        self.lits: list[int] = []
        self.s: list[list[int]] = []  # s[t][c-1]
        self.cap = 0

    def _cell(self, t: int, c: int) -> None:
        """Add s[t][c] (1-based c) and its clauses."""
        v = self.enc.new()
        lit = self.lits[t]
        row = self.s[t]
        assert len(row) == c - 1
        row.append(v)
        if t > 0 and len(self.s[t - 1]) >= c:
            self.enc.add([-self.s[t - 1][c - 1], v])
        if c == 1:
            self.enc.add([-lit, v])
        elif t > 0:
            self.enc.add([-self.s[t - 1][c - 2], -lit, v])

    def append(self, lit: int) -> None:
        self.lits.append(lit)
        self.s.append([])
        t = len(self.lits) - 1
        for c in range(1, self.cap + 1):
            self._cell(t, c)

    def at_most(self, b: int) -> int | None:
        """The assumption literal enforcing "at most b" over all literals so far (None: trivial)."""
        if b >= len(self.lits):
            return None
        if b < 0:
            return 0  # sentinel: impossible
        while self.cap < b + 1:
            self.cap += 1
            for t in range(len(self.lits)):
                self._cell(t, self.cap)
        return -self.s[-1][b]


class _Bmc:
    """The incremental BMC encoding of one (sub)world over local bulbs 0..n-1."""

    def __init__(self, conditions: list[Formula], bounds: list[tuple[set[int], int]],
                 normal_form: bool = True, visits: bool = True) -> None:
        self.normal_form = normal_form
        self.conditions = conditions
        self.n = n = len(conditions)
        self.top = 0
        self.solver = Solver(name=SOLVER)
        self.conds = [_nnf(c) for c in conditions]
        reads = [variables(c) - {i} for i, c in enumerate(conditions)]
        self.readers = [[j for j in range(n) if i in reads[j]] for i in range(n)]
        # Bulbs nobody reads toggle once, anywhere their condition holds: with ``visits`` they
        # get no actions, only "some state of the plan satisfies the condition" constraints.
        self.sinks = [i for i in range(n) if not self.readers[i]] if visits else []
        dep = [set(reads[i]) | set(self.readers[i]) | {i} for i in range(n)]
        # Swapping two toggles changes one intermediate state, which matters to a sink that
        # reads both (it might need that state); removing a useless pair of toggles of a bulb
        # likewise matters to a sink reading it. Such pairs are dependent; such bulbs keep
        # their retoggles.
        self.retoggle_free = [True] * n
        for sink in self.sinks:
            for i in reads[sink]:
                dep[i] |= reads[sink]
                self.retoggle_free[i] = False
        self.dep = [sorted(d) for d in dep]
        self.big_indep = [[j for j in range(i + 1, n) if j not in dep[i]] for i in range(n)]
        self.x: list[list[int]] = [[self.new() for _ in range(n)]]
        for v in self.x[0]:
            self.add([-v])
        self.a: list[list[int]] = [[]]
        self.p: list[list[int]] = [[self.new() for _ in range(n)]]
        self.q: list[list[int]] = [[self.new() for _ in range(n)]]
        self.y: list[list[int]] = [self._visit_lits(self.x[0])]
        self.bounds = [(sorted(set(range(n)) - s), m) for s, m in bounds]
        self.counters = [_Counter(self) for _ in self.bounds]
        # "toggled exactly once" guards, assumed for bulbs whose count the bounds pin to one
        self.once = [self.new() for _ in range(n)]
        self.u: list[list[int]] = [[self.new() for _ in range(n)]]
        for v in self.u[0]:
            self.add([-v])

    def new(self) -> int:
        self.top += 1
        return self.top

    def _visit_lits(self, state: list[int]) -> list[int]:
        lits = []
        for j in self.sinks:
            y = self.new()
            self._require(y, self.conds[j], state)
            lits.append(y)
        return lits

    def add(self, clause: list[int]) -> None:
        self.solver.add_clause(clause)

    def _require(self, guard: int, node: Formula, state: list[int]) -> None:
        """Add clauses for ``guard -> node(state)`` (node in NNF)."""
        if "const" in node:
            if not node["const"]:
                self.add([-guard])
            return
        if "var" in node:
            self.add([-guard, state[node["var"]]])
            return
        if "not" in node:
            self.add([-guard, -state[node["not"]["var"]]])
            return
        if "and" in node:
            for child in node["and"]:
                self._require(guard, child, state)
            return
        lits = []
        for child in node["or"]:
            if "var" in child:
                lits.append(state[child["var"]])
            elif "not" in child:
                lits.append(-state[child["not"]["var"]])
            elif "const" in child:
                if child["const"]:
                    return
            else:
                aux = self.new()
                self._require(aux, child, state)
                lits.append(aux)
        self.add([-guard, *lits])

    def add_step(self) -> None:
        n = self.n
        prev, pp, pq = self.x[-1], self.p[-1], self.q[-1]
        cur = [self.new() for _ in range(n)]
        act = [self.new() for _ in range(n)]
        # exactly one action: at-least-one plus a sequential at-most-one
        self.add(list(act))
        run = act[0]
        for i in range(1, n):
            self.add([-run, -act[i]])
            if i < n - 1:
                nxt = self.new()
                self.add([-run, nxt])
                self.add([-act[i], nxt])
                run = nxt
        for i in range(n):
            self.add([-act[i], prev[i], cur[i]])
            self.add([-act[i], -prev[i], -cur[i]])
            self.add([act[i], -prev[i], cur[i]])
            self.add([act[i], prev[i], -cur[i]])
            self._require(act[i], self.conds[i], prev)
            if not self.readers[i]:  # nobody reads it: toggled once, from off to on
                self.add([-act[i], -prev[i]])
        # no useless retoggle (p) and lexicographic trace normal form (q)
        np_, nq = [self.new() for _ in range(n)], [self.new() for _ in range(n)]
        for i in range(n):
            if not self.normal_form:
                continue
            if self.retoggle_free[i]:
                self.add([-act[i], -pp[i]])
            self.add([-act[i], -pq[i]])
            self.add([-act[i], np_[i]])
            self.add([-pp[i], *[act[j] for j in self.readers[i]], np_[i]])
            for j in self.big_indep[i]:
                self.add([-act[j], nq[i]])
            self.add([-pq[i], *[act[j] for j in self.dep[i]], nq[i]])
        nu = [self.new() for _ in range(n)]
        for i in range(n):
            self.add([-act[i], nu[i]])
            self.add([-self.u[-1][i], nu[i]])
            self.add([-self.once[i], -act[i], -self.u[-1][i]])
            self.add([-self.once[i], -act[i], -prev[i]])
        self.u.append(nu)
        for j in self.sinks:
            self.add([-act[j]])
        self.y.append(self._visit_lits(cur))
        for (outside, _), counter in zip(self.bounds, self.counters, strict=True):
            o = self.new()
            for i in outside:
                self.add([-act[i], o])
            counter.append(o)
        self.x.append(cur)
        self.a.append(act)
        self.p.append(np_)
        self.q.append(nq)

    def solve(self, k: int, budget: int | None, deadline: float | None = None
              ) -> tuple[bool | None, list[int], int]:
        """Is there a plan of exactly k steps? Returns (answer, plan, conflicts used)."""
        sinks = set(self.sinks)
        steps = k - len(sinks)  # the sinks' single toggles are implicit
        if steps < 0:
            return False, [], 0
        while len(self.x) <= steps:
            self.add_step()
        assumptions = [self.x[steps][i] for i in range(self.n) if i not in sinks]
        if self.sinks:
            guard = self.new()
            for pos in range(len(self.sinks)):
                self.add([-guard, *[self.y[t][pos] for t in range(steps + 1)]])
            assumptions.append(guard)
        once: set[int] = set(range(self.n)) - sinks if k == self.n else set()
        for (outside, m), counter in zip(self.bounds, self.counters, strict=True):
            movers = [i for i in outside if i not in sinks]
            room = k - m - (len(outside) - len(movers))
            lit = counter.at_most(room)
            if lit == 0 or room < len(movers):
                return False, [], 0
            if lit is not None:
                assumptions.append(lit)
            if room == len(movers):  # every bulb outside the prefix toggles exactly once
                once.update(movers)
        assumptions += [self.once[i] for i in sorted(once)]
        before = self.conflicts()
        answer: bool | None = None
        while True:
            chunk = budget if deadline is None else CHUNK
            if budget is not None:
                chunk = min(chunk if chunk is not None else budget,
                            budget - (self.conflicts() - before))
                if chunk <= 0:
                    break
            self.solver.conf_budget(chunk if chunk is not None else -1)
            answer = self.solver.solve_limited(assumptions=assumptions)
            if answer is not None or deadline is None or time.monotonic() > deadline:
                break
        used = self.conflicts() - before
        plan: list[int] = []
        if answer:
            truth = {v for v in self.solver.get_model() if v > 0}
            for t in range(1, steps + 1):
                plan.append(next(i for i in range(self.n) if self.a[t][i] in truth))
            plan = self._place_sinks(plan)
        return answer, plan, used

    def _place_sinks(self, plan: list[int]) -> list[int]:
        """Toggle each sink at the first state of the plan where its condition holds."""
        rules = _rules(self.conditions)
        todo, out, state = list(self.sinks), [], 0
        for pos in range(len(plan) + 1):
            for j in [j for j in todo if rules.enabled(state, j)]:
                out.append(j)
                todo.remove(j)
            if pos < len(plan):
                out.append(plan[pos])
                state = rules.step(state, plan[pos])
        return out

    def conflicts(self) -> int:
        return int(self.solver.accum_stats().get("conflicts", 0))

    def close(self) -> None:
        self.solver.delete()


def _rules(conditions: list[Formula]) -> Rules:
    """The env's compiled rules of a (sub)world: every plan helper steps through these."""
    return Rules({"n": len(conditions), "conditions": conditions})


def _trace(rules: Rules, plan: list[int]) -> list[int]:
    """The states a plan passes through, by the env's transition rule (``Rules.step``)."""
    states = [0]
    for b in plan:
        states.append(rules.step(states[-1], b))
    return states


def _replay(conditions: list[Formula], plan: list[int]) -> bool:
    """Play a plan through the env's game: it must reach all-on on its last toggle, and every
    toggle must take effect (a plan with a no-op toggle is not of the length it claims)."""
    game = LightsGame(WorldView({"n": len(conditions), "conditions": conditions}))
    result = play(game, [str(b) for b in plan])
    states = result.states
    return (result.success and result.steps == len(plan)
            and all(a != b for a, b in zip(states, states[1:], strict=False)))


def _insert(conditions: list[Formula], plan: list[int], new: int) -> list[int] | None:
    """Insert one toggle of bulb ``new`` at the first state of ``plan`` where it is enabled."""
    rules = _rules(conditions)
    for pos, state in enumerate(_trace(rules, plan)):
        if rules.enabled(state, new):
            return plan[:pos] + [new] + plan[pos:]
    return None


@dataclass
class _Effort:
    conflicts: int | None
    deadline: float | None
    calls: int = 0
    used: int = 0

    def call_budget(self) -> int | None:
        return None if self.conflicts is None else self.conflicts - self.used

    def spent(self) -> bool:
        if self.conflicts is not None and self.used >= self.conflicts:
            return True
        return self.deadline is not None and time.monotonic() > self.deadline


def _search(conditions: list[Formula], bounds: list[tuple[set[int], int]], lower: int,
            effort: _Effort, max_k: int) -> tuple[int, int | None, list[int]]:
    """Ask k = lower, lower+2, ... until SAT; returns (proven lower, upper or None, plan)."""
    enc = _Bmc(conditions, bounds)
    try:
        k = lower
        while k <= max_k and not effort.spent():
            answer, plan, used = enc.solve(k, effort.call_budget(), effort.deadline)
            effort.calls += 1
            effort.used += used
            if answer is None:
                break
            if answer:
                if not _replay(conditions, plan):
                    raise AssertionError("SAT plan does not replay (encoding bug)")
                return k, k, plan
            k += 2
        return k, None, []
    finally:
        enc.close()


def solve(world: dict[str, Any], *, max_conflicts: int | None = 1_000_000,
          time_limit: float | None = None, bfs_prefix: int = BFS_PREFIX,
          max_extra: int = 60, plan_conflicts: int = 400_000,
          plan_time: float | None = None) -> SatResult:
    """Bound (and usually pin) the minimum number of toggles of a world by SAT.

    Bulbs are added one at a time in DAG order; a prefix's minimum is at least the previous
    one plus one, and equals it when the new bulb fits into the previous witness (no solver
    call), otherwise the BMC search proves it. ``max_conflicts`` is a deterministic effort
    limit (certificates use it); ``time_limit`` adds a wall-clock limit (benchmarks only).
    When the proof effort runs out, the remaining bulbs are added without proof (first SAT
    length per prefix, ``plan_conflicts`` / ``plan_time``), giving bounds ``[lower, upper]``.
    """
    n = int(world["n"])
    conditions: list[Formula] = world["conditions"]
    deadline = time.monotonic() + time_limit if time_limit is not None else None
    effort = _Effort(max_conflicts, deadline)
    max_k = n + 2 * max_extra
    order = topo_order(conditions)
    if order is None:  # not a DAG: plain BMC, no structural bounds
        low, upper, found = _search(conditions, [], n, effort, max_k)
        return SatResult(lower=low, upper=upper, witness=found, lower_method="sat-unsat",
                         upper_method="sat" if upper is not None else None,
                         solver_calls=effort.calls, conflicts=effort.used,
                         solvable=True if upper is not None else None)
    solvable = True if all(satisfiable(c) for c in conditions) else None
    minima: list[int] = []
    bounds: list[tuple[set[int], int]] = []
    plan: list[int] = []
    method = "parity"
    lower: int | None = None  # set once the proof gives up: a bound instead of exact minima
    plan_effort: _Effort | None = None
    for size in range(1, n + 1):
        sub = [_remap(conditions[b], {v: j for j, v in enumerate(order[:size])})
               for b in order[:size]]
        if lower is not None:  # plan mode: upper bounds only
            lower += 1
            assert plan_effort is not None
            plan = _extend_plan(sub, plan, plan_effort, max_k)
            if not plan:
                return _result(lower + n - size, None, [], "prefix-sat", minima, effort,
                               plan_effort, solvable)
            continue
        if size <= bfs_prefix:
            res = bfs({"n": size, "conditions": sub})
            if res.min_steps is None:
                return SatResult(lower=0, upper=None, witness=[], lower_method="bfs-prefix",
                                 upper_method=None, prefix_minima=minima, solvable=False)
            m, plan, method = res.min_steps, list(res.witness), "bfs-prefix"
        else:
            floor = (minima[-1] if minima else 0) + 1  # m_{S+1} >= m_S + 1 for every prefix
            inserted = _insert(sub, plan, size - 1)
            if inserted is not None:
                m, plan = floor, inserted
                method = "insertion" if method == "parity" else method
            else:
                lo, up, local = _search(sub, bounds, floor, effort, max_k)
                if up is None:  # out of effort: keep the proven bound, go on without proof
                    lower = lo
                    plan_effort = _Effort(plan_conflicts, None if plan_time is None
                                          else time.monotonic() + plan_time)
                    plan = _extend_plan(sub, plan, plan_effort, max_k, start=lo)
                    if not plan:
                        return _result(lower + n - size, None, [], "prefix-sat", minima,
                                       effort, plan_effort, solvable)
                    continue
                m, plan, method = up, local, "sat-unsat"
        previous_excess = (minima[-1] - size + 1) // 2 if minima else 0
        minima.append(m)
        if (m - size) // 2 > previous_excess:  # a new excess level: worth a counter
            bounds.append((set(range(size)), m))
    witness = [order[b] for b in plan]
    if lower is not None:
        return _result(lower, len(witness), witness, "prefix-sat", minima, effort, plan_effort,
                       solvable)
    return SatResult(lower=minima[-1], upper=minima[-1], witness=witness, lower_method=method,
                     upper_method="sat" if effort.calls else
                     ("bfs-prefix" if n <= bfs_prefix else "prefix-insertion"),
                     solver_calls=effort.calls, conflicts=effort.used,
                     prefix_minima=minima, solvable=True)


def _result(lower: int, upper: int | None, witness: list[int], method: str, minima: list[int],
            effort: _Effort, plan_effort: _Effort | None, solvable: bool | None) -> SatResult:
    extra = plan_effort or _Effort(None, None)
    return SatResult(lower=lower, upper=upper, witness=witness, lower_method=method,
                     upper_method="sat" if upper is not None else None,
                     solver_calls=effort.calls + extra.calls,
                     conflicts=effort.used + extra.used, prefix_minima=minima,
                     solvable=solvable)


def _closest(node: Formula, state: int) -> dict[int, int]:
    """A satisfying assignment of a condition's variables nearest to ``state``."""
    vs = sorted(variables(node))
    can = compile_bits(node)
    best: tuple[int, int] | None = None
    for m in range(1 << len(vs)):
        trial = state
        for j, v in enumerate(vs):
            trial = trial | (1 << v) if m >> j & 1 else trial & ~(1 << v)
        if can(trial):
            key = (bin(trial ^ state).count("1"), m)
            best = key if best is None or key < best else best
    if best is None:
        raise ValueError("unsatisfiable condition")
    return {v: best[1] >> j & 1 for j, v in enumerate(vs)}


def _fix(sub: list[Formula], rules: Rules, state: int, targets: dict[int, int],
         out: list[int]) -> int:
    """Set bulbs (DAG positions) to target values, latest first; toggles go to ``out``."""
    for j in sorted(targets, reverse=True):
        if (state >> j & 1) != targets[j]:
            state = _fix(sub, rules, state, _closest(sub[j], state), out)
            after = rules.step(state, j)
            assert after != state, "the detour left a condition unmet"
            state = after
            out.append(j)
            if len(out) > MAX_PLAN:
                raise ValueError("constructed plan too long")
    return state


def _prune(sub: list[Formula], plan: list[int]) -> list[int]:
    """Drop pairs of toggles of a bulb with no toggle of a reader in between (still valid)."""
    readers = [{j for j, c in enumerate(sub) if i in variables(c) and j != i}
               for i in range(len(sub))]
    changed = True
    while changed:
        changed = False
        last: dict[int, int] = {}
        for pos, b in enumerate(plan):
            if b in last:
                plan = plan[:last[b]] + plan[last[b] + 1:pos] + plan[pos + 1:]
                changed = True
                break
            last = {i: p for i, p in last.items() if b not in readers[i]}
            last[b] = pos
    return plan


def _construct(sub: list[Formula], plan: list[int]) -> list[int]:
    """Extend a prefix plan by the last bulb with a detour: no optimality, always works."""
    new = len(sub) - 1
    rules = _rules(sub)
    states = _trace(rules, plan)
    best = min(range(len(states)), key=lambda t: (
        sum((states[t] >> v & 1) != val for v, val in _closest(sub[new], states[t]).items()), t))
    out = list(plan[:best])
    state = _fix(sub, rules, states[best], _closest(sub[new], states[best]), out)
    state = rules.step(state, new)
    out.append(new)
    _fix(sub, rules, state, {i: 1 for i in range(new)}, out)
    out = _prune(sub, out)
    if not _replay(sub, out):
        raise AssertionError("constructed plan does not replay")
    return out


def _extend_plan(sub: list[Formula], plan: list[int], effort: _Effort, max_k: int,
                 start: int | None = None) -> list[int]:
    """A plan for ``sub`` from one for its prefix without the last bulb (no optimality).

    Insertion first, then a SAT call at the first admissible lengths (short plans), then a
    constructive detour that always succeeds for satisfiable conditions.
    """
    inserted = _insert(sub, plan, len(sub) - 1) if start is None else None
    if inserted is not None:
        return inserted
    enc = _Bmc(sub, [], normal_form=False)
    try:
        k = len(plan) + 1 if start is None else start
        k += 2 * PLAN_SLACK
        for _ in range(PLAN_TRIES):
            if k > max_k or effort.spent():
                break
            call = effort.call_budget()
            answer, found, used = enc.solve(k, min(call, PLAN_CALL) if call is not None
                                            else PLAN_CALL, effort.deadline)
            effort.calls += 1
            effort.used += used
            if answer:
                return found
            k += 2
    finally:
        enc.close()
    try:
        return _construct(sub, plan)
    except ValueError:
        return []
