"""Why an exact install fails, read from the install rule's checks without stepping it.

Repo probe draws (:mod:`.probes_v5`) ask whether ``pip install NAME==V`` works from thousands of
environments per run, most of them only to pick one. The install rule
(:meth:`~.game_v2.RepoGameV2.apply_install`) reads a few packages' own values (a Python bound,
a medium install's dependencies, each conflict's package after the install's per-package
update); :func:`failure` makes the same reads in the same order and returns a key that fixes
the failure's message (or None when the install works), without raising, building the
message or building the new environment; :func:`installed_after` the versions a working
install leads to, without its message; :func:`reasons` how many keys an install can have
where the Python is fixed (fewer than four: no ``command_error`` question can offer four of its
messages). Equal keys give equal messages (``tests/test_repo_probe_index.py``).
"""

from __future__ import annotations

from collections.abc import Hashable

from arena_gen.envs.repo.common import ABSENT
from arena_gen.envs.repo.game_v2 import RepoV2, Rules
from arena_gen.envs.repo.semver import holds


def failure(rules: Rules, state: RepoV2, p: int, v: int) -> Hashable | None:
    """Why installing version ``v`` of ``p`` from ``state`` fails, as a key that fixes the
    message (the first failing check with what its message names), or None when it works
    (``v`` not installed already: the caller reads that case itself)."""
    plan = rules.plans[p][v]
    if plan.python is not None:
        py = state.python
        if py == ABSENT or not holds(rules.pythons[py], *plan.python):
            return ("python", py)
    installed = state.installed
    if plan.priority == "high":
        if plan.unmet:
            return ("unsatisfiable",)
    elif plan.priority == "medium":
        for q, allowed in plan.deps:
            if installed[q] == ABSENT or not allowed:  # (some is missing: name them all)
                return ("missing", tuple((d, installed[d] == ABSENT) for d, ok in plan.deps
                                         if installed[d] == ABSENT or not ok))
    for i, (q, versions, _) in enumerate(plan.conflicts):
        # the package's value after the install's own update of it (the rule's work[q])
        x = plan.update(q, installed[q])[0]
        if x != ABSENT and x in versions:
            return ("conflict", i, x)
    return None


def installed_after(rules: Rules, installed: tuple[int, ...], p: int, v: int
                    ) -> tuple[tuple[int, ...], frozenset[int]]:
    """The versions after installing version ``v`` of ``p`` where that works (``v`` not
    installed already, :func:`failure` None), and the packages whose version it changed: the
    install rule's new state, without its message."""
    plan = rules.plans[p][v]
    work = list(installed)
    moved_p = False
    for q in plan._touched:
        new, moved = plan.update(q, work[q])
        work[q] = new
        if q == p:
            moved_p = moved
    if not moved_p:
        work[p] = v
    after = tuple(work)
    return after, frozenset(q for q in (p, *plan._touched) if after[q] != installed[q])


def reasons(rules: Rules, p: int, v: int) -> int:
    """At most how many :func:`failure` keys installing version ``v`` of ``p`` has over states
    that share a Python (a draw's environments a step away do): a failing Python bound or an
    unsatisfiable range is the only reason wherever it fails; else each set of missing
    dependencies and each version a conflict's package can end at."""
    plan = rules.plans[p][v]
    if plan.unmet:
        return 1
    count = 2 ** len(plan.deps) - 1 if plan.priority == "medium" else 0
    for q, versions, _ in plan.conflicts:
        count += len({x for old in range(ABSENT, len(rules.versions[q]))
                      if (x := plan.update(q, old)[0]) != ABSENT and x in versions})
    return max(count, 1 if plan.python is not None else 0)
