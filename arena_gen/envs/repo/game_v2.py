"""Repo System v2: the released OdysseyArena repo game (install, conflict and run-time rules).

The rules are :class:`RepoGameV2` (its docstring holds the Gymnasium sections), compiled from a
world in the released world format (a normalised subset of the released task objects: the same
keys and JSON shapes, minus the generator record and the natural-language rule dump).
``RepoGameV2.install_plan`` exposes each install as a typed :class:`InstallPlan` (the Python
bound, the dependency adjustments, the side effects and the conflicts, in the order the rule
applies them); ``step`` applies the plan, and the v2 verifier builds its encoding from the same
plans, so the proof is about the game agents play.

Decisions (reproducing the released game, where v1 chose otherwise):
    - Requires-Python is checked at install time only (``>=`` bounds in the released data);
      nothing at run time reads the Python version beyond "one is selected".
    - High-priority installs bring each declared dependency into range at its highest allowed
      version, then apply the side effects in order (``ensure``, ``force_high``, ``force_low``,
      ``pin``) on the packages they name; medium-priority installs need every declared
      dependency installed and silently move out-of-range ones to their highest allowed
      version; low-priority installs touch nothing else.
    - Only the new version's own declared conflicts are checked, against the adjusted state.
    - A bare ``pip install NAME`` of an installed package reports it as installed (no upgrade);
      requesting the installed version is a no-op. Any install error rolls the command back.
    - ``run.py`` runs the entrypoint scripts in order; per script: consistency rules touching
      it, its calls, the symbol requirements of the packages it touches, then the hidden rules
      in scope. Declared dependencies and Requires-Python are not checked at run time.
    - Consistency and hidden-rule messages are the world's own texts (version-free, the hidden
      ones mimic API errors); ``pip show`` and ``pip check`` do not exist.
    - Version text is read leniently as in the released game: the first ``M[.m[.p]]`` number
      in the text, the patch ignored (``1.2.3`` is 1.2); an unparsable version is an error.
    - An empty ``python_versions`` offers every Python 3.0-3.30 (the released env checks
      membership only in a non-empty list); no task of any released suite has one.
"""

from __future__ import annotations

import dataclasses
import functools
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NoReturn, TypeVar

import numpy as np

from arena_gen.core.compiled import compiled
from arena_gen.core.game import MAX_TEXT, ActionError, Check, Event, Game, TaskLike
from arena_gen.core.task import RubricItem
from arena_gen.envs.repo.common import (
    ABSENT,
    RepoFacts,
    adjust,
    random_command,
    script_checks,
    script_rubric,
    scripts_met,
)
from arena_gen.envs.repo.semver import (
    Clause,
    Version,
    holds,
    normalise,
    read_version,
    satisfies,
    spec_text,
    version_text,
)

#: The operators a requirement is read with, as released (no ``!=``).
OPS = ("==", ">=", "<=", ">", "<")


# -- commands ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Command:
    """A parsed command: ``kind`` in noop | list | tree | install | uninstall | python."""

    kind: str
    name: str = ""
    clauses: tuple[Clause, ...] = ()
    target: str = ""


def parse_command(text: str) -> Command:
    """Read one command as the released game does; malformed text raises ActionError. A short
    text's reading is remembered (agents repeat their commands; a Command is immutable)."""
    if isinstance(text, str) and len(text) <= _REMEMBERED_TEXT:
        return _remembered_command(text)
    return _read_command(text)


def _read_command(text: str) -> Command:
    """:func:`parse_command` itself."""
    cmd = (text or "").strip().replace("<action>", "").replace("</action>", "").strip()
    cmd = cmd.split("\n", 1)[0].strip()
    if not cmd or cmd == "noop":
        return Command("noop")
    if cmd == "pip list":
        return Command("list")
    if cmd in ("repo tree", "repo ls"):
        return Command("tree")
    tokens = cmd.split()
    if cmd.startswith("pip install"):
        if len(tokens) < 3 or tokens[1] != "install":
            raise ActionError(f"malformed pip install command {cmd!r} "
                              f"(usage: pip install NAME[==M.m])")
        if len(tokens) != 3:
            raise ActionError("one package per pip install command; install them one by one")
        try:
            name, clauses = parse_requirement(tokens[2])
        except ValueError as exc:
            raise ActionError(f"cannot read the requirement {tokens[2]!r}: {exc}") from None
        return Command("install", name=name, clauses=tuple(clauses))
    if cmd.startswith("pip uninstall"):
        if len(tokens) < 3 or tokens[1] != "uninstall":
            raise ActionError(f"malformed pip uninstall command {cmd!r} "
                              f"(usage: pip uninstall NAME)")
        return Command("uninstall", name=tokens[2])
    if cmd.startswith("python"):
        if len(tokens) < 2:
            raise ActionError(f"python needs a script to run, e.g. 'python run.py' ({cmd!r})")
        return Command("python", target=tokens[1].strip())
    raise ActionError(f"unknown command {cmd!r}; commands: pip install, pip uninstall, "
                      f"pip list, repo tree, python <script>")


#: Texts up to this length have their reading remembered (at most 1,024 of them: ~0.5 MB).
_REMEMBERED_TEXT = 256
_remembered_command = functools.lru_cache(maxsize=1024)(_read_command)


def parse_requirement(spec: str) -> tuple[str, list[Clause]]:
    """``NAME`` then clauses from the first operator on, comma-separated (parsing stops at a
    piece that starts with no known operator)."""
    spec = spec.strip()
    found = [i for i in (spec.find(op) for op in OPS) if i != -1]
    if not found:
        return spec, []
    start = min(found)
    name, tail = spec[:start].strip(), spec[start:].strip()
    clauses: list[Clause] = []
    while tail:
        op = next((o for o in OPS if tail.startswith(o)), None)
        if op is None:
            break
        rest = tail[len(op):].strip()
        piece, _, tail = rest.partition(",")
        tail = tail.strip()
        clauses.append((op, read_version(piece.strip())))
    return name, clauses


# -- compiled rules ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Call:
    """An API use: ``provider`` must export ``symbol`` from ``module`` taking ``kwargs``."""

    provider: int
    module: str
    symbol: str
    kwargs: tuple[str, ...]


@dataclass(frozen=True)
class InstallPlan:
    """What installing (package, version) does, in rule order (built once per release)."""

    package: int
    version: int
    python: tuple[str, Version] | None  # Requires-Python clause
    deps: tuple[tuple[int, frozenset[int]], ...]  # (package, allowed version indices)
    effects: tuple[tuple[str, int, frozenset[int]], ...]  # (kind, package, allowed)
    conflicts: tuple[tuple[int, frozenset[int], str], ...]  # (package, versions, world text)
    priority: str

    def __getstate__(self) -> dict[str, Any]:
        """The fields only: what the cached properties worked out is rebuilt when asked, so a
        plan pickles alike whatever it was asked (probe draws and a planner's model share one
        compiled world)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    def adjustments(self) -> list[tuple[str, int, frozenset[int]]]:
        """The per-package value updates a high-priority install applies, in order (a
        dependency fix is an ``ensure``)."""
        return list(self._adjusted)

    def touches(self) -> list[int]:
        """The packages other rules of this install may move (before the package itself)."""
        return list(self._touched)

    @functools.cached_property
    def _adjusted(self) -> tuple[tuple[str, int, frozenset[int]], ...]:
        """:meth:`adjustments`, built once per plan (installs are stepped often)."""
        if self.priority != "high":
            return ()
        return tuple([("ensure", q, a) for q, a in self.deps] + list(self.effects))

    @functools.cached_property
    def unmet(self) -> bool:
        """Whether this is a high-priority release with a dependency or side effect that no
        version meets (installing it then always fails), worked out once."""
        return self.priority == "high" and not all(allowed for _, _, allowed in self._adjusted)

    @functools.cached_property
    def _touched(self) -> tuple[int, ...]:
        """:meth:`touches`, built once per plan."""
        if self.priority == "high":
            return tuple(dict.fromkeys(q for _, q, _ in self._adjusted))
        if self.priority == "medium":
            return tuple(dict.fromkeys(q for q, _ in self.deps))
        return ()

    @functools.cached_property
    def _rules_of(self) -> dict[int, tuple[tuple[str, frozenset[int]], ...]]:
        """Per package, the (kind, allowed) of the updates aimed at it, in rule order (a
        medium install's are its dependencies, kind ``ensure``)."""
        out: dict[int, list[tuple[str, frozenset[int]]]] = {}
        aimed = (self._adjusted if self.priority == "high" else
                 tuple(("ensure", q, a) for q, a in self.deps) if self.priority == "medium"
                 else ())
        for kind, q, allowed in aimed:
            out.setdefault(q, []).append((kind, allowed))
        return {q: tuple(rules) for q, rules in out.items()}

    def update(self, q: int, old: int) -> tuple[int, bool]:
        """THE per-package rule: package ``q``'s value after the adjustments (each reads only
        ``q``'s own value), and whether a high-priority update moved it on the way (it is
        then reported, and wins over the installed version if ``q`` is the package itself).
        Kept per plan by (``q``, ``old``), as probe draws apply one install many times."""
        key = (q, old)
        known = self._updates.get(key)
        if known is None:
            known = self._updates[key] = self._update(q, old)
        return known

    @functools.cached_property
    def _updates(self) -> dict[tuple[int, int], tuple[int, bool]]:
        """:meth:`update`'s answers so far."""
        return {}

    def _update(self, q: int, old: int) -> tuple[int, bool]:
        """:meth:`update` worked out."""
        value, moved = old, False
        if self.priority == "high":
            for kind, allowed in self._rules_of.get(q, ()):
                new = adjust(kind, allowed, value)
                moved, value = moved or new != value, new
        elif self.priority == "medium":
            for _, allowed in self._rules_of.get(q, ()):
                if value != ABSENT and value not in allowed and allowed:
                    value = max(allowed)
        return value, moved


#: An empty ``python_versions`` offers Pythons 3.0 .. 3.(this - 1).
ANY_PYTHON_MINORS = 31


K = TypeVar("K")
V = TypeVar("V")


class ReadOnlyDict(dict[K, V]):
    """A dict that refuses changes (equal to, and as JSON-ready as, the dict it copies; it
    pickles and copies as that dict)."""

    def _refuse(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError("compiled repo rules are read-only")

    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (dict(self),)


class Rules:
    """A world compiled to index form: every version-dependent rule as an index set.

    Read-only once built (tuples, frozen sets and read-only mappings; attributes cannot be
    rebound), so games of equal worlds share one (:mod:`arena_gen.core.compiled`)."""

    names: tuple[str, ...]
    index: Mapping[str, int]
    priority: tuple[str, ...]
    versions: tuple[tuple[Version, ...], ...]
    pythons: tuple[Version, ...]
    vindex: tuple[Mapping[Version, int], ...]
    #: Per package, each version as text (:func:`.semver.version_text`, built once).
    vnames: tuple[tuple[str, ...], ...]
    plans: tuple[tuple[InstallPlan, ...], ...]
    api: Mapping[tuple[int, int], Mapping[str, Mapping[str, frozenset[str]]]]
    needs: Mapping[tuple[int, int], tuple[Call, ...]]
    script_paths: tuple[str, ...]
    entrypoints: tuple[str, ...]
    calls: Mapping[str, tuple[Call, ...]]
    touched: Mapping[str, frozenset[int]]
    consistency: tuple[tuple[str, int, tuple[int, ...], str], ...]
    hidden: tuple[tuple[tuple[tuple[int, frozenset[int]], ...], tuple[str, ...], str], ...]

    def __init__(self, world: dict[str, Any]) -> None:
        self._build(world)
        self._frozen = True

    def __setattr__(self, name: str, value: Any) -> None:
        if getattr(self, "_frozen", False):
            raise AttributeError(f"compiled repo rules are read-only (setting {name!r})")
        object.__setattr__(self, name, value)

    def _build(self, world: dict[str, Any]) -> None:
        """Compile ``world`` (the read-only containers are built last, from the work ones)."""
        pk = world["packages"]
        # canonical JSON sorts keys, so the released order lives in a list
        self.names = tuple(world.get("package_order") or pk)
        self.index = ReadOnlyDict({n: i for i, n in enumerate(self.names)})
        self.n = len(self.names)
        self.priority = tuple(pk[n]["priority"] for n in self.names)
        self.versions = tuple(tuple(read_version(v) for v in pk[n]["versions"])
                              for n in self.names)
        pythons = [read_version(v) for v in world["python_versions"]]
        #: An empty ``python_versions`` accepts any Python, as the released env does: every
        #: 3.x up to 3.30 and each version a Requires-Python bound names are offered, fixed
        #: here (the rules never change during play, so every reset plays the same game).
        self.any_python = not pythons
        if self.any_python:
            pythons = sorted({(3, minor) for minor in range(ANY_PYTHON_MINORS)}
                             | {read_version(py[1])
                                for table in world.get("version_requires_python", {}).values()
                                for py in table.values() if py})
        self.pythons = tuple(pythons)
        self.vnames = tuple(tuple(version_text(v) for v in vs) for vs in self.versions)
        self.vindex = tuple(ReadOnlyDict({v: i for i, v in enumerate(vs)})
                            for vs in self.versions)
        self.plans = tuple(tuple(self._plan(world, p, v) for v in range(len(self.versions[p])))
                           for p in range(self.n))
        api: dict[tuple[int, int], Mapping[str, Mapping[str, frozenset[str]]]] = {}
        for name, by_ver in (world.get("api_surface") or {}).items():
            for vs, entry in by_ver.items():
                key = (self.index[name], self.vindex[self.index[name]][read_version(vs)])
                mods: dict[str, dict[str, frozenset[str]]] = {m: {} for m in entry["modules"]}
                for m, syms in entry.get("exports", {}).items():
                    if m in mods:
                        for s in syms:
                            mods[m][s] = frozenset(entry.get("signatures", {}).get(f"{m}:{s}",
                                                                                   []))
                api[key] = ReadOnlyDict({m: ReadOnlyDict(syms)
                                             for m, syms in mods.items()})
        self.api = ReadOnlyDict(api)
        wanted = {(self.index[name], self.vindex[self.index[name]][read_version(vs)]): reqs
                  for name, by_ver in (world.get("symbol_requires") or {}).items()
                  for vs, reqs in by_ver.items()}
        # checked in package, version order
        self.needs = ReadOnlyDict({key: tuple(self._call(r) for r in wanted[key])
                                       for key in sorted(wanted)})
        self.script_paths = tuple(world["scripts"])
        self.entrypoints = tuple(world["entrypoints"])
        calls: dict[str, tuple[Call, ...]] = {}
        touched: dict[str, frozenset[int]] = {}
        for path, entry in world["scripts"].items():
            calls[path] = tuple(self._call(c) for c in entry.get("calls", []))
            touched[path] = frozenset({self.index[x] for x in entry.get("imports", [])}
                                      | {c.provider for c in calls[path]})
        self.calls, self.touched = ReadOnlyDict(calls), ReadOnlyDict(touched)
        self.consistency = tuple(
            (r["type"], self.index[r["anchor"]], tuple(self.index[m] for m in r["packages"]),
             r.get("error", "RuntimeError: consistency check failed."))
            for r in world.get("consistency_rules", []))
        hidden = []
        for r in world.get("hidden_rules", []):
            when = tuple((self.index[name], self._allowed(self.index[name], cl))
                         for name, cl in r.get("when", []) if cl)
            if not when:
                continue
            scope = r.get("scope") or ["run.py"]
            hidden.append((when, (scope,) if isinstance(scope, str) else tuple(scope),
                           r.get("error", "RuntimeError: the project failed.")))
        self.hidden = tuple(hidden)

    def _allowed(self, p: int, clauses: list[list[str]]) -> frozenset[int]:
        """The indices of package ``p``'s versions that satisfy every clause."""
        cl = [(op, read_version(t)) for op, t in clauses]
        return frozenset(i for i, v in enumerate(self.versions[p]) if satisfies(v, cl))

    def _call(self, c: dict[str, Any]) -> Call:
        return Call(self.index[c["provider"]], c["module"], c["symbol"],
                    tuple(c.get("required_kwargs") or ()))

    def _plan(self, world: dict[str, Any], p: int, v: int) -> InstallPlan:
        name, vs = self.names[p], self.versions[p][v]

        def lookup(key: str) -> Any:
            table = world.get(key, {}).get(name, {})
            return next((val for k, val in table.items() if read_version(k) == vs), None)

        py = lookup("version_requires_python")
        deps = tuple((self.index[q], self._allowed(self.index[q], cl))
                     for q, cl in (lookup("version_dependencies") or []))
        effects = tuple((kind, self.index[q], self._allowed(self.index[q], cl))
                        for kind, q, cl in (lookup("side_effects") or []) if q in self.index)
        conflicts = tuple((self.index[q], self._allowed(self.index[q], [[op, t]]), msg)
                          for q, op, t, msg in (lookup("version_conflicts") or []))
        return InstallPlan(p, v, (py[0], read_version(py[1])) if py else None, deps, effects,
                           conflicts, self.priority[p])

    def vname(self, p: int, v: int) -> str:
        """A version index as text."""
        return self.vnames[p][v]


# -- state, outcomes, facts ----------------------------------------------------------------------
@dataclass(frozen=True)
class RepoV2:
    """A state: Python index (or ABSENT), a version index (or ABSENT) per package, and whether
    ``python run.py`` has succeeded."""

    python: int
    installed: tuple[int, ...]
    run_ok: bool = False


@dataclass(frozen=True)
class RepoEvent(Event):
    """An event with its message kind and, for script failures, the failing script."""

    kind: str = ""
    script: str | None = None
    check: str | None = None  # the failing run-time check (``run_failed`` / ``script_failed``)


@dataclass(frozen=True)
class RunFailure:
    """Why a script fails: the check kind and the message."""

    kind: str
    message: str


#: A v2 repo state's facts: the fields every repo version shares (:class:`.common.RepoFacts`).
RepoV2Facts = RepoFacts


class InstallFailure(Exception):
    """An install error: the command is rolled back."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


#: Per game (by its id while it lives: a finalizer drops its tables before the id can be
#: reused), what its pure helpers worked out, kept beside the game and never in it (so a game
#: pickles and compares as it was built, whatever it was asked).
_MEMOS: dict[int, dict[str, dict[Any, Any]]] = {}


def memo(game: Any, table: str) -> dict[Any, Any]:
    """``game``'s memo table named ``table`` (empty at first)."""
    tables = _MEMOS.get(id(game))
    if tables is None:
        tables = _MEMOS[id(game)] = {}
        weakref.finalize(game, _MEMOS.pop, id(game), None)
    return tables.setdefault(table, {})


class RepoGameV2(Game[RepoV2, Command, RepoV2Facts]):
    """Repo System, version 2 (the released OdysseyArena rules).

    Description:
        A repository needs packages ``pkg0 .. pkg(n-1)`` and a Python version. Hidden rules
        (declared dependencies, Requires-Python, conflicts, side effects of high-priority
        installs, API drift between versions, symbol requirements, consistency rules and
        hidden combination rules) decide whether ``python run.py`` succeeds; most of them
        show up only in error messages.
    Action Space:
        One terminal command per turn: ``pip install NAME``, ``pip install NAME==M.m``,
        ``pip install NAME>=M.m,<M.m`` (operators ``== >= <= > <``), ``pip install
        python==3.X``, ``pip uninstall NAME``, ``pip list``, ``repo tree`` (or ``repo ls``),
        ``python run.py``, ``python <script path>``; an empty command does nothing. Text that
        is no command is invalid (a reason, state unchanged, one turn spent).
    Observation:
        The command's output, then the turns left.
    Starting State:
        No Python selected, nothing installed.
    Rewards:
        1.0 on the turn ``python run.py`` succeeds, 0.0 otherwise.
    Episode End:
        Terminated when ``python run.py`` succeeds; truncated when the turn budget is spent.
    Information:
        ``python`` (selected version or None), ``installed`` (package -> version),
        ``scripts`` (entrypoint path -> whether it passes now), ``run_ok``; plus the text env's
        ``valid``, ``turn``, ``turns_left``, ``success`` and ``feedback``. Each event carries a
        message ``kind`` (e.g. ``installed``, ``conflict``, ``run_failed``) and the failing
        ``script``.
    Rubric:
        ``run_ok`` (success) and one ``script_<name>_ok`` per entrypoint (it passes at the end).
    Arguments:
        ``task``: a repo v2 task, Draft, or :class:`~arena_gen.core.game.WorldView`.
    Version History:
        v1: arena-gen's own repo game (sampler-defined world format).
        v2: the released OdysseyArena rules, so imported released tasks play as released:
        side effects follow dependency edges and pin the world's versions, only the new
        version's conflicts are checked, Requires-Python only at install time with ``>=``
        bounds, run.py checks calls, consistency, symbol requirements and hidden rules only,
        consistency messages name only the anchor, hidden-rule messages are version-free
        decoys, a bare install of an installed package is a no-op, no ``pip show``, lenient
        version text (``1.2.3`` is 1.2). Differentially tested against the released code.
        v3: the same rules (this class, unchanged) on new worlds (``envs/repo/sampler_v3.py``):
        reference-like density (about 3 dependencies per version, a symbol requirement on
        every dependency edge), side effects that move packages off the working state,
        consistency and hidden-rule messages that name no package of the fix, success sets
        capped per preset, and a complete rules text a planner can parse; the default for
        ``build`` (the repair loop solves 27 % of Lite and 20 % of Challenge at seed 7).
    """

    def __init__(self, task: TaskLike) -> None:
        super().__init__(task)
        self.rules = compiled(Rules, task.world)  # one compile per world a process

    # -- Game API --------------------------------------------------------------------------------
    def parse(self, text: str) -> Command:
        return parse_command(text)

    def reject(self, state: RepoV2, error: ActionError) -> tuple[RepoV2, Event]:
        return state, RepoEvent(feedback=f"ERROR: {error}", valid=False, kind="invalid")

    def initial(self) -> RepoV2:
        return RepoV2(ABSENT, (ABSENT,) * self.rules.n)

    def done(self, state: RepoV2) -> bool:
        return state.run_ok

    def step(self, state: RepoV2, action: Command) -> tuple[RepoV2, Event]:
        r = self.rules
        k = action.kind
        if k == "noop":
            return state, RepoEvent("ERROR: no command given.", valid=False, kind="noop")
        if k == "list":
            return state, RepoEvent(self.pip_list(state), kind="list")
        if k == "tree":
            return state, RepoEvent("\n".join(["Scripts:", "  run.py"] +
                                              [f"  {p}" for p in sorted(r.script_paths)]),
                                    kind="tree")
        if k == "uninstall":
            p = r.index.get(action.name)
            if p is None or state.installed[p] == ABSENT:
                return state, RepoEvent(f"ERROR: {action.name} is not installed; nothing to "
                                        f"uninstall.", kind="not_installed")
            old = r.vname(p, state.installed[p])
            return self._with(state, {p: ABSENT}), RepoEvent(
                f"Removed {action.name} {old}.", kind="uninstalled")
        if k == "install":
            if action.name.lower() == "python":
                return self._python(state, action.clauses)
            return self._install(state, action.name, list(action.clauses))
        return self._run(state, action.target)

    # -- install ---------------------------------------------------------------------------------
    def _python(self, state: RepoV2, clauses: tuple[Clause, ...]) -> tuple[RepoV2, Event]:
        r = self.rules
        if not clauses:
            return state, RepoEvent("ERROR: say which Python to install, as python==3.X.",
                                    kind="python_needs_version")
        if len(clauses) != 1 or clauses[0][0] != "==":
            return state, RepoEvent("ERROR: Python takes one exact version (python==3.X).",
                                    kind="python_exact_only")
        py = clauses[0][1]
        if py not in r.pythons:
            return state, RepoEvent(
                f"ERROR: Python {version_text(py)} is not offered here; choose one of "
                f"{', '.join(version_text(v) for v in r.pythons)}.", kind="python_unavailable")
        return RepoV2(r.pythons.index(py), state.installed, state.run_ok), RepoEvent(
            f"Python {version_text(py)} is now the interpreter.", kind="python_installed")

    def _install(self, state: RepoV2, name: str, clauses: list[Clause]) -> tuple[RepoV2, Event]:
        r = self.rules
        p = r.index.get(name)
        if p is None:
            return state, RepoEvent(f"ERROR: no package called {name!r} in the index.",
                                    kind="unknown_package")
        available = r.versions[p]
        if not clauses:
            if state.installed[p] != ABSENT:
                return state, RepoEvent(
                    f"{name} {r.vname(p, state.installed[p])} is installed already.",
                    kind="already_installed")
            v = max(range(len(available)), key=lambda i: available[i])
        else:
            norm, hits = self._matching(p, clauses)
            if not hits:
                listing = ", ".join(version_text(v) for v in available)
                return state, RepoEvent(
                    f"ERROR: no version of {name} matches {spec_text(norm or clauses)} "
                    f"(versions: {listing}).", kind="no_matching_version")
            v = max(hits, key=lambda i: available[i])
            if state.installed[p] == v:
                return state, RepoEvent(f"{name} {r.vname(p, v)} is installed already and "
                                        f"matches {spec_text(norm)}.", kind="already_installed")
        return self.install_version(state, p, v)

    def act_exact(self, state: RepoV2, text: str) -> tuple[RepoV2, Event]:
        """:meth:`act`, with an install whose request picks a version read once per game (probe
        draws step the same ``pip install NAME==V`` texts from many environments)."""
        pick = self.exact_pick(text)
        if pick is None or state.installed[pick[0]] == pick[1]:
            return self.act(state, text)
        return self.install_version(state, *pick)

    def exact_pick(self, text: str) -> tuple[int, int] | None:
        """The (package, version) an install ``text`` picks whatever the state (see
        :meth:`_pick`), read once per game; :meth:`act` applies it unless that version is
        installed already."""
        picks: dict[str, tuple[int, int] | None] = memo(self, "picks")
        if text not in picks:
            picks[text] = self._pick(text)
        return picks[text]

    def _pick(self, text: str) -> tuple[int, int] | None:
        """The package and version :meth:`_install` installs for ``text`` when it is an
        install of a known package with a request some version matches, else None."""
        try:
            action = self.parse(text) if len(text) <= MAX_TEXT else None
        except ActionError:
            return None
        if (action is None or action.kind != "install" or action.name.lower() == "python"
                or not action.clauses):
            return None
        p = self.rules.index.get(action.name)
        if p is None:
            return None
        available = self.rules.versions[p]
        if len(action.clauses) == 1 and action.clauses[0][0] == "==":
            # what _matching and the newest hit give for one equality, without a scan per
            # text: the first index of that version, or none when it is not offered
            wanted = action.clauses[0][1]
            return (p, available.index(wanted)) if wanted in available else None
        hits = self._matching(p, list(action.clauses))[1]
        return (p, max(hits, key=lambda i: available[i])) if hits else None

    def install_version(self, state: RepoV2, p: int, v: int) -> tuple[RepoV2, RepoEvent]:
        """Installing version ``v`` of ``p`` once the request chose it: the install rule applied
        and its message."""
        after, kind, text = self.install_result(state, p, v)
        return after, RepoEvent(text, kind=kind)

    def install_result(self, state: RepoV2, p: int, v: int) -> tuple[RepoV2, str, str]:
        """:meth:`install_version` as (state, message kind, message), without building the
        event (probe draws step installs by the thousand and read only these)."""
        r = self.rules
        try:
            after, changed = self.apply_install(state, p, v)
        except InstallFailure as exc:
            return state, exc.kind, f"ERROR: {exc} Nothing was changed."
        text = f"Installed {r.names[p]} {r.vname(p, v)}."
        if changed:
            text += " Changed along with it: " + ", ".join(
                f"{r.names[q]} {r.vname(q, x)}" for q, x in changed) + "."
        return after, "installed", text

    def _matching(self, p: int, clauses: list[Clause]) -> tuple[list[Clause], list[int]]:
        """A request's normal form and the version indices of ``p`` it matches (kept per
        game: it depends on the request only, and probes ask the same installs often)."""
        cache: dict[tuple[int, tuple[Clause, ...]], tuple[list[Clause], list[int]]] = memo(
            self, "matching")
        key = (p, tuple(clauses))
        if key not in cache:
            available = self.rules.versions[p]
            norm = normalise(clauses, available)
            cache[key] = (norm, [i for i, x in enumerate(available)
                                 if norm and satisfies(x, norm)])
        return cache[key]

    def install_plan(self, p: int, v: int) -> InstallPlan:
        """The typed rule of installing version index ``v`` of package ``p``."""
        return self.rules.plans[p][v]

    def apply_install(self, state: RepoV2, p: int, v: int) -> tuple[RepoV2, list[tuple[int, int]]]:
        """THE install rule for an exact version (raises InstallFailure): the new state and the
        adjusted packages reported (by name order)."""
        r = self.rules
        plan = r.plans[p][v]

        def label() -> str:  # (built only for a failure's text)
            return f"{r.names[p]} {r.vname(p, v)}"

        if plan.python is not None:
            op, target = plan.python
            if state.python == ABSENT:
                raise InstallFailure("requires_python_unset",
                                     f"{label()} needs Python {op} {version_text(target)} and "
                                     f"no Python is selected.")
            if not holds(r.pythons[state.python], op, target):
                raise InstallFailure("requires_python",
                                     f"{label()} needs Python {op} {version_text(target)}; the "
                                     f"selected one is {version_text(r.pythons[state.python])}.")
        if plan.priority == "high":
            for q, allowed in plan.deps:
                if not allowed:
                    raise InstallFailure("dependency_unsatisfiable",
                                         f"{label()} depends on {r.names[q]} in a range no "
                                         f"version of it meets.")
            for _, q, allowed in plan.effects:
                if not allowed:
                    raise InstallFailure("side_effect_unsatisfiable",
                                         f"{label()} would move {r.names[q]} into a range no "
                                         f"version of it meets.")
        elif plan.priority == "medium":
            missing = [f"{r.names[q]} (not installed)" if state.installed[q] == ABSENT else
                       f"{r.names[q]} (no version of it fits)"
                       for q, allowed in plan.deps
                       if state.installed[q] == ABSENT or not allowed]
            if missing:
                raise InstallFailure("missing_dependencies",
                                     f"{label()} needs these installed first: "
                                     f"{', '.join(missing)}.")
        work = list(state.installed)
        changed: dict[int, int] = {}
        for q in plan._touched:  # (touches() without the copy)
            new, moved = plan.update(q, work[q])
            work[q] = new
            if moved:
                changed[q] = new
        for q, versions, text in plan.conflicts:
            if work[q] != ABSENT and work[q] in versions:
                raise self.conflict_failure(p, v, q, work[q], text)
        work[p] = changed.get(p, v)
        return (RepoV2(state.python, tuple(work), state.run_ok),
                sorted(changed.items(), key=lambda kv: r.names[kv[0]]) if len(changed) > 1
                else list(changed.items()))

    def conflict_failure(self, p: int, v: int, q: int, x: int, text: str) -> InstallFailure:
        """The failure of installing version ``v`` of ``p`` beside version ``x`` of ``q``, the
        first conflict rule it breaks (``text``: that rule's world text)."""
        r = self.rules
        return InstallFailure("conflict", f"{r.names[p]} {r.vname(p, v)} cannot sit beside "
                                          f"{r.names[q]} {r.vname(q, x)} ({text}).")

    def _with(self, state: RepoV2, updates: dict[int, int]) -> RepoV2:
        inst = list(state.installed)
        for q, x in updates.items():
            inst[q] = x
        return RepoV2(state.python, tuple(inst), state.run_ok)

    # -- run -------------------------------------------------------------------------------------
    def _run(self, state: RepoV2, target: str) -> tuple[RepoV2, Event]:
        r = self.rules
        if state.python == ABSENT:
            return state, RepoEvent("ERROR: no Python selected yet; install one first "
                                    "(pip install python==3.X).", kind="python_unset")
        if target == "run.py":
            for path in r.entrypoints:
                fail = self.script_failure(state.installed, path)
                if fail is not None:
                    return state, RepoEvent(f"ERROR: run.py stopped in {path}:\n  {fail.message}",
                                            kind="run_failed", script=path,
                                            check=fail.kind)
            return RepoV2(state.python, state.installed, True), RepoEvent(
                "run.py finished: every entrypoint passed.", reward=1.0, kind="run_ok")
        if target in r.calls:
            fail = self.script_failure(state.installed, target)
            if fail is not None:
                return state, RepoEvent(f"ERROR: {target} failed:\n  {fail.message}",
                                        kind="script_failed", script=target,
                                        check=fail.kind)
            return state, RepoEvent(f"{target} passed.", kind="script_ok", script=target)
        return state, RepoEvent(f"ERROR: there is no script {target!r} (see repo tree).",
                                kind="unknown_script")

    def script_failure(self, installed: tuple[int, ...], path: str) -> RunFailure | None:
        """THE run-time rule of one script: the first failing check, or None."""
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
                    return RunFailure("consistency", text)
        for call in r.calls[path]:
            fail = self.call_failure(installed, call, None)
            if fail is not None:
                return fail
        for (caller, cv), reqs in r.needs.items():
            if caller not in touched or installed[caller] != cv:
                continue
            for call in reqs:
                fail = self.call_failure(installed, call, r.names[caller])
                if fail is not None:
                    return fail
        for when, scopes, text in r.hidden:
            if path not in scopes and "run.py" not in scopes and "*" not in scopes:
                continue
            if all(installed[q] != ABSENT and installed[q] in allowed for q, allowed in when):
                return RunFailure("hidden_rule", text)
        return None

    def call_failure(self, installed: tuple[int, ...], call: Call,
                     caller: str | None) -> RunFailure | None:
        """THE rule of one API use: why it fails with these packages, or None."""
        r = self.rules
        pv = installed[call.provider]
        if pv == ABSENT:
            return RunFailure("module_missing",
                              f"ModuleNotFoundError: No module named '{r.names[call.provider]}'")
        mods = r.api.get((call.provider, pv), {})
        if call.module not in mods:
            return RunFailure("module_missing",
                              f"ModuleNotFoundError: No module named '{call.module}'")
        if call.symbol not in mods[call.module]:
            return RunFailure("symbol_missing", f"ImportError: cannot import name "
                                                f"'{call.symbol}' from '{call.module}'")
        sig = mods[call.module][call.symbol]
        for kw in call.kwargs:
            if kw not in sig:
                where = f"imported by '{caller}'" if caller else "called by the project"
                return RunFailure("signature_mismatch" if caller is None else
                                  "caller_signature_mismatch",
                                  f"TypeError: {call.module}.{call.symbol}() got an unexpected "
                                  f"keyword argument '{kw}' ({where})")
        return None

    def run_ok(self, installed: tuple[int, ...]) -> bool:
        """Whether every entrypoint passes with these packages (Python selected)."""
        return all(self.script_failure(installed, p) is None for p in self.rules.entrypoints)

    # -- views -----------------------------------------------------------------------------------
    def pip_list(self, state: RepoV2) -> str:
        """The Python version and the installed packages."""
        r = self.rules
        py = "(none)" if state.python == ABSENT else version_text(r.pythons[state.python])
        lines = [f"Python: {py}", "Packages:"]
        pkgs = [f"  {r.names[q]}=={r.vname(q, x)}" for q, x in
                sorted(enumerate(state.installed), key=lambda qx: r.names[qx[0]])
                if x != ABSENT]
        return "\n".join(lines + (pkgs or ["  (none)"]))

    def facts(self, state: RepoV2) -> RepoV2Facts:
        r = self.rules
        return RepoV2Facts(
            python=None if state.python == ABSENT else version_text(r.pythons[state.python]),
            installed=dict(self.installed_names(state.installed)),
            scripts=(dict(self.scripts_ok(state.installed)) if state.python != ABSENT
                     else dict.fromkeys(r.entrypoints, False)),
            run_ok=state.run_ok)

    def installed_names(self, installed: tuple[int, ...]) -> dict[str, str]:
        """The installed packages as ``{name: version text}``, remembered per configuration
        (most commands of a repair sequence leave it as it was); callers copy it."""
        memo: dict[tuple[int, ...], dict[str, str]] = self.__dict__.setdefault(
            "_names_memo", {})
        found = memo.get(installed)
        if found is None:
            if len(memo) >= 4096:  # bounded, as scripts_ok's
                memo.clear()
            r = self.rules
            found = memo[installed] = {r.names[q]: r.vname(q, x)
                                       for q, x in enumerate(installed) if x != ABSENT}
        return found

    def scripts_ok(self, installed: tuple[int, ...]) -> dict[str, bool]:
        """Whether each script runs on ``installed``, remembered per configuration: a step's
        facts asked it of every script at every step (two thirds of a repo step on error-driven
        repair sequences, where most commands leave the configuration as it was or return
        to one seen before). The same values as :meth:`script_failure` gives, in order."""
        memo: dict[tuple[int, ...], dict[str, bool]] = self.__dict__.setdefault("_ok_memo", {})
        found = memo.get(installed)
        if found is None:
            if len(memo) >= 4096:  # bounded: a long random episode visits many
                memo.clear()
            found = memo[installed] = {p: self.script_failure(installed, p) is None
                                       for p in self.rules.entrypoints}
        return found

    @classmethod
    def rubric(cls, params: Mapping[str, Any], world: Mapping[str, Any]) -> list[RubricItem]:
        return script_rubric(list(world["entrypoints"]),
                             "python run.py succeeded (every entrypoint passed in order).")

    def checks(self, facts: RepoV2Facts) -> list[Check]:
        return script_checks(self.rules.entrypoints, facts.run_ok, facts.scripts)

    def met(self, facts: RepoV2Facts) -> bool:
        """``Game.met`` over :meth:`checks`, read without building their evidence texts."""
        return scripts_met(self.rules.entrypoints, facts.run_ok, facts.scripts)

    def render(self, state: RepoV2) -> str:
        return ""

    @staticmethod
    def random_action(public: dict[str, Any], rng: np.random.Generator) -> str:
        return random_command(public, rng, ("pip list", "repo tree"))  # no pip show in v2
