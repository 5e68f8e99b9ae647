"""Repo System: repair a simulated Python repository with pip and python commands.

The rules are :class:`RepoGame` (its docstring holds the Gymnasium sections: action space,
observation, rewards, episode end, information and rubric), compiled from a world by
:class:`Rules`. ``RepoGame.command`` is THE command rule on a configuration: the env, the BMC
plan checks and the BFS all apply it.

Decisions where the spec is silent:
    - Install resolves to the highest version matching the request; an unknown package, no
      match, or a failed rule is an error that rolls everything back (state unchanged).
    - Requires-Python is checked at install time (the package's own Python bound) and again at
      run time in the pip-check step (so switching Python later can break a script). With no
      Python selected, installing a version that declares Requires-Python fails.
    - Side effects and dependency adjustments of a high-priority install never touch the
      installed package itself; auto-set packages skip their own checks (Requires-Python,
      dependencies, side effects). Conflicts are checked after all adjustments, for the
      requested package only, in both directions.
    - Medium-priority installs need every declared dependency installed (any version) first.
    - ``pip uninstall`` of a package that is not installed is a valid no-op with a warning.
    - A script "touches" its call providers and its imports; every touched package must be
      installed (``ModuleNotFoundError``, checked in import order before the calls' symbols),
      and the consistency, symbol, dependency and Requires-Python checks apply to touched
      packages. Every package is touched by some script.
    - Consistency rule: every touched, installed member must share the anchor's major (or full
      ``M.m``) when the anchor is installed.
    - A hidden rule fires when both of its packages are installed inside its two ranges.
    - The observation does not echo the installed set: ``pip list`` does (one turn).
    - ``TypeError`` messages name the qualified callee (``pkg3.core.load()``) so the provider
      is discoverable; symbol-requirement errors add ``(required by pkgY 1.2)``.
    - Minimum commands counted by the verifier: Python selection, installs and uninstalls, plus
      the final ``python run.py``; read-only commands are never needed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena_gen.core.game import ActionError, Check, Event, Game, TaskLike
from arena_gen.core.task import RubricItem
from arena_gen.envs.repo.common import (
    ABSENT,
    PYTHONS,
    RepoFacts,
    adjust,
    random_command,
    script_checks,
    script_rubric,
)
from arena_gen.envs.repo.parse import Command, CommandError, parse_command
from arena_gen.envs.repo.semver import (
    Version,
    parse_spec,
    parse_version,
    satisfies,
    spec_text,
    version_text,
)

#: A state is ``(python index or -1, version index or -1 per package)`` flattened in one tuple.
State = tuple[int, ...]


class InstallError(Exception):
    """An install that fails a rule; the whole command is rolled back."""


@dataclass(frozen=True)
class Release:
    """One compiled package version: its rules as index sets."""

    deps: tuple[tuple[int, frozenset[int], str], ...]  # (package, allowed versions, spec text)
    python: frozenset[int] | None  # allowed python indices, None = no Requires-Python
    python_text: str
    conflicts: tuple[tuple[int, frozenset[int]], ...]
    effects: tuple[tuple[str, int, frozenset[int]], ...]  # (kind, package, allowed versions)
    api: dict[str, dict[str, list[str]]]
    needs: tuple[tuple[int, str, str, str | None], ...]  # (package, module, symbol, keyword)


class Rules:
    """The compiled transition function of one world: env, verifiers, agents and judge use it."""

    def __init__(self, world: dict[str, Any]) -> None:
        pk = world["packages"]
        self.names: list[str] = [p["name"] for p in pk]
        self.index = {name: i for i, name in enumerate(self.names)}
        self.n = len(pk)
        self.priority: list[str] = [p["priority"] for p in pk]
        self.version_names: list[list[str]] = [list(p["versions"]) for p in pk]
        self.versions: list[list[Version]] = [[parse_version(v) for v in p["versions"]]
                                              for p in pk]
        self.pythons: list[str] = list(world.get("pythons", PYTHONS))
        self.py_versions = [parse_version(v) for v in self.pythons]
        self.releases: list[list[Release]] = [
            [self._compile(rel) for rel in p["releases"]] for p in pk]
        # reverse conflicts: against[p] = [(q, w, allowed versions of p)]
        self.against: list[list[tuple[int, int, frozenset[int]]]] = [[] for _ in pk]
        for q in range(self.n):
            for w, rel in enumerate(self.releases[q]):
                for p, allowed in rel.conflicts:
                    self.against[p].append((q, w, allowed))
        self.scripts: list[dict[str, Any]] = list(world["scripts"])
        self.script_paths = tuple(s["path"] for s in self.scripts)
        self.touched: list[list[int]] = []
        for s in self.scripts:
            seen: list[int] = []
            for name in [c["pkg"] for c in s["calls"]] + list(s["imports"]):
                if self.index[name] not in seen:
                    seen.append(self.index[name])
            self.touched.append(seen)
        self.consistency = [(self.index[r["anchor"]], [self.index[m] for m in r["members"]],
                             r["level"]) for r in world["consistency"]]
        self.hidden = [(self.index[h["a"]["pkg"]], self.allowed(self.index[h["a"]["pkg"]],
                                                                h["a"]["spec"]),
                        self.index[h["b"]["pkg"]], self.allowed(self.index[h["b"]["pkg"]],
                                                                h["b"]["spec"]),
                        h["scope"], h["error"]) for h in world["hidden"]]

    # -- compiling ------------------------------------------------------------------------------
    def allowed(self, p: int, spec: str) -> frozenset[int]:
        """The version indices of package ``p`` matching a spec string."""
        clauses = parse_spec(spec)
        return frozenset(i for i, v in enumerate(self.versions[p]) if satisfies(v, clauses))

    def _compile(self, rel: dict[str, Any]) -> Release:
        deps = tuple((self.index[d["pkg"]], self.allowed(self.index[d["pkg"]], d["spec"]),
                      d["spec"]) for d in rel["deps"])
        py = rel.get("python")
        python = None
        if py:
            clauses = parse_spec(py)
            python = frozenset(i for i, v in enumerate(self.py_versions) if satisfies(v, clauses))
        conflicts = tuple((self.index[c["pkg"]], self.allowed(self.index[c["pkg"]], c["spec"]))
                          for c in rel["conflicts"])
        effects = tuple((e["kind"], self.index[e["pkg"]],
                         self.allowed(self.index[e["pkg"]], e["spec"])) for e in rel["effects"])
        needs = tuple((self.index[x["pkg"]], x["module"], x["symbol"], x.get("keyword"))
                      for x in rel["needs"])
        return Release(deps=deps, python=python, python_text=py or "", conflicts=conflicts,
                       effects=effects, api=rel["api"], needs=needs)

    # -- states ---------------------------------------------------------------------------------
    def initial(self) -> State:
        """No Python, nothing installed."""
        return (ABSENT,) * (self.n + 1)

    def vname(self, p: int, v: int) -> str:
        return self.version_names[p][v]

    def adjustments(self, p: int, v: int) -> list[tuple[str, int, frozenset[int]]]:
        """The ordered per-package adjustments installing ``(p, v)`` applies after setting p."""
        rel = self.releases[p][v]
        prio = self.priority[p]
        out: list[tuple[str, int, frozenset[int]]] = []
        if prio in ("high", "medium"):
            out.extend(("ensure", q, allowed) for q, allowed, _ in rel.deps if q != p)
        if prio == "high":
            out.extend((kind, q, allowed) for kind, q, allowed in rel.effects if q != p)
        return out

    def install(self, state: State, p: int, v: int) -> tuple[State, list[str]]:
        """Install ``(p, v)``: checks, adjustments, conflicts; raise InstallError to roll back."""
        rel = self.releases[p][v]
        name = f"{self.names[p]} {self.vname(p, v)}"
        if rel.python is not None:
            if state[0] == ABSENT:
                raise InstallError(f"ERROR: {name} requires Python {rel.python_text}, and no "
                                   f"Python is selected (pip install python==3.X)")
            if state[0] not in rel.python:
                raise InstallError(f"ERROR: {name} requires Python {rel.python_text}, but the "
                                   f"environment has Python {self.pythons[state[0]]}")
        if self.priority[p] == "medium":
            missing = [self.names[q] for q, _, _ in rel.deps if state[1 + q] == ABSENT]
            if missing:
                raise InstallError(f"ERROR: {name} requires {', '.join(missing)} to be "
                                   f"installed first")
        new = list(state)
        new[1 + p] = v
        for kind, q, allowed in self.adjustments(p, v):
            new[1 + q] = adjust(kind, allowed, new[1 + q])
        for q, allowed in rel.conflicts:
            if new[1 + q] in allowed:
                raise InstallError(f"ERROR: {name} conflicts with {self.names[q]} "
                                   f"{self.vname(q, new[1 + q])}")
        for q, w, allowed in self.against[p]:
            if v in allowed and new[1 + q] == w and q != p:
                raise InstallError(f"ERROR: {name} conflicts with {self.names[q]} "
                                   f"{self.vname(q, w)} (declared by {self.names[q]})")
        changes = []
        for q in range(self.n):
            if q != p and new[1 + q] != state[1 + q]:
                old = "absent" if state[1 + q] == ABSENT else self.vname(q, state[1 + q])
                changes.append(f"{self.names[q]} {old} -> {self.vname(q, new[1 + q])}")
        return tuple(new), changes

    @staticmethod
    def uninstall(state: State, p: int) -> State:
        """Remove only ``p``."""
        new = list(state)
        new[1 + p] = ABSENT
        return tuple(new)

    @staticmethod
    def set_python(state: State, i: int) -> State:
        return (i,) + tuple(state[1:])

    # -- running --------------------------------------------------------------------------------
    def _installed_text(self, state: State, q: int) -> str:
        return f"{self.names[q]} {self.vname(q, state[1 + q])}"

    def _call_error(self, state: State, q: int, module: str, symbol: str, kw: str | None,
                    by: str) -> str | None:
        if state[1 + q] == ABSENT:
            return f"ModuleNotFoundError: No module named '{self.names[q]}'{by}"
        api = self.releases[q][state[1 + q]].api
        sig = api.get(module, {}).get(symbol)
        if sig is None:
            return (f"ImportError: cannot import name '{symbol}' from "
                    f"'{self.names[q]}.{module}'{by}")
        if kw is not None and kw not in sig:
            return (f"TypeError: {self.names[q]}.{module}.{symbol}() got an unexpected keyword "
                    f"argument '{kw}'{by}")
        return None

    def script_error(self, state: State, s: int) -> str | None:
        """Run one script in ``state``: the first failing check's message, or None if it passes."""
        touched = self.touched[s]
        path = self.script_paths[s]
        inst = [q for q in touched if state[1 + q] != ABSENT]
        for anchor, members, level in self.consistency:
            if state[1 + anchor] == ABSENT or not (set(members + [anchor]) & set(touched)):
                continue
            av = self.versions[anchor][state[1 + anchor]]
            for m in members:
                if state[1 + m] == ABSENT:
                    continue
                mv = self.versions[m][state[1 + m]]
                if (mv[0] != av[0]) if level == "major" else (mv != av):
                    what = "major version" if level == "major" else "version (M.m)"
                    return (f"RuntimeError: {self._installed_text(state, m)} must share the "
                            f"{what} of {self._installed_text(state, anchor)}")
        for q in touched:
            if state[1 + q] == ABSENT:
                return f"ModuleNotFoundError: No module named '{self.names[q]}'"
        for call in self.scripts[s]["calls"]:
            err = self._call_error(state, self.index[call["pkg"]], call["module"],
                                   call["symbol"], call.get("keyword"), "")
            if err:
                return err
        for t in inst:
            for q, module, symbol, kw in self.releases[t][state[1 + t]].needs:
                err = self._call_error(state, q, module, symbol, kw,
                                       f" (required by {self._installed_text(state, t)})")
                if err:
                    return err
        for t in inst:
            rel = self.releases[t][state[1 + t]]
            for q, allowed, spec in rel.deps:
                if state[1 + q] == ABSENT:
                    return (f"ERROR: {self._installed_text(state, t)} requires "
                            f"{self.names[q]}{spec}, which is not installed")
                if state[1 + q] not in allowed:
                    return (f"ERROR: {self._installed_text(state, t)} has requirement "
                            f"{self.names[q]}{spec}, but you have "
                            f"{self._installed_text(state, q)}")
            if rel.python is not None and state[0] not in rel.python:
                return (f"ERROR: {self._installed_text(state, t)} requires Python "
                        f"{rel.python_text}, but the environment has Python "
                        f"{self.pythons[state[0]]}")
        for a, ra, b, rb, scope, error in self.hidden:
            if scope in ("*", path) and state[1 + a] in ra and state[1 + b] in rb:
                return error
        return None

    def script_results(self, state: State) -> list[bool]:
        """Pass/fail of every script in ``state`` (False for all without Python)."""
        if state[0] == ABSENT:
            return [False] * len(self.scripts)
        return [self.script_error(state, s) is None for s in range(len(self.scripts))]

    def run_error(self, state: State) -> tuple[int, str] | None:
        """``python run.py``: the first failing script and its message, or None on success."""
        if state[0] == ABSENT:
            return -1, "ERROR: no Python interpreter selected (pip install python==3.X)"
        for s in range(len(self.scripts)):
            err = self.script_error(state, s)
            if err:
                return s, err
        return None

    def ok(self, state: State) -> bool:
        """Whether ``python run.py`` succeeds in ``state``."""
        return self.run_error(state) is None

    def resolve(self, p: int, spec: tuple[Any, ...]) -> int | None:
        """The highest version of ``p`` matching the requested clauses, or None."""
        clauses = list(spec)
        hits = [i for i, v in enumerate(self.versions[p]) if satisfies(v, clauses)]
        return max(hits) if hits else None


@dataclass(frozen=True)
class Repo:
    """A repo state: the configuration (Python and installed versions) and whether
    ``python run.py`` has succeeded."""

    config: State
    run_ok: bool = False


class RepoGame(Game[Repo, Command, RepoFacts]):
    """Repo System.

    Description:
        A repository needs packages ``pkg0 .. pkg(n-1)`` (each with ``M.m`` versions) and a
        Python version. Hidden rules (declared dependencies, Requires-Python, conflicts, install
        side effects, API drift between versions, consistency rules and hidden pairwise rules)
        decide whether ``python run.py`` succeeds. Most rules show up only in error messages.
    Action Space:
        One terminal command per turn: ``pip install NAME[SPEC]`` (SPEC = clauses of ``== >= <=
        > < !=`` on ``M.m`` versions joined by commas, no spaces, quotes allowed), ``pip install
        python==3.X``, ``pip uninstall NAME``, ``pip list``, ``pip show NAME``, ``repo tree``,
        ``python run.py``, ``python <script path>``. Malformed commands are invalid (a reason
        and a usage hint, state unchanged, one turn spent).
    Observation:
        The command's output, then the turns left.
    Starting State:
        No Python selected, nothing installed.
    Rewards:
        1.0 on the turn ``python run.py`` succeeds, 0.0 otherwise.
    Episode End:
        Terminated when ``python run.py`` succeeds; truncated when the turn budget is spent.
        ``python <script>`` never ends the episode.
    Information:
        ``python`` (the selected version or None), ``installed`` (package -> version),
        ``scripts`` (script path -> whether it passes now), ``run_ok`` (``python run.py`` has
        succeeded); plus the shared ``valid``, ``turn``, ``turns_left``, ``success`` and
        ``feedback`` of the text env.
    Rubric:
        ``run_ok`` (success) and one ``script_<name>_ok`` per script (partial credit: the
        script passes in the final state). Success: all met (``run_ok`` implies the rest).
    Arguments:
        ``task``: a repo :class:`~arena_gen.core.task.Task`, a Draft or a
        :class:`~arena_gen.core.game.WorldView` (the verifiers compile from a bare world).
    Version History:
        v1: initial release.
    """

    def __init__(self, task: TaskLike) -> None:
        super().__init__(task)
        self.rules = Rules(task.world)

    def parse(self, text: str) -> Command:
        try:
            return parse_command(text, self.rules.script_paths)
        except CommandError as exc:
            raise ActionError(str(exc)) from None

    def reject(self, state: Repo, error: ActionError) -> tuple[Repo, Event]:
        text = str(error)
        return state, Event(feedback=text if text.startswith("ERROR") else f"ERROR: {text}",
                            valid=False)

    def initial(self) -> Repo:
        return Repo(self.rules.initial())

    def step(self, state: Repo, action: Command) -> tuple[Repo, Event]:
        config, event = self.command(state.config, action)
        return Repo(config, run_ok=state.run_ok or event.reward > 0), event

    def command(self, state: State, cmd: Command) -> tuple[State, Event]:
        """THE command rule on a configuration: the next configuration and the output."""
        r = self.rules
        if cmd.kind in ("install", "uninstall", "show") and cmd.name not in r.index:
            return state, Event(f"ERROR: unknown package {cmd.name!r}; available packages: "
                                f"{', '.join(r.names)}")
        if cmd.kind == "python":
            py = cmd.spec[0][1]
            if py not in r.py_versions:
                return state, Event(f"ERROR: Python {version_text(py)} is not available; "
                                    f"choose one of {', '.join(r.pythons)}")
            i = r.py_versions.index(py)
            if state[0] == i:
                return state, Event(f"Requirement already satisfied: python=={r.pythons[i]}")
            return r.set_python(state, i), Event(f"Selected Python {r.pythons[i]}.")
        if cmd.kind == "install":
            return self._install(state, r.index[cmd.name], cmd.spec)
        if cmd.kind == "uninstall":
            p = r.index[cmd.name]
            if state[1 + p] == ABSENT:
                return state, Event(f"WARNING: Skipping {cmd.name} as it is not installed.")
            old = r.vname(p, state[1 + p])
            return r.uninstall(state, p), Event(f"Successfully uninstalled {cmd.name}-{old}")
        if cmd.kind == "list":
            return state, Event(self.pip_list(state))
        if cmd.kind == "show":
            return state, Event(self.pip_show(state, r.index[cmd.name]))
        if cmd.kind == "tree":
            return state, Event("\n".join(["repo/", "  run.py"] +
                                           [f"  {p}" for p in r.script_paths]))
        if cmd.kind == "script":
            s = r.script_paths.index(cmd.path)
            if state[0] == ABSENT:
                return state, Event("ERROR: no Python interpreter selected "
                                    "(pip install python==3.X)")
            err = r.script_error(state, s)
            return state, Event(f"{cmd.path}: {err}" if err else f"{cmd.path}: OK")
        failure = r.run_error(state)
        if failure is None:
            return state, Event(f"All {len(r.scripts)} scripts passed. run.py succeeded.",
                                reward=1.0)
        s, err = failure
        where = "" if s < 0 else f"{r.script_paths[s]} failed:\n"
        return state, Event(f"python run.py failed. {where}{err}")

    def moves(self) -> list[tuple[str, Command]]:
        """Every command that can change a configuration, parsed once: each Python selection,
        each exact install and each uninstall (search expands a configuration by applying
        :meth:`command` to each; read-only commands never change one)."""
        r = self.rules
        texts = [f"pip install python=={py}" for py in r.pythons]
        for p in range(r.n):
            texts += [f"pip install {r.names[p]}=={r.vname(p, v)}"
                      for v in range(len(r.versions[p]))]
            texts.append(f"pip uninstall {r.names[p]}")
        return [(text, self.parse(text)) for text in texts]

    def _install(self, state: State, p: int, spec: tuple[Any, ...]) -> tuple[State, Event]:
        r = self.rules
        name = r.names[p]
        v = r.resolve(p, spec)
        if v is None:
            req = name + spec_text(spec)
            return state, Event(f"ERROR: No matching distribution found for {req} "
                                f"(available: {', '.join(r.version_names[p])})")
        if state[1 + p] == v:
            return state, Event(f"Requirement already satisfied: {name}=={r.vname(p, v)}")
        try:
            after, changes = r.install(state, p, v)
        except InstallError as exc:
            return state, Event(f"{exc} (nothing was changed)")
        extra = f" Also changed: {'; '.join(changes)}." if changes else ""
        return after, Event(f"Successfully installed {name}-{r.vname(p, v)}.{extra}")

    def pip_list(self, state: State) -> str:
        """The installed packages and the Python version, one per line."""
        r = self.rules
        py = "none" if state[0] == ABSENT else r.pythons[state[0]]
        lines = [f"Python {py}", "Package    Version"]
        lines += [f"{r.names[q]:<10} {r.vname(q, state[1 + q])}" for q in range(r.n)
                  if state[1 + q] != ABSENT]
        return "\n".join(lines)

    def pip_show(self, state: State, p: int) -> str:
        """A package's version, declared requirements and Requires-Python."""
        r = self.rules
        v = state[1 + p]
        if v == ABSENT:
            return f"WARNING: Package(s) not found: {r.names[p]}"
        rel = r.releases[p][v]
        requires = ", ".join(f"{r.names[q]}{spec}" for q, _, spec in rel.deps) or "(none)"
        return (f"Name: {r.names[p]}\nVersion: {r.vname(p, v)}\nRequires: {requires}\n"
                f"Requires-Python: {rel.python_text or '(any)'}")

    def done(self, state: Repo) -> bool:
        return state.run_ok

    def facts(self, state: Repo) -> RepoFacts:
        r, config = self.rules, state.config
        passed = r.script_results(config)
        return RepoFacts(
            python=None if config[0] == ABSENT else r.pythons[config[0]],
            installed={r.names[q]: r.vname(q, config[1 + q]) for q in range(r.n)
                       if config[1 + q] != ABSENT},
            scripts={path: ok for path, ok in zip(r.script_paths, passed, strict=True)},
            run_ok=state.run_ok)

    @classmethod
    def rubric(cls, params: Mapping[str, Any], world: Mapping[str, Any]) -> list[RubricItem]:
        return script_rubric([s["path"] for s in world["scripts"]],
                             "python run.py succeeded (all five scripts passed in order).")

    def checks(self, facts: RepoFacts) -> list[Check]:
        return script_checks(self.rules.script_paths, facts.run_ok, facts.scripts)

    def render(self, state: Repo) -> str:
        return ""

    @staticmethod
    def random_action(public: dict[str, Any], rng: np.random.Generator) -> str:
        return random_command(public, rng, ("pip list", "pip show {name}", "repo tree"))
