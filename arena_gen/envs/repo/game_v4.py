"""Repo System v4: v2's rules with one message format for every run-time check.

Every check ``python`` can fail (a call's provider missing, a symbol missing, an unexpected
keyword, a consistency rule, a hidden rule) reports one line of one of two shapes, always with
the module and the importer:

    ``ImportError: cannot import name 'SYM' from 'PKG.MOD' (imported by 'WHO')``
    ``TypeError: PKG.MOD.SYM() got an unexpected keyword argument 'KW' (imported by 'WHO')``

``WHO`` is the script being run, or the installed package whose symbol requirement failed. A
provider that is not installed is reported as the import of the symbol the script needs (as a
missing module would be, but in the shared shape). Consistency and hidden-rule messages are
world texts drawn from the same form (:func:`.sampler_v4.message`); a world text may hold the
placeholder ``{importer}``, filled at run time with the failing member (consistency) or the
script being run (hidden rule), so no part of a message tells which kind of rule raised it.

Decisions: only messages differ from :class:`~.game_v2.RepoGameV2`; which checks pass, in which
order, and every install rule are v2's, so the v3 verifier and planner apply unchanged.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from typing import Any, ClassVar

import numpy as np

from arena_gen.core.probes import Probe, balanced, choice_correct, letters
from arena_gen.envs.repo.common import ABSENT
from arena_gen.envs.repo.game_v2 import (
    Call,
    RepoEvent,
    RepoGameV2,
    RepoV2,
    RunFailure,
    memo,
)
from arena_gen.envs.repo.semver import version_text

#: The placeholder a world's consistency or hidden-rule text may hold (the importer).
IMPORTER = "{importer}"
#: Probe kinds: does a named command succeed from a stated environment, and which error (of
#: four it really prints, from that environment and from others near it) does a failing one
#: print there?
COMMAND_OK, COMMAND_ERROR = "command_ok", "command_error"
YES_NO = ("yes", "no")
ERROR_OPTIONS = 4
#: The events of a command that worked (anything else printed an error); an install of what
#: an environment already has works (pip says so and changes nothing).
_WORKED = frozenset({"installed", "already_installed", "run_ok", "script_ok"})
RUN_PY = "python run.py"
#: Failing commands tried per ``command_error`` question before it is given up.
_ERROR_TRIES = 8
#: Environments (this one and those a step away, in a drawn order) a tried command is
#: stepped from.
_ERROR_ENVS = 16
#: (Environment, command) outcomes a game keeps for its probes before it starts afresh.
_OUTCOMES_KEPT = 1 << 14
#: Near and visited environments a ``command_ok`` question may look in for its answer.
_NEAR = 9


def import_error(module: str, symbol: str, importer: str) -> str:
    """The shared import-failure line."""
    return f"ImportError: cannot import name '{symbol}' from '{module}' (imported by '{importer}')"


def keyword_error(module: str, symbol: str, keyword: str, importer: str) -> str:
    """The shared keyword-failure line."""
    return (f"TypeError: {module}.{symbol}() got an unexpected keyword argument '{keyword}' "
            f"(imported by '{importer}')")


class RepoGameV4(RepoGameV2):
    """Repo System, version 4: :class:`~.game_v2.RepoGameV2` with uniform run-time messages.

    Description:
        As v2 (:class:`~.game_v2.RepoGameV2`): packages, a Python, hidden dependency rules;
        ``python run.py`` must succeed.
    Action Space:
        As v2: one terminal command per turn (``pip install NAME[SPEC]``, ``pip install
        python==3.X``, ``pip uninstall NAME``, ``pip list``, ``repo tree``, ``python run.py``,
        ``python <script>``); text that is no command is invalid and costs a turn.
    Observation:
        The command's output, then the turns left. Every run-time failure is one line:
        ``ImportError: cannot import name 'SYM' from 'PKG.MOD' (imported by 'WHO')`` or
        ``TypeError: PKG.MOD.SYM() got an unexpected keyword argument 'KW' (imported by
        'WHO')``, whichever check (API use, consistency rule, hidden rule) failed.
    Starting State:
        No Python selected, nothing installed.
    Rewards:
        1.0 on the turn ``python run.py`` succeeds, 0.0 otherwise.
    Episode End:
        Terminated when ``python run.py`` succeeds; truncated when the turn budget is spent.
    Information:
        As v2: ``python``, ``installed``, ``scripts``, ``run_ok``; each event's ``kind``,
        ``script`` and failing ``check`` (kept out of the agent's view).
    Rubric:
        ``run_ok`` (success) and one ``script_<name>_ok`` per entrypoint.
    Probes:
        Each states an environment (Python and ``pip list``'s packages) and a command,
        ``python run.py`` or ``pip install NAME==M.m`` of a version not installed.
        ``command_ok``: does it succeed? ``yes``/``no``, half each (chance 50 %), and half
        each within each kind of command (``python run.py``, an install of a package the
        environment holds, of one it lacks); the environment is the current one or, where
        that lacks the wanted answer, one a step away or one the agent visited.
        ``command_error``: which of four error outputs (on one line) does a failing command
        print? The four are what it prints from four environments among the current one and
        those a step away (a package added, moved or removed), of distinct lengths; the
        question states one of them, picked by a balanced length rank and put at a balanced
        letter (chance 25 %, and 25 % for any guess by an option's length, kind or packages);
        where none is found, a ``command_ok`` question is asked instead. Answers step the
        game from the stated environment.
    Arguments:
        ``task``: a repo v4 task, Draft, or :class:`~arena_gen.core.game.WorldView`.
    Version History:
        v4: every run-time failure is one line of one shape (module and importer always
        present, no trailing period, only ``ImportError`` and ``TypeError``); consistency and
        hidden-rule texts are drawn from the same form and name the failing member or the
        script, so a message's form never tells a real check from a decoy (issue 25).
    """

    #: Per probe kind, what a uniform guess or a constant reply scores (answers are balanced).
    probe_chance: ClassVar[dict[str, float]] = {COMMAND_OK: 0.5, COMMAND_ERROR: 1 / ERROR_OPTIONS}

    def script_failure(self, installed: tuple[int, ...], path: str) -> RunFailure | None:
        """THE run-time rule of one script (v2's checks and order), in the v4 messages."""
        r = self.rules
        touched = r.touched[path]
        for kind, anchor, members, text in r.consistency:
            if anchor not in touched and not any(m in touched for m in members):
                continue
            a = installed[anchor]
            if a == ABSENT:
                continue
            av = r.versions[anchor][a]
            for m in members:
                if installed[m] == ABSENT:
                    continue
                mv = r.versions[m][installed[m]]
                if (kind == "same_major_with_anchor" and mv[0] != av[0]) or \
                        (kind == "same_minor_with_anchor" and mv != av):
                    return RunFailure("consistency", text.replace(IMPORTER, r.names[m]))
        for call in r.calls[path]:
            fail = self.call_failure_v4(installed, call, path)
            if fail is not None:
                return fail
        for (caller, cv), reqs in r.needs.items():
            if caller not in touched or installed[caller] != cv:
                continue
            for call in reqs:
                fail = self.call_failure_v4(installed, call, r.names[caller])
                if fail is not None:
                    return fail
        for when, scopes, text in r.hidden:
            if path not in scopes and "run.py" not in scopes and "*" not in scopes:
                continue
            if all(installed[q] != ABSENT and installed[q] in allowed for q, allowed in when):
                return RunFailure("hidden_rule", text.replace(IMPORTER, path))
        return None

    def call_failure_v4(self, installed: tuple[int, ...], call: Call,
                        importer: str) -> RunFailure | None:
        """THE rule of one API use (v2's), reported in the shared shapes."""
        r = self.rules
        pv = installed[call.provider]
        if pv == ABSENT:
            return RunFailure("module_missing", import_error(call.module, call.symbol, importer))
        mods = r.api.get((call.provider, pv), {})
        if call.module not in mods:
            return RunFailure("module_missing", import_error(call.module, call.symbol, importer))
        if call.symbol not in mods[call.module]:
            return RunFailure("symbol_missing", import_error(call.module, call.symbol, importer))
        sig = mods[call.module][call.symbol]
        for kw in call.kwargs:
            if kw not in sig:
                return RunFailure("signature_mismatch",
                                  keyword_error(call.module, call.symbol, kw, importer))
        return None

    # -- world-model probes (arena_gen.core.probes); answers step the game -------------------

    def outcome(self, state: RepoV2, command: str) -> tuple[bool, str]:
        """Whether ``command`` works from ``state``, and what it prints (on one line)."""
        return self.stepped(state, command)[1:]

    def stepped(self, state: RepoV2, command: str) -> tuple[RepoV2, bool, str]:
        """The state ``command`` leads to from ``state``, whether it worked and what it
        printed (on one line); kept per game, as a probe draw asks the same pair many times
        and the judge asks it again."""
        cache: dict[tuple[RepoV2, str], tuple[RepoV2, bool, str]] = memo(self, "stepped")
        known = cache.get((state, command))
        if known is None:
            if len(cache) >= _OUTCOMES_KEPT:
                cache.clear()
            after, event = self.act(state, command)
            known = cache[state, command] = (
                after, isinstance(event, RepoEvent) and event.kind in _WORKED,
                " ".join(event.feedback.split()))
        return known

    def environment(self, state: RepoV2) -> str:
        """``state`` as ``pip list`` shows it, on one line."""
        head, _, *packages = (line.strip() for line in self.pip_list(state).splitlines())
        return f"{head}; packages: {', '.join(packages)}"

    def _commands(self, state: RepoV2) -> list[str]:
        """The commands probes name: ``python run.py`` and every install of a version not
        installed, in a fixed order."""
        kept = memo(self, "install_texts")
        if not kept:
            r = self.rules
            kept[0] = [[f"pip install {r.names[p]}=={r.vname(p, v)}"
                        for v in range(len(r.versions[p]))] for p in range(r.n)]
        texts: list[list[str]] = kept[0]
        return [RUN_PY, *(text for p, per in enumerate(texts) for v, text in enumerate(per)
                          if state.installed[p] != v)]

    def probes(self, state: RepoV2, visited: Sequence[RepoV2], rng: np.random.Generator,
               count: int) -> list[Probe]:
        """``count`` questions: half ``command_error`` (while a few drawn failing commands
        give four outputs, :meth:`_error_probe`), the rest ``command_ok`` in pairs, a ``yes``
        and a ``no`` of one kind of command, about the current environment, else one a step
        away, else one visited (wherever the wanted answer is found first: half the questions
        start from the current one). Every outcome is stepped only when a question needs it
        (commands are tried in drawn orders and the first fitting one is taken)."""
        visited = [v for v in visited if isinstance(v, RepoV2)]
        steps = _Steps(self, state)
        near = self._near(steps, rng)
        made: list[Probe] = []
        slots = balanced(rng, count // 2, letters(ERROR_OPTIONS))
        ranks = balanced(rng, count // 2, range(ERROR_OPTIONS))
        for slot, rank in zip(slots, ranks, strict=True):
            probe = self._error_probe(steps, slot, rank, rng)
            if probe is None:
                break
            made.append(probe)
        ask = _Asker(self, state, [*near, *(v for v in list(visited)[::-1][:_NEAR]
                                           if v != state)])
        left = count - len(made)
        for kind in balanced(rng, left // 2, _KINDS):  # a yes and a no of one kind of command
            pair = None
            for k in [kind, *(_KINDS[int(j)] for j in rng.permutation(len(_KINDS))
                              if _KINDS[int(j)] != kind)]:
                yes = ask.find("yes", k, rng)  # (a kind with no yes needs no search for a no)
                pair = [yes, None if yes is None else ask.find("no", k, rng)]
                if None not in pair:
                    break
            made += [p or ask.any(want, rng) for p, want in zip(pair or [None, None], YES_NO,
                                                                  strict=True)]
        if left % 2:
            want = YES_NO[int(rng.integers(len(YES_NO)))]
            made.append(ask.find(want, _KINDS[int(rng.integers(len(_KINDS)))], rng)
                        or ask.any(want, rng))
        order = rng.permutation(len(made))
        return [_renamed(made[int(j)], f"q{i}") for i, j in enumerate(order)]

    def _near(self, steps: _Steps, rng: np.random.Generator) -> list[RepoV2]:
        """Environments one step from the current one, a few of each kind in a drawn order: a
        package added, one moved to another version, one removed (so an environment's size
        tells nothing about which one a question states); of each kind, the first moves that
        work in a drawn order."""
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

    def _subject(self, state: RepoV2, command: str) -> dict[str, Any]:
        py = None if state.python == ABSENT else version_text(self.rules.pythons[state.python])
        return {"python": py, "installed": {self.rules.names[q]: self.rules.vname(q, x)
                                            for q, x in enumerate(state.installed)
                                            if x != ABSENT},
                "environment": self.environment(state), "command": command}

    def _ok_probe(self, state: RepoV2, command: str) -> Probe:
        return Probe(id="", kind=COMMAND_OK, choices=YES_NO, question=(
            f"Suppose the environment is: {self.environment(state)}. Does `{command}` succeed "
            f"from it? Answer with exactly one word: yes or no."),
            subject=self._subject(state, command))

    def _error_probe(self, steps: _Steps, slot: str, rank: int, rng: np.random.Generator
                     ) -> Probe | None:
        """A command that fails here and four environments it fails from, met in a drawn
        order among this one and a few of those a step away (a working install or an
        uninstall), whose error outputs differ in length; the question states the one whose
        output has length rank ``rank`` (0: the shortest) and puts it at ``slot``, the others
        in the order met.

        The four are drawn alike and the stated one is picked by a balanced rank, so every
        surface feature of an option (its length, its error's kind, the packages it names)
        is as likely the right one's as another's: a guess by such a feature scores chance.
        None when none of the first few failing commands in a drawn order has four such
        environments."""
        tried = 0
        for j in rng.permutation(len(steps.commands)):
            command = steps.commands[int(j)]
            if self.outcome(steps.state, command)[0]:
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
        labels = letters(ERROR_OPTIONS)
        at = labels.index(slot)
        options = [*others[:at], right, *others[at:]]
        shown = " ".join(f"{lab}) {t}" for lab, t in zip(labels, options, strict=True))
        return Probe(id="", kind=COMMAND_ERROR, choices=labels, question=(
            f"Suppose the environment is: {self.environment(state)}. `{command}` fails from "
            f"it. Which error output does it print? {shown} Answer with exactly one letter: "
            f"A, B, C or D."),
            subject={**self._subject(state, command), "options": options})

    def state_of(self, subject: dict[str, Any]) -> RepoV2:
        """The environment a probe states, as a game state (ValueError when it names no
        Python or package version of this world)."""
        r = self.rules
        py = subject["python"]
        shown = [version_text(v) for v in r.pythons]
        if py is not None and py not in shown:
            raise ValueError(f"probe names Python {py!r}, not offered here")
        installed = [ABSENT] * r.n
        for name, version in dict(subject["installed"]).items():
            p = r.index.get(name)
            names = [] if p is None else [r.vname(p, v) for v in range(len(r.versions[p]))]
            if p is None or version not in names:
                raise ValueError(f"probe names {name}=={version}, not in this world")
            installed[p] = names.index(version)
        return RepoV2(ABSENT if py is None else shown.index(py), tuple(installed))

    def probe_answer(self, state: RepoV2, probe: Probe) -> str:
        """Whether the command works from the stated environment, or the letter of what it
        prints (both by stepping the game)."""
        ok, text = self.outcome(self.state_of(probe.subject), str(probe.subject["command"]))
        if probe.kind == COMMAND_OK:
            return "yes" if ok else "no"
        if probe.kind == COMMAND_ERROR and probe.choices is not None and not ok:
            options = list(probe.subject["options"])
            if options.count(text) == 1:
                return probe.choices[options.index(text)]
        raise ValueError(f"not a repo probe of this task: {probe.kind!r}")

    def probe_correct(self, probe: Probe, answer: str, reply: str) -> bool:
        return choice_correct(probe, answer, reply)


def command_kind(installed: Collection[str], command: str) -> str:
    """A ``command_ok`` command's kind as the question shows it: ``python run.py``, an install
    of a package the stated environment holds, or of one it lacks."""
    if command == RUN_PY:
        return "run"
    return "move" if command.split()[2].split("==")[0] in installed else "add"


#: The kinds of ``command_ok`` commands; each kind is asked as often with ``yes`` as with
#: ``no`` (``python run.py`` mostly fails, so its kind would otherwise tell the answer).
_KINDS = ("run", "move", "add")


class _Asker:
    """``command_ok`` questions: the current environment, then near ones, then visited ones;
    a command is stepped from an environment only when a question tries it there."""

    def __init__(self, game: RepoGameV4, state: RepoV2, others: list[RepoV2]) -> None:
        self.game, self.others = game, others
        self.envs = [state]
        self.kinds: dict[int, list[tuple[str, str]]] = {}  # per environment: (command, kind)

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
            r, env = self.game.rules, self.envs[e]
            held = {r.names[q] for q in range(r.n) if env.installed[q] != ABSENT}
            self.kinds[e] = [(c, command_kind(held, c)) for c in self.game._commands(env)]
        return [c for c, k in self.kinds[e] if k == kind]

    def find(self, want: str, kind: str, rng: np.random.Generator) -> Probe | None:
        """A question of ``kind`` whose answer is ``want`` (the first such command in a drawn
        order): half start from the current environment, the rest from the next; None when
        no environment has one."""
        e = 0 if rng.random() < 0.5 else 1
        while self._has(e):
            env, commands = self.envs[e], self._of_kind(e, kind)
            for j in rng.permutation(len(commands)):
                if self.game.outcome(env, commands[int(j)])[0] == (want == "yes"):
                    return self.game._ok_probe(env, commands[int(j)])
            e += 1
        return None

    def any(self, want: str, rng: np.random.Generator) -> Probe:
        """A question whose answer is ``want`` if any environment has one, of any kind; else
        any command from the current environment."""
        for kind in (_KINDS[int(j)] for j in rng.permutation(len(_KINDS))):
            if (probe := self.find(want, kind, rng)) is not None:
                return probe
        commands = self.game._commands(self.envs[0])
        return self.game._ok_probe(self.envs[0], commands[int(rng.integers(len(commands)))])


class _Steps:
    """A state (number 0) and the moves from it (1, 2, ...: every install its probes name,
    then every uninstall); a move's environment is stepped to only when first asked, and
    is None when the move fails."""

    def __init__(self, game: RepoGameV4, state: RepoV2) -> None:
        r = game.rules
        self.game, self.state = game, state
        self.commands = game._commands(state)
        held = {r.names[q] for q in range(r.n) if state.installed[q] != ABSENT}
        installs = [c for c in self.commands if c != RUN_PY]
        self.moves = installs + [f"pip uninstall {r.names[q]}" for q in range(r.n)
                                 if state.installed[q] != ABSENT]
        self.kinds = [command_kind(held, c) for c in installs] + ["remove"] * (
            len(self.moves) - len(installs))

    def __len__(self) -> int:
        return 1 + len(self.moves)

    def env(self, k: int) -> RepoV2 | None:
        """The ``k``-th environment (None when its move fails)."""
        if k == 0:
            return self.state
        after, ok, _ = self.game.stepped(self.state, self.moves[k - 1])
        return after if ok else None

    def outcome(self, k: int, command: str) -> tuple[bool, str] | None:
        """What ``command`` does from the ``k``-th environment (None when there is none)."""
        env = self.env(k)
        return None if env is None else self.game.outcome(env, command)


def _four_lengths(command: str, steps: _Steps, order: Iterable[Any]
                  ) -> list[tuple[int, str]] | None:
    """Of the first few environments in ``order`` (:data:`_ERROR_ENVS`), the first four from
    which ``command`` prints an error of a length no earlier one's has, with those errors;
    None when fewer are met."""
    met: list[tuple[int, str]] = []
    lengths: set[int] = set()
    looked = 0
    for k in order:
        seen = steps.outcome(int(k), command)
        if seen is None:
            continue
        looked += 1
        ok, text = seen
        if not ok and text.startswith("ERROR") and len(text) not in lengths:
            met.append((int(k), text))
            lengths.add(len(text))
            if len(met) == ERROR_OPTIONS:
                return met
        if looked == _ERROR_ENVS:
            break
    return None


def _renamed(probe: Probe, new_id: str) -> Probe:
    """``probe`` with another id (its place in the milestone's order)."""
    return Probe(id=new_id, kind=probe.kind, question=probe.question, choices=probe.choices,
                 subject=probe.subject)
