"""Repo v5's probe drawing: v4's questions with answers no surface feature gives away.

v4's drawing (kept as released on :class:`~.game_v4.RepoGameV4`) stated the current environment
in every ``command_error`` question, so the right option was the one error of the four not met
a step away, and a longest, shortest or first-``ImportError`` guess beat chance; its
``command_ok`` answers were balanced overall but not per kind of command (``no`` for ``python
run.py`` scored 63 %). Here (issue 38) a ``command_error`` question states one of four
environments whose errors differ in length, picked by a balanced length rank, and
``command_ok`` asks a ``yes`` and a ``no`` per kind of command. Every outcome is stepped only
when a question tries it, and kept per game beside it (:func:`stepped`).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np

from arena_gen.core.probes import Probe, balanced, letters
from arena_gen.envs.repo import install_index
from arena_gen.envs.repo.common import ABSENT
from arena_gen.envs.repo.game_v2 import RepoEvent, RepoV2, memo
from arena_gen.envs.repo.game_v4 import (
    _WORKED,
    ERROR_OPTIONS,
    RUN_PY,
    YES_NO,
    RepoGameV4,
    _renamed,
    error_question,
)

#: Failing commands tried per ``command_error`` question before it is given up.
_ERROR_TRIES = 8
#: Environments (this one and those a step away, in a drawn order) a tried command is
#: stepped from.
_ERROR_ENVS = 16
#: (Environment, command) outcomes a game keeps for its probes before it starts afresh.
_OUTCOMES_KEPT = 1 << 14
#: Near and visited environments a ``command_ok`` question may look in for its answer.
_NEAR = 9


#: Per (environment, command): the environment it leads to, whether it worked, what it printed.
Outcomes = dict[tuple[RepoV2, str], tuple[RepoV2, bool, str]]


def stepped(game: RepoGameV4, state: RepoV2, command: str,
            cache: Outcomes | None = None) -> tuple[RepoV2, bool, str]:
    """The state ``command`` leads to from ``state``, whether it worked and what it printed
    (on one line); kept per game (``cache``: that game's table, when the caller holds it), as
    a probe draw asks the same pair many times and the judge asks it again."""
    return Tried(game, cache).stepped(state, command)


class Tried:
    """A game's kept outcomes, as one draw reads them (its tables fetched once): the whole
    outcome of a command (:meth:`stepped`), or only whether it works (:meth:`works`)."""

    def __init__(self, game: RepoGameV4, cache: Outcomes | None = None) -> None:
        self.game, self.rules = game, game.rules
        self.cache: Outcomes = memo(game, "stepped") if cache is None else cache
        #: per state, whether each command asked works
        self.oks: dict[RepoV2, dict[str, bool]] = memo(game, "works")
        #: the failing installs' messages, per (package, version) and why they fail
        self.texts: dict[tuple[tuple[int, int], Hashable], str] = memo(game, "failures")
        self.read: dict[str, frozenset[int] | None] = memo(game, "reads")
        self.picks: dict[str, tuple[int, int] | None] = memo(game, "picks")
        self.bounds: dict[str, int] = memo(game, "reasons")
        self.runs: dict[tuple[bool, tuple[int, ...]], tuple[bool, str]] = memo(game, "runs")

    def stepped(self, state: RepoV2, command: str) -> tuple[RepoV2, bool, str]:
        """The module's :func:`stepped`."""
        cache = self.cache
        key = (state, command)
        known = cache.get(key)
        if known is None:
            if len(cache) >= _OUTCOMES_KEPT:
                cache.clear()
            game = self.game
            pick = self.pick(command)
            if pick is not None and state.installed[pick[0]] != pick[1]:
                # what game.act gives for this install (RepoGameV2.act_exact), without its
                # event; a failure changes nothing, and its message is fixed by its reason
                why = install_index.failure(self.rules, state, *pick)
                if why is None:
                    after, kind, text = game.install_result(state, *pick)
                    known = (after, kind in _WORKED, " ".join(text.split()))
                else:
                    known = (state, False, self.failure_text(state, pick, why))
            else:
                after, event = game.act(state, command)
                known = (after, isinstance(event, RepoEvent) and event.kind in _WORKED,
                         " ".join(event.feedback.split()))
            cache[key] = known
        return known

    def pick(self, command: str) -> tuple[int, int] | None:
        """The game's :meth:`~.game_v2.RepoGameV2.exact_pick`, read from its table."""
        picks = self.picks
        return picks[command] if command in picks else self.game.exact_pick(command)

    def reasons(self, command: str) -> int:
        """At most how many messages a failing install prints from environments sharing a
        Python (:func:`.install_index.reasons`); any number for another command."""
        known = self.bounds.get(command)
        if known is None:
            pick = self.pick(command)
            known = self.bounds[command] = (
                ERROR_OPTIONS if pick is None else install_index.reasons(self.rules, *pick))
        return known

    def exact(self, command: str, state: RepoV2) -> tuple[int, int] | None:
        """The release an install ``command`` picks when ``state`` does not have it (the case
        :func:`.install_index.failure` reads), else None."""
        pick = self.pick(command)
        return None if pick is None or state.installed[pick[0]] == pick[1] else pick

    def failure_text(self, state: RepoV2, pick: tuple[int, int], why: Hashable) -> str:
        """A failing install's message (one line), built once per reason it fails
        (:func:`.install_index.failure`: equal reasons print equal messages)."""
        key = (pick, why)
        text = self.texts.get(key)
        if text is None:
            text = self.texts[key] = " ".join(self.game.install_result(state, *pick)[2].split())
        return text

    def after(self, state: RepoV2, command: str) -> RepoV2:
        """The state an install that works leads to (:meth:`stepped`'s first item, without
        its message)."""
        known = self.cache.get((state, command))
        if known is not None:
            return known[0]
        pick = self.pick(command)
        if pick is None or state.installed[pick[0]] == pick[1]:
            return self.stepped(state, command)[0]
        return self.game.apply_install(state, *pick)[0]

    def reads(self, command: str) -> frozenset[int] | None:
        """The packages whose versions an install's outcome reads (its own, its dependencies'
        and its conflicts'; the Python no move changes), or None for any other command."""
        if command in self.read:
            return self.read[command]
        known: frozenset[int] | None = None
        pick = self.pick(command)
        if pick is not None:
            plan = self.rules.plans[pick[0]][pick[1]]
            known = frozenset({pick[0], *(q for q, _ in plan.deps),
                               *(q for q, _, _ in plan.conflicts)})
        self.read[command] = known
        return known

    def works(self, state: RepoV2, command: str) -> bool:
        """Whether ``command`` works from ``state`` (:meth:`stepped`'s second item), without
        stepping a working install or building a failing one's message (a draw asks this of
        most commands it tries and needs the rest of the outcome for few)."""
        oks = self.oks_of(state)
        ok = oks.get(command)
        if ok is None:
            pick = self.pick(command)
            if pick is not None and state.installed[pick[0]] != pick[1]:
                ok = install_index.failure(self.rules, state, *pick) is None
            elif command == RUN_PY:
                ok = self.run(state)[0]
            else:
                ok = self.stepped(state, command)[1]
            oks[command] = ok
        return ok

    def run(self, state: RepoV2) -> tuple[bool, str]:
        """Whether ``python run.py`` works from ``state`` and what it prints (one line), kept
        per game by what the run reads: whether a Python is selected, and the versions."""
        key = (state.python == ABSENT, state.installed)
        known = self.runs.get(key)
        if known is None:
            if len(self.runs) >= _OUTCOMES_KEPT:
                self.runs.clear()
            event = self.game.act(state, RUN_PY)[1]  # (the state it leads to is not kept)
            known = self.runs[key] = (isinstance(event, RepoEvent) and event.kind in _WORKED,
                                      " ".join(event.feedback.split()))
        return known

    def oks_of(self, state: RepoV2) -> dict[str, bool]:
        """The commands asked of ``state`` so far, each with whether it works."""
        oks = self.oks.get(state)
        if oks is None:
            if len(self.oks) >= _OUTCOMES_KEPT >> 6:
                self.oks.clear()
            oks = self.oks[state] = {}
        return oks


def commands(game: RepoGameV4, state: RepoV2) -> list[str]:
    """The commands probes name (v4's: ``python run.py`` and every install of a version not
    installed, in a fixed order), their texts built once per game."""
    return [RUN_PY, *(text for _, text in _installs(game, state))]


def _installs(game: RepoGameV4, state: RepoV2) -> list[tuple[int, str]]:
    """Every install of a version ``state`` does not have, with its package, in the fixed
    order of :func:`commands` (all of them, less the installed versions' own: a copy with a
    few items deleted, not a scan)."""
    kept = memo(game, "install_texts")
    if not kept:
        r = game.rules
        kept[0] = [(p, f"pip install {r.names[p]}=={r.vname(p, v)}")
                   for p in range(r.n) for v in range(len(r.versions[p]))]
        kept[1] = [sum(len(r.versions[q]) for q in range(p)) for p in range(r.n)]
    out: list[tuple[int, str]] = kept[0].copy()
    at: list[int] = kept[1]
    for p in range(len(at) - 1, -1, -1):  # from the end, so earlier places stay put
        v = state.installed[p]
        if v != ABSENT:
            del out[at[p] + v]
    return out


def _kinds(state: RepoV2, installs: list[tuple[int, str]]) -> list[str]:
    """Each install's kind as a ``command_ok`` question shows it: ``move`` when the stated
    environment holds the package, else ``add`` (``python run.py`` is ``run``)."""
    return ["add" if state.installed[p] == ABSENT else "move" for p, _ in installs]


def draw(game: RepoGameV4, state: RepoV2, visited: Sequence[RepoV2], rng: np.random.Generator,
         count: int) -> list[Probe]:
    """``count`` questions: half ``command_error`` (while a few drawn failing commands give
    four outputs, :func:`_error_probe`), the rest ``command_ok`` in pairs, a ``yes`` and a
    ``no`` of one kind of command, about the current environment, else one a step away, else
    one visited (wherever the wanted answer is found first: half the questions start from the
    current one). Every outcome is stepped only when a question needs it (commands are tried
    in drawn orders and the first fitting one is taken)."""
    visited = [v for v in visited if isinstance(v, RepoV2)]
    steps = _Steps(game, state, Tried(game))
    near = _near(steps, rng)
    made: list[Probe] = []
    slots = balanced(rng, count // 2, letters(ERROR_OPTIONS))
    ranks = balanced(rng, count // 2, range(ERROR_OPTIONS))
    for slot, rank in zip(slots, ranks, strict=True):
        probe = _error_probe(steps, slot, rank, rng)
        if probe is None:
            break
        made.append(probe)
    ask = _Asker(game, state, [*near, *(v for v in list(visited)[::-1][:_NEAR] if v != state)],
                 steps.tried)
    left = count - len(made)
    for kind in balanced(rng, left // 2, KINDS):  # a yes and a no of one kind of command
        pair = None
        for k in [kind, *(KINDS[int(j)] for j in rng.permutation(len(KINDS))
                          if KINDS[int(j)] != kind)]:
            yes = ask.find("yes", k, rng)  # (a kind with no yes needs no search for a no)
            pair = [yes, None if yes is None else ask.find("no", k, rng)]
            if None not in pair:
                break
        made += [p or ask.any(want, rng) for p, want in zip(pair or [None, None], YES_NO,
                                                              strict=True)]
    if left % 2:
        want = YES_NO[int(rng.integers(len(YES_NO)))]
        made.append(ask.find(want, KINDS[int(rng.integers(len(KINDS)))], rng)
                    or ask.any(want, rng))
    order = rng.permutation(len(made))
    return [_renamed(made[int(j)], f"q{i}") for i, j in enumerate(order)]


def _near(steps: _Steps, rng: np.random.Generator) -> list[RepoV2]:
    """Environments one step from the current one, a few of each kind in a drawn order: a
    package added, one moved to another version, one removed (so an environment's size tells
    nothing about which one a question states); of each kind, the first moves that work in a
    drawn order."""
    picked: list[RepoV2] = []
    for kind in ("add", "move", "remove"):
        moves = [k for k, m in enumerate(steps.kinds, start=1) if m == kind]
        got = 0
        for j in rng.permutation(len(moves)):
            if got == _NEAR // 3:
                break
            env = steps.env(moves[int(j)])
            if env is not None:
                picked.append(env)
                got += 1
    return [picked[int(j)] for j in rng.permutation(len(picked))]


def _error_probe(steps: _Steps, slot: str, rank: int, rng: np.random.Generator
                 ) -> Probe | None:
    """A command that fails here and four environments it fails from, met in a drawn order
    among this one and a few of those a step away (a working install or an uninstall), whose
    error outputs differ in length; the question states the one whose output has length rank
    ``rank`` (0: the shortest) and puts it at ``slot``, the others in the order met.

    The four are drawn alike and the stated one is picked by a balanced rank, so every surface
    feature of an option (its length, its error's kind, the packages it names) is as likely
    the right one's as another's: a guess by such a feature scores chance. None when none of
    the first few failing commands in a drawn order has four such environments."""
    game = steps.game
    tried = 0
    oks = steps.tried.oks_of(steps.state)
    for j in rng.permutation(len(steps.commands)).tolist():
        command = steps.commands[j]
        ok = oks.get(command)
        if steps.tried.works(steps.state, command) if ok is None else ok:
            continue
        met = _four_lengths(command, steps, rng.permutation(len(steps)))
        if met is not None:
            break
        tried += 1
        if tried == _ERROR_TRIES:
            return None
    else:
        return None
    assert met is not None
    by_length = sorted(met, key=lambda m: len(m[1]))
    k, right = by_length[rank]
    others = [text for _, text in met if text != right]
    state = steps.env(k)
    assert state is not None  # an environment the command was met failing from
    return error_question(game, state, command, slot, right, others)


#: The kinds of ``command_ok`` commands; each kind is asked as often with ``yes`` as with
#: ``no`` (``python run.py`` mostly fails, so its kind would otherwise tell the answer).
KINDS = ("run", "move", "add")


class _Asker:
    """``command_ok`` questions: the current environment, then near ones, then visited ones;
    a command is stepped from an environment only when a question tries it there."""

    def __init__(self, game: RepoGameV4, state: RepoV2, others: list[RepoV2],
                 tried: Tried) -> None:
        self.game, self.others, self.tried = game, others, tried
        self.envs = [state]
        self.kinds: dict[int, dict[str, list[str]]] = {}  # per environment: kind -> commands

    def _has(self, e: int) -> bool:
        """Whether there is an ``e``-th environment (taking the next near or visited one)."""
        while e >= len(self.envs) and self.others:
            self.envs.append(self.others.pop(0))
        return e < len(self.envs)

    def _of_kind(self, e: int, kind: str) -> list[str]:
        """The ``e``-th environment's commands of ``kind``, in the fixed order."""
        if kind == "run":
            return [RUN_PY]
        if e not in self.kinds:
            env = self.envs[e]
            installs = _installs(self.game, env)
            by_kind: dict[str, list[str]] = {"move": [], "add": []}
            for (_, c), k in zip(installs, _kinds(env, installs), strict=True):
                by_kind[k].append(c)
            self.kinds[e] = by_kind
        return self.kinds[e][kind]

    def find(self, want: str, kind: str, rng: np.random.Generator) -> Probe | None:
        """A question of ``kind`` whose answer is ``want`` (the first such command in a drawn
        order): half start from the current environment, the rest from the next; None when
        no environment has one."""
        e = 0 if rng.random() < 0.5 else 1
        yes = want == "yes"
        while self._has(e):
            env, of_kind = self.envs[e], self._of_kind(e, kind)
            oks = self.tried.oks_of(env)
            for j in rng.permutation(len(of_kind)).tolist():
                command = of_kind[j]
                ok = oks.get(command)
                if (self.tried.works(env, command) if ok is None else ok) == yes:
                    return self.game._ok_probe(env, command)
            e += 1
        return None

    def any(self, want: str, rng: np.random.Generator) -> Probe:
        """A question whose answer is ``want`` if any environment has one, of any kind; else
        any command from the current environment."""
        for kind in (KINDS[int(j)] for j in rng.permutation(len(KINDS))):
            if (probe := self.find(want, kind, rng)) is not None:
                return probe
        here = commands(self.game, self.envs[0])
        return self.game._ok_probe(self.envs[0], here[int(rng.integers(len(here)))])


class _Steps:
    """A state (number 0) and the moves from it (1, 2, ...: every install its probes name,
    then every uninstall); a move's environment is stepped to only when first asked, and is
    None when the move fails."""

    def __init__(self, game: RepoGameV4, state: RepoV2, tried: Tried) -> None:
        r = game.rules
        self.game, self.state, self.tried = game, state, tried
        pairs = _installs(game, state)
        installs = [c for _, c in pairs]
        self.commands = [RUN_PY, *installs]
        self.moves = installs + [f"pip uninstall {r.names[q]}" for q in range(r.n)
                                 if state.installed[q] != ABSENT]
        self.kinds = _kinds(state, pairs) + ["remove"] * (len(self.moves) - len(installs))
        self._installs = len(installs)
        self._envs: dict[int, RepoV2 | None] = {0: state}  # the environments stepped to
        #: per environment stepped to, the packages whose version its move changed
        self._changed: dict[int, frozenset[int]] = {0: frozenset()}
        self._here: dict[str, tuple[bool, str]] = {}  # outcomes from the current environment

    def __len__(self) -> int:
        return 1 + len(self.moves)

    def env(self, k: int) -> RepoV2 | None:
        """The ``k``-th environment (None when its move fails)."""
        if k in self._envs:
            return self._envs[k]
        if k > self._installs:  # an uninstall: its event ("uninstalled") is no worked kind
            env = self._envs[k] = None
            return env
        state, move = self.state, self.moves[k - 1]
        pick = self.tried.exact(move, state)
        if pick is None:  # (not an install of a version not installed: stepped)
            env = self.tried.after(state, move) if self.tried.works(state, move) else None
            if env is not None:
                self._changed[k] = frozenset(q for q, (a, b) in enumerate(
                    zip(env.installed, state.installed, strict=True)) if a != b)
        elif install_index.failure(self.tried.rules, state, *pick) is not None:
            env = None
        else:
            after, self._changed[k] = install_index.installed_after(
                self.tried.rules, state.installed, *pick)
            env = RepoV2(state.python, after, state.run_ok)
        self._envs[k] = env
        return env

    def outcome(self, k: int, command: str) -> tuple[bool, str] | None:
        """Whether ``command`` works from the ``k``-th environment and, when it fails, what it
        prints ("" when it works: not built); None when there is no such environment. An
        install that fails here fails alike from an environment whose move changed none of the
        packages it reads (:meth:`Tried.reads`); each (environment, install) is asked once per
        draw, so none is kept but the current environment's."""
        env = self._envs[k] if k in self._envs else self.env(k)
        if env is None:
            return None
        tried = self.tried
        pick = tried.exact(command, env)
        if k:
            reads = tried.reads(command)
            if reads is not None and self._changed[k].isdisjoint(reads):
                return self.outcome(0, command)
        elif command in self._here:
            return self._here[command]
        if pick is not None:
            why = install_index.failure(tried.rules, env, *pick)
            seen = (True, "") if why is None else (False, tried.failure_text(env, pick, why))
        elif command == RUN_PY:
            ok, text = tried.run(env)
            seen = (True, "") if ok else (False, text)
        elif tried.works(env, command):  # (an install of a version here already)
            seen = (True, "")
        else:
            seen = (False, tried.stepped(env, command)[2])
        if not k:
            self._here[command] = seen
        return seen


def _four_lengths(command: str, steps: _Steps, order: np.ndarray
                  ) -> list[tuple[int, str]] | None:
    """Of the first few environments in ``order`` (:data:`_ERROR_ENVS`), the first four from
    which ``command`` prints an error of a length no earlier one's has, with those errors;
    None when fewer are met."""
    if steps.tried.reasons(command) < ERROR_OPTIONS:  # (no four messages to be met)
        return None
    met: list[tuple[int, str]] = []
    lengths: set[int] = set()
    looked = 0
    for k in order.tolist():
        seen = steps.outcome(k, command)
        if seen is None:
            continue
        looked += 1
        ok, text = seen
        if not ok and text.startswith("ERROR") and len(text) not in lengths:
            met.append((k, text))
            lengths.add(len(text))
            if len(met) == ERROR_OPTIONS:
                return met
        if looked == _ERROR_ENVS:
            break
    return None
