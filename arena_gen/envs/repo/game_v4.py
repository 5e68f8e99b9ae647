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

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from arena_gen.core.probes import Probe, balanced, choice_correct, letters
from arena_gen.envs.repo.common import ABSENT
from arena_gen.envs.repo.game_v2 import Call, RepoEvent, RepoGameV2, RepoV2, RunFailure, memo
from arena_gen.envs.repo.semver import version_text

#: The placeholder a world's consistency or hidden-rule text may hold (the importer).
IMPORTER = "{importer}"
#: Probe kinds: does a named command succeed from the current environment, and which error
#: (of four real error outputs of this environment) does a failing one print?
COMMAND_OK, COMMAND_ERROR = "command_ok", "command_error"
YES_NO = ("yes", "no")
ERROR_OPTIONS = 4
#: The events of a command that worked (anything else printed an error); an install of what
#: an environment already has works (pip says so and changes nothing).
_WORKED = frozenset({"installed", "already_installed", "run_ok", "script_ok"})
RUN_PY = "python run.py"
#: Failing commands tried per ``command_error`` question before it is given up.
_ERROR_TRIES = 6
#: Near and visited environments a ``command_ok`` question may look in for its answer.
_NEAR = 9
#: Environment texts a game keeps for its probes before it starts afresh.
_ENVIRONMENTS_KEPT = 1 << 12


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
        Each states an environment (Python and ``pip list``'s packages: the current one, or,
        for a ``command_ok`` question whose answer the current one lacks, one a step away or
        one the agent visited) and a command, ``python
        run.py`` or ``pip install NAME==M.m`` of a version not installed. ``command_ok``: does
        it succeed? ``yes``/``no``, half each (chance 50 %).
        ``command_error``: a command that fails here; which of four error outputs does it
        print (on one line)? The others are errors the same command prints from environments
        one step away (a package added, moved or removed). One letter, balanced (chance
        25 %); where no failing command has three such others, a ``command_ok`` question is
        asked instead. Answers step the game from the stated environment.
    Arguments:
        ``task``: a repo v4 task, Draft, or :class:`~arena_gen.core.game.WorldView`.
    Version History:
        v4: every run-time failure is one line of one shape (module and importer always
        present, no trailing period, only ``ImportError`` and ``TypeError``); consistency and
        hidden-rule texts are drawn from the same form and name the failing member or the
        script, so a message's form never tells a real check from a decoy (issue 25).
        Probe drawing of its release, kept as released (issue 38): a ``command_error``
        question states the current environment, its options that environment's error and
        three the command prints a step away; ``command_ok`` answers are balanced over all
        commands, not per kind. Repo v5 draws the same kinds afresh so that no surface
        feature tells the answer (:mod:`.probes_v5`).
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
        # the symbol requirements of the touched packages' installed versions, in the rules'
        # (package, version) order: one lookup per touched package, not a scan of them all
        for caller in self._touched_in_order(path):
            reqs = r.needs.get((caller, installed[caller]))
            if reqs is None:
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

    def _touched_in_order(self, path: str) -> list[int]:
        """The packages script ``path`` touches, in index order (kept per game)."""
        kept: dict[str, list[int]] = memo(self, "touched_in_order")
        found = kept.get(path)
        if found is None:
            found = kept[path] = sorted(self.rules.touched[path])
        return found

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
        event = self.act(state, command)[1]
        return isinstance(event, RepoEvent) and event.kind in _WORKED, " ".join(
            event.feedback.split())

    def environment(self, state: RepoV2) -> str:
        """``state`` as ``pip list`` shows it, on one line (kept per game: a probe's question
        and its subject both state it)."""
        kept: dict[RepoV2, str] = memo(self, "environments")
        text = kept.get(state)
        if text is None:
            if len(kept) >= _ENVIRONMENTS_KEPT:
                kept.clear()
            # pip_list's lines, stripped and joined (its packages in name order, read once)
            r = self.rules
            by_name = memo(self, "by_name").get(0)
            if by_name is None:
                by_name = memo(self, "by_name")[0] = sorted(range(r.n), key=r.names.__getitem__)
            py = "(none)" if state.python == ABSENT else version_text(r.pythons[state.python])
            installed = state.installed
            packages = [f"{r.names[q]}=={r.vnames[q][installed[q]]}" for q in by_name
                        if installed[q] != ABSENT]
            text = kept[state] = f"Python: {py}; packages: {', '.join(packages or ['(none)'])}"
        return text

    def _commands(self, state: RepoV2) -> list[str]:
        """The commands probes name: ``python run.py`` and every install of a version not
        installed, in a fixed order."""
        r = self.rules
        out = [RUN_PY]
        for p in range(r.n):
            out += [f"pip install {r.names[p]}=={r.vname(p, v)}"
                    for v in range(len(r.versions[p])) if state.installed[p] != v]
        return out

    def probes(self, state: RepoV2, visited: Sequence[RepoV2], rng: np.random.Generator,
               count: int) -> list[Probe]:
        """``count`` questions: half ``command_error`` about the current environment (while
        failing commands with four distinct outputs are found), the rest ``command_ok`` about
        the current environment, else one a working install away, else one visited (wherever the
        wanted answer is found first: half the questions start from the current one), each
        kind's answers balanced."""
        visited = [v for v in visited if isinstance(v, RepoV2)]
        pool = [(c, *self.outcome(state, c)) for c in self._commands(state)]
        near = self._near(state, pool, rng)
        failing = [c for c, ok, _ in pool if not ok]
        made = []
        for slot in balanced(rng, count // 2, letters(ERROR_OPTIONS)):
            probe = self._error_probe(state, near, failing, slot, rng)
            if probe is None:
                break
            made.append(probe)
        envs = [state]  # then near ones, then visited ones, as drawn (each pooled once)
        others = [*near, *(v for v in list(visited)[::-1][:_NEAR] if v != state)]
        pools = [pool]
        for want in balanced(rng, count - len(made), YES_NO):
            e = 0 if rng.random() < 0.5 else 1  # half from the current environment
            while True:
                if e >= len(envs) and others:
                    envs.append(others.pop(0))
                    pools.append([(c, *self.outcome(envs[-1], c))
                                  for c in self._commands(envs[-1])])
                if e >= len(envs):  # no environment has the wanted answer: any command
                    e, hits = 0, pool
                    break
                hits = [x for x in pools[e] if x[1] == (want == "yes")]
                if hits:
                    break
                e += 1
            command = hits[int(rng.integers(len(hits)))][0]
            made.append(self._ok_probe(envs[e], command))
        order = rng.permutation(len(made))
        return [_renamed(made[int(j)], f"q{i}") for i, j in enumerate(order)]

    def _near(self, state: RepoV2, pool: list[tuple[str, bool, str]],
              rng: np.random.Generator) -> list[RepoV2]:
        """Environments one step from ``state``, a few of each kind in a drawn order: a
        package added, one moved to another version, one removed (so an environment's size
        tells nothing about which one a question states)."""
        r = self.rules
        works = [c for c, ok, _ in pool if ok and c != RUN_PY]
        held = {r.names[q] for q in range(r.n) if state.installed[q] != ABSENT}
        kinds = [[c for c in works if c.split()[2].split("==")[0] not in held],
                 [c for c in works if c.split()[2].split("==")[0] in held],
                 [f"pip uninstall {name}" for name in sorted(held)]]
        picked = [kind[int(j)] for kind in kinds
                  for j in rng.permutation(len(kind))[:_NEAR // len(kinds)]]
        return [self.act(state, picked[int(j)])[0] for j in rng.permutation(len(picked))]

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

    def _error_probe(self, state: RepoV2, near: list[RepoV2], failing: list[str], slot: str,
                     rng: np.random.Generator) -> Probe | None:
        """A failing command and four outputs: what it prints here, and three other outputs it
        prints from environments one working install or one uninstall away (a drawn few; so
        every option names the same command's packages, and lists of missing packages grow and
        shrink alike); None when no failing command of a few drawn has three."""
        for j in rng.permutation(len(failing))[:_ERROR_TRIES]:
            command = failing[int(j)]
            right = self.outcome(state, command)[1]
            others: list[str] = []
            for k in rng.permutation(len(near)):
                ok, text = self.outcome(near[int(k)], command)
                if not ok and text.startswith("ERROR") and text != right and text not in others:
                    others.append(text)
                    if len(others) == ERROR_OPTIONS - 1:
                        break
            if len(others) == ERROR_OPTIONS - 1:
                break
        else:
            return None
        return error_question(self, state, command, slot, right, others)

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


def error_question(game: RepoGameV4, state: RepoV2, command: str, slot: str, right: str,
                   others: list[str]) -> Probe:
    """The ``command_error`` question (v4's words, kept by v5): ``right`` at letter ``slot``
    among the three ``others``, in their order."""
    labels = letters(ERROR_OPTIONS)
    at = labels.index(slot)
    options = [*others[:at], right, *others[at:]]
    shown = " ".join(f"{lab}) {t}" for lab, t in zip(labels, options, strict=True))
    return Probe(id="", kind=COMMAND_ERROR, choices=labels, question=(
        f"Suppose the environment is: {game.environment(state)}. `{command}` fails from "
        f"it. Which error output does it print? {shown} Answer with exactly one letter: "
        f"A, B, C or D."),
        subject={**game._subject(state, command), "options": options})


def _renamed(probe: Probe, new_id: str) -> Probe:
    """``probe`` with another id (its place in the milestone's order)."""
    return Probe(id=new_id, kind=probe.kind, question=probe.question, choices=probe.choices,
                 subject=probe.subject)
