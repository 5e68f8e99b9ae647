"""Attack on the paper-scale repo Challenge (repo v6, issue 42): the documented law used better.

    python benchmarks/bench_repo_attack.py [--seeds 51..53] [--lift 5000] [--limit N] [--ablation]

The ladder's inductive rung (``RepoRingLearnerAgent``) knows the v6 law but uses it loosely:
it learns each (package, dependency) requirement from its own success or conflict, although by
the law a requirement follows from the dependency's on version (the previous package must be
on, every other dependency off), and it tries every package once in its first pass. This
learner (``OrderedRingLearner``) knows no more than the rung (the law, the public view, the
messages) and wastes fewer turns in three ways:

- **Derived requirements**: once a package's on version is known, every requirement on it is
  (the rung plans as if unlearnt requirements were met, and many are refused once).
- **A shorter first pass**: a package at position ``k`` depends on exactly the ``k`` before
  it, so a group is its last package and that one's dependencies; when one order of the
  members fits every tried member's dependencies, the untried members are not tried.
- **Check order**: the missing-dependency error lists a package's conditions in the order its
  install checks them, and a conflict names the first that fails. Right after installing a
  package ``p`` whose on version is unknown (its previous package on, the earlier ones off),
  trying the package after it is a one-turn test of ``p`` whenever ``p``'s condition is checked
  before the previous package's (the only other one failing there): a conflict naming ``p``
  says ``p`` is off (switched in one turn while its own conditions hold); one naming another
  package says ``p`` is on. The rung learns that fact later, when a walk needs ``p`` on, and a
  wrong guess then costs the walk back. The ``anytime`` variant also tests an installed,
  untested package later, whenever every check before its own passes in the current state and
  the plan's next command is not that test anyway.

What stays: the last package of a group is nobody's dependency, so only a failed run names it
off, after its group is complete; flipping it from all-on takes 11 commands (a BFS over the
law's 5-ring), so the about half of the groups guessed wrong cost 11-12 turns each.

For each seed it generates the repo v6 Challenge tasks (as ``build --suite challenge`` does,
task by task, seeds never used in the build or the ladder's calibration) and plays the
learners within the budget as built and with the budget lifted to ``--lift`` turns (a task
unsolved then counts as ``--lift``); with the budget lifted it splits each learner's turns into
its first pass, accepted installs, refused installs and runs, and prints tasks solved with
Wilson 95 % intervals, median turns and the paired sign test.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import sys
import time
from statistics import median
from typing import Any

from bench_paper_attack import sign_test
from bench_paper_ladder import seed_list

from arena_gen.core.calibration import wilson
from arena_gen.envs.repo.agents.heuristic_v2 import RUN
from arena_gen.envs.repo.agents.rings import (
    _CONFLICT,
    _MISSING,
    RepoRingLearnerAgent,
    _number,
)
from arena_gen.suite.build import generate_task
from arena_gen.suite.catalog import preset
from arena_gen.suite.ladder import _attempt


class OrderedRingLearner(RepoRingLearnerAgent):
    """The ring learner plus one-turn tests of a fresh install read from check order."""

    def __init__(self, size: int = 5, anytime: bool = False,
                 without: frozenset[str] = frozenset()) -> None:
        super().__init__()
        self.checks: dict[str, list[str]] = {}  # package -> its conditions in check order
        self.testing: tuple[str, str] | None = None  # (tested package, the package tried)
        self.tests = 0
        #: How many packages' dependencies were known at the last deduction.
        self.deduced = 0
        #: The group size the law fixes (v6 Challenge: 5).
        self.size = size
        #: Test an untested package whenever a clean test exists, not only after its install.
        self.anytime = anytime
        #: Savings switched off (an ablation): "derive", "deduce", "order".
        self.without = without

    def reset(self, view: Any, mode: str, rng: Any) -> None:
        """Forget the last episode (the rung's reset, plus the check orders)."""
        super().reset(view, mode, rng)
        self.checks, self.testing, self.tests = {}, None, 0
        self.deduced = 0

    def _observe(self, text: str) -> None:
        """The rung's reading, plus each package's check order from its first-pass error."""
        m = _MISSING.search(text)
        fresh = m is not None and self.deps.get(m.group(1)) is None
        super()._observe(text)
        if fresh and m is not None and self.deps.get(m.group(1)) is not None:
            self.checks[m.group(1)] = [x.split(" ")[0] for x in m.group(3).split(", ")]

    def _prev(self, p: str) -> str | None:
        """``p``'s previous package in its order (its deepest dependency), if known."""
        deps = self.deps.get(p)
        if not deps:
            return None
        pos = {d: self._position(d) for d in deps}
        if any(v is None for v in pos.values()):
            return None
        return max(deps, key=lambda d: (pos[d], d))

    def _allowed(self, p: str, config: dict[str, int]) -> bool:
        """The rung's test, with each requirement the law derives from a known on version
        (the previous package on, every other dependency off) instead of assumed met."""
        prev = self._prev(p)
        for q in self.deps.get(p) or ():
            v = config[q]
            if v < 0:
                return False
            need = self.need.get((p, q))
            if need is None and q in self.on and prev is not None and "derive" not in self.without:
                need = self.on[q] if q == prev else 1 - self.on[q]
            if need is not None and need != v:
                return False
        return True

    def _deduce(self) -> None:
        """Fill in the dependencies of untried packages whose group order the tried ones fix.

        By the law a package at position ``k`` depends on exactly the ``k`` before it, so a
        group's members are the last package's dependencies and itself, and each tried
        member pins its position and its prefix; when one order of the members fits them
        all, the untried members need no try."""
        known = sum(d is not None for d in self.deps.values())
        if known == self.deduced:
            return
        self.deduced = known
        for q, deps in list(self.deps.items()):
            if deps is None or len(deps) != self.size - 1:
                continue
            members = sorted(deps | {q}, key=_number)
            if all(self.deps[m] is not None for m in members):
                continue
            fits = [order for order in itertools.permutations(members)
                    if all(self.deps[m] is None or self.deps[m] == set(order[:order.index(m)])
                           for m in members)]
            if len(fits) == 1:
                for k, m in enumerate(fits[0]):
                    self.deps[m] = set(fits[0][:k])
                self.deduced = sum(d is not None for d in self.deps.values())

    def _test_for(self, p: str) -> str | None:
        """The package whose install tests ``p`` cleanly in the current state, if any."""
        pos = self._position(p)
        if pos is None or pos < 1 or p in self.on or self.state[p] < 0:
            return None
        for c, order in self.checks.items():
            if set(order) != (self.deps[p] or set()) | {p} or self.state[c] >= 0:
                continue
            # every condition checked before p's must pass now (known and met)
            for d in order[:order.index(p)]:
                if self.on.get(d) is None or self.state[d] < 0 or self.state[d] == self.on[d]:
                    return None
            return c
        return None

    def act(self, observation: str) -> str:
        """The rung's command, or a one-turn test right after a fresh install."""
        if self.small is not None:
            return self.small.act(observation)
        if self.testing is not None:
            p, c = self.testing
            self.testing = None
            self._observe(observation)
            m = _CONFLICT.search(observation)
            if m is not None and m.group(3) != p and p not in self.on:
                self.on[p] = self.state[p]  # p's check passed: it is at its on version
            if m is not None and m.group(3) == p:
                self.plan.clear()  # p is off: switch it while its conditions hold
            elif m is None:
                self.plan.clear()  # c installed after all: replan from here
            self.last = ""
            observation = ""
            return self._next()
        return self._step(observation)

    def _step(self, observation: str) -> str:
        """The rung's step; after a fresh install of an untested package, test it."""
        before = self.last
        if self.probe and "deduce" not in self.without:
            self._deduce()
        ok_install = before.startswith("pip install pkg") and "ERROR" not in observation \
            and self.started and not self.probe
        cmd = super().act(observation)
        fresh = [before.split()[2].split("==")[0]] if ok_install else []
        if self.anytime and not self.probe:
            fresh = [q for q in self.state if self.state[q] >= 0 and q not in self.on]
        for p in fresh if "order" not in self.without else ():
            c = self._test_for(p)
            if c is not None and cmd.split()[-1].split("==")[0] != c:
                self.testing, self.last = (p, c), f"pip install {c}"
                self.tests += 1
                return self.last
        return cmd

    def _next(self) -> str:
        """The rung's next command with nothing new to read."""
        if not self.plan:
            self._replan()
        self.last = self.plan[0]
        return self.last


class _Split:
    """A learner wrapped to split its turns: first pass, refused installs, runs, the rest."""

    def __init__(self, inner: RepoRingLearnerAgent) -> None:
        self.inner = inner
        self.name, self.privileged = inner.name, False
        self.counts = {"first pass": 0, "refused": 0, "runs": 0, "installs": 0, "other": 0}
        self.kind = ""

    def reset(self, view: Any, mode: str, rng: Any) -> None:
        self.inner.reset(view, mode, rng)

    def act(self, observation: str) -> str:
        if self.kind == "install" and "ERROR" in observation:
            self.counts["installs"] -= 1
            self.counts["refused"] += 1
        first = bool(self.inner.probe) or not self.inner.started
        cmd = str(self.inner.act(observation))
        self.kind = ""
        if first and not self.inner.plan:
            self.counts["first pass"] += 1
        elif cmd == RUN:
            self.counts["runs"] += 1
        elif cmd.startswith("pip install pkg"):
            self.counts["installs"] += 1
            self.kind = "install"
        else:
            self.counts["other"] += 1
        return cmd

    def answer_probes(self, probes: Any) -> list[str]:
        return list(self.inner.answer_probes(probes))


def main() -> int:
    """Play the rung and the attack on each seed's repo v6 Challenge tasks and compare."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", nargs="+", default=["51..53"])
    parser.add_argument("--lift", type=int, default=5_000)
    parser.add_argument("--limit", type=int, default=0, help="tasks per seed (0: all)")
    parser.add_argument("--ablation", action="store_true",
                        help="also play the attack with each saving switched off")
    args = parser.parse_args()
    config = preset("challenge", "repo", 6)
    size = int(config["group_size"][0])
    learners = {"ring (ladder)": RepoRingLearnerAgent,
                "ordered (attack)": lambda: OrderedRingLearner(size),
                "anytime": lambda: OrderedRingLearner(size, True)}
    if args.ablation:
        for saving in ("derive", "deduce", "order"):
            learners[f"ordered without {saving}"] = (
                lambda saving=saving: OrderedRingLearner(size, without=frozenset({saving})))
    solved: dict[str, list[int]] = {name: [] for name in learners}
    turns: dict[str, list[int]] = {name: [] for name in learners}
    splits: dict[str, list[dict[str, int]]] = {name: [] for name in learners}
    start, budget = time.perf_counter(), 0
    head = "solved; turns lifted (first pass / installs / refused / runs)"
    print("| task | min | " + " | ".join(f"{n}: {head}" for n in learners) + " |")
    print("|---|---|" + "---|" * len(learners))
    for seed in seed_list(args.seeds):
        for index in range(args.limit or int(config["count"])):
            task = generate_task("repo", "challenge", seed, index, version=6).task
            budget = task.budget
            cells = []
            for name, make in learners.items():
                won = _attempt(task, make(), "inductive", 0)["success"]
                agent = _Split(make())
                lifted = _attempt(dataclasses.replace(task, budget=args.lift), agent,
                                  "inductive", 0)
                c = agent.counts
                splits[name].append(dict(c))
                solved[name].append(int(won))
                turns[name].append(int(lifted["steps"]) if lifted["success"] else args.lift)
                cells.append(f"{'yes' if won else 'no'}, {lifted['steps']} ({c['first pass']}"
                             f" / {c['installs']} / {c['refused']} / {c['runs']})")
            print(f"| {task.id} | {task.certificate.min_steps} | " + " | ".join(cells) + " |",
                  flush=True)
    print(f"\nseeds {' '.join(args.seeds)}, {time.perf_counter() - start:.0f} s; budget as "
          f"built ({budget:,}), tasks solved:")
    for name, wins in solved.items():
        lo, hi = wilson(sum(wins), len(wins))
        print(f"  {name:18s} {sum(wins)}/{len(wins)} = {sum(wins) / len(wins):.0%} "
              f"[{lo:.0%}-{hi:.0%}]; turns with the budget lifted: median "
              f"{median(turns[name]):.0f}, range {min(turns[name])}-{max(turns[name])}")
    for name, rows in splits.items():
        print(f"  {name}, budget lifted, median turns per share: "
              + ", ".join(f"{k} {median(s[k] for s in rows):.0f}" for k in rows[0]))
    names = list(learners)
    only = [sum(a > b for a, b in zip(solved[x], solved[y], strict=True))
            for x, y in ((names[1], names[0]), (names[0], names[1]))]
    print(f"paired: solved by the attack only {only[0]}, by the rung only {only[1]} "
          f"(exact two-sided sign test p = {sign_test(*only):.2g})")
    rate = sum(solved[names[1]]) / len(solved[names[1]])
    print(f"the attack solves {rate:.0%}: {'ABOVE' if rate > 0.273 else 'not above'} Lite's "
          f"27.3 %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
