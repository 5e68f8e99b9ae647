"""The repo rules (v2-v6) read from a task's world on their own, for the second encoder.

Reads the released world format (``packages``, ``package_order``, ``python_versions``, the
per-version tables, ``api_surface``, ``scripts``, ``entrypoints``, ``consistency_rules``,
``hidden_rules``) into index form, validating as it goes; anything it does not understand is
refused with the JSON path (a refused world gets no proof, never a wrong one). It is stricter
than the game: versions are exact ``M.m`` text listed in increasing order, every table key names
a listed version, every name a package, so that "highest" and "lowest" mean the same by index
and by version. Nothing here imports ``arena_gen.envs``.

A package's value is a *slot*: ``0 .. V-1`` its versions in listed order, ``V`` not installed;
the Python's slot is ``0 .. P-1`` the offered Pythons, ``P`` none selected.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from arena_gen.core.errors import ArenaGenError

#: Repo v6 Challenge worlds hold up to 125 packages (proved group by group).
MAX_PACKAGES = 128
MAX_VERSIONS = 32
MAX_PYTHONS = 32
PRIORITIES = ("high", "medium", "low")
EFFECTS = ("ensure", "force_high", "force_low", "pin")
CONSISTENCY = ("same_major_with_anchor", "same_minor_with_anchor")
OPS = ("==", "!=", ">=", "<=", ">", "<")
_VERSION = re.compile(r"(0|[1-9][0-9]{0,3})\.(0|[1-9][0-9]{0,3})")
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}")

Version = tuple[int, int]


class EncodeError(ArenaGenError, ValueError):
    """The world cannot be encoded; the message names the JSON path."""


@dataclass(frozen=True)
class Call:
    """An API use: it works when the provider's installed version is one of ``works``."""

    provider: int
    works: frozenset[int]


@dataclass(frozen=True)
class Plan:
    """Installing one version, as the world states it (indices of versions and Pythons)."""

    pythons: frozenset[int] | None  # Requires-Python: the Pythons it admits; None: any
    deps: tuple[tuple[int, frozenset[int]], ...]  # declared dependency ranges
    effects: tuple[tuple[str, int, frozenset[int]], ...]  # side effects, in order
    conflicts: tuple[tuple[int, frozenset[int]], ...]  # versions it cannot sit beside


@dataclass(frozen=True)
class World:
    """A repo world in index form."""

    names: tuple[str, ...]
    versions: tuple[tuple[Version, ...], ...]
    priority: tuple[str, ...]
    pythons: tuple[Version, ...]
    plans: tuple[tuple[Plan, ...], ...]
    calls: tuple[Call, ...]  # every entrypoint's calls
    needs: tuple[tuple[int, int, Call], ...]  # (caller, its version, call) of touched callers
    consistency: tuple[tuple[str, int, tuple[int, ...]], ...]  # rules touching an entrypoint
    hidden: tuple[tuple[tuple[int, frozenset[int]], ...], ...]  # rules run.py checks

    def absent(self, q: int) -> int:
        """The slot of "package q is not installed"."""
        return len(self.versions[q])


def _fail(path: str, what: str) -> EncodeError:
    return EncodeError(f"{path}: expected {what}")


def _version(text: Any, path: str) -> Version:
    m = _VERSION.fullmatch(text) if isinstance(text, str) else None
    if m is None:
        raise _fail(path, "a version M.m")
    return int(m.group(1)), int(m.group(2))


def _holds(v: Version, op: str, t: Version) -> bool:
    return {"==": v == t, "!=": v != t, ">=": v >= t, "<=": v <= t, ">": v > t, "<": v < t}[op]


class _Reader:
    """Reads one world, every lookup checked and named by its JSON path."""

    def __init__(self, world: Any) -> None:
        if not isinstance(world, dict):
            raise _fail("world", "an object")
        self.w = world
        pk = self.obj(world.get("packages"), "world.packages")
        order = world.get("package_order", sorted(pk))
        if not isinstance(order, list) or sorted(order) != sorted(pk) or \
                len(set(order)) != len(order):
            raise _fail("world.package_order", "the package names, each once")
        if not 1 <= len(order) <= MAX_PACKAGES:
            raise _fail("world.packages", f"1 to {MAX_PACKAGES} packages")
        self.names = tuple(order)
        self.index = {n: i for i, n in enumerate(order)}
        versions, priority = [], []
        for n in order:
            path = f"world.packages.{n}"
            if _NAME.fullmatch(n) is None or n.lower() == "python":
                raise _fail(path, "a package name (letters, digits, _ . -), not python")
            entry = self.obj(pk[n], path)
            if entry.get("priority") not in PRIORITIES:
                raise _fail(f"{path}.priority", f"one of {PRIORITIES}")
            vs = self.items(entry.get("versions"), f"{path}.versions", MAX_VERSIONS)
            parsed = tuple(_version(v, f"{path}.versions[{i}]") for i, v in enumerate(vs))
            if list(parsed) != sorted(set(parsed)) or not parsed:
                raise _fail(f"{path}.versions", "distinct versions in increasing order")
            versions.append(parsed)
            priority.append(entry["priority"])
        self.versions = tuple(versions)
        self.priority = tuple(priority)
        pys = self.items(world.get("python_versions"), "world.python_versions", MAX_PYTHONS)
        self.pythons = tuple(_version(v, f"world.python_versions[{i}]")
                             for i, v in enumerate(pys))
        if not self.pythons or len(set(self.pythons)) != len(self.pythons):
            raise _fail("world.python_versions", "distinct Python versions (not empty)")

    @staticmethod
    def obj(value: Any, path: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise _fail(path, "an object")
        return value

    @staticmethod
    def items(value: Any, path: str, most: int = 10_000) -> list[Any]:
        if not isinstance(value, list) or len(value) > most:
            raise _fail(path, f"a list of at most {most} items")
        return value

    def package(self, name: Any, path: str) -> int:
        if not isinstance(name, str) or name not in self.index:
            raise _fail(path, "a package of world.packages")
        return self.index[name]

    def allowed(self, q: int, clauses: Any, path: str) -> frozenset[int]:
        """The versions of ``q`` meeting every ``[op, "M.m"]`` clause."""
        out = set(range(len(self.versions[q])))
        for i, clause in enumerate(self.items(clauses, path)):
            if not isinstance(clause, list) or len(clause) != 2 or clause[0] not in OPS:
                raise _fail(f"{path}[{i}]", f"[op, version] with op in {OPS}")
            target = _version(clause[1], f"{path}[{i}][1]")
            out &= {j for j, v in enumerate(self.versions[q]) if _holds(v, clause[0], target)}
        return frozenset(out)

    def table(self, key: str, q: int) -> dict[int, Any]:
        """``world[key][package]`` by version index (every key a listed version)."""
        raw = self.obj(self.w.get(key, {}), f"world.{key}")
        name = self.names[q]
        if name not in raw:
            return {}
        path = f"world.{key}.{name}"
        listed = {f"{v[0]}.{v[1]}": i for i, v in enumerate(self.versions[q])}
        out = {}
        for text, value in self.obj(raw[name], path).items():
            if text not in listed:
                raise _fail(f"{path}.{text[:20]}", "a key that is a listed version")
            out[listed[text]] = value
        return out

    def plan(self, p: int, v: int) -> Plan:
        name, text = self.names[p], "{}.{}".format(*self.versions[p][v])
        py = self.table("version_requires_python", p).get(v)
        pythons = None
        if py:
            where = f"world.version_requires_python.{name}.{text}"
            if not isinstance(py, list) or len(py) != 2 or py[0] not in OPS:
                raise _fail(where, "[op, version]")
            target = _version(py[1], f"{where}[1]")
            pythons = frozenset(i for i, x in enumerate(self.pythons) if _holds(x, py[0], target))
        deps = []
        where = f"world.version_dependencies.{name}.{text}"
        for i, dep in enumerate(self.items(self.table("version_dependencies", p).get(v, []),
                                           where)):
            if not isinstance(dep, list) or len(dep) != 2:
                raise _fail(f"{where}[{i}]", "[package, clauses]")
            q = self.package(dep[0], f"{where}[{i}][0]")
            deps.append((q, self.allowed(q, dep[1], f"{where}[{i}][1]")))
        effects = []
        where = f"world.side_effects.{name}.{text}"
        for i, eff in enumerate(self.items(self.table("side_effects", p).get(v, []), where)):
            if not isinstance(eff, list) or len(eff) != 3 or eff[0] not in EFFECTS:
                raise _fail(f"{where}[{i}]", f"[kind, package, clauses], kind in {EFFECTS}")
            q = self.package(eff[1], f"{where}[{i}][1]")
            effects.append((eff[0], q, self.allowed(q, eff[2], f"{where}[{i}][2]")))
        conflicts = []
        where = f"world.version_conflicts.{name}.{text}"
        for i, con in enumerate(self.items(self.table("version_conflicts", p).get(v, []),
                                           where)):
            if not isinstance(con, list) or len(con) != 4:
                raise _fail(f"{where}[{i}]", "[package, op, version, text]")
            q = self.package(con[0], f"{where}[{i}][0]")
            conflicts.append((q, self.allowed(q, [con[1:3]], f"{where}[{i}]")))
        return Plan(pythons, tuple(deps), tuple(effects), tuple(conflicts))

    def call(self, raw: Any, path: str) -> Call:
        """An API use and the provider versions whose API serves it."""
        c = self.obj(raw, path)
        q = self.package(c.get("provider"), f"{path}.provider")
        module, symbol = c.get("module"), c.get("symbol")
        kwargs = c.get("required_kwargs") or []
        if not isinstance(module, str) or not isinstance(symbol, str) or \
                not all(isinstance(k, str) for k in self.items(kwargs, f"{path}.required_kwargs")):
            raise _fail(path, "module, symbol and required_kwargs as text")
        works = set()
        for v, entry in self.table("api_surface", q).items():
            where = f"world.api_surface.{self.names[q]}.{v}"
            entry = self.obj(entry, where)
            modules = self.items(entry.get("modules", []), f"{where}.modules")
            exports = self.obj(entry.get("exports", {}), f"{where}.exports")
            sigs = self.obj(entry.get("signatures", {}), f"{where}.signatures")
            if module in modules and symbol in self.items(exports.get(module, []),
                                                          f"{where}.exports") and \
                    set(kwargs) <= set(self.items(sigs.get(f"{module}:{symbol}", []),
                                                  f"{where}.signatures")):
                works.add(v)
        return Call(q, frozenset(works))

    def run_rules(self) -> tuple[tuple[Call, ...], tuple[tuple[int, int, Call], ...],
                                 tuple[tuple[str, int, tuple[int, ...]], ...],
                                 tuple[tuple[tuple[int, frozenset[int]], ...], ...]]:
        """What ``python run.py`` checks: calls, symbol requirements of touched callers,
        consistency rules touching an entrypoint, hidden rules in scope."""
        scripts = self.obj(self.w.get("scripts"), "world.scripts")
        entry = self.items(self.w.get("entrypoints"), "world.entrypoints")
        calls: list[Call] = []
        touched: set[int] = set()
        for i, path in enumerate(entry):
            if not isinstance(path, str) or path not in scripts:
                raise _fail(f"world.entrypoints[{i}]", "a script of world.scripts")
            where = f"world.scripts.{path}"
            script = self.obj(scripts[path], where)
            for j, raw in enumerate(self.items(script.get("calls", []), f"{where}.calls")):
                calls.append(self.call(raw, f"{where}.calls[{j}]"))
                touched.add(calls[-1].provider)
            for j, name in enumerate(self.items(script.get("imports", []),
                                                f"{where}.imports")):
                touched.add(self.package(name, f"{where}.imports[{j}]"))
        needs = []
        for q in sorted(touched):
            for v, reqs in self.table("symbol_requires", q).items():
                where = f"world.symbol_requires.{self.names[q]}.{v}"
                for j, raw in enumerate(self.items(reqs, where)):
                    needs.append((q, v, self.call(raw, f"{where}[{j}]")))
        consistency = []
        for i, rule in enumerate(self.items(self.w.get("consistency_rules", []),
                                            "world.consistency_rules")):
            where = f"world.consistency_rules[{i}]"
            rule = self.obj(rule, where)
            if rule.get("type") not in CONSISTENCY:
                raise _fail(f"{where}.type", f"one of {CONSISTENCY}")
            anchor = self.package(rule.get("anchor"), f"{where}.anchor")
            members = tuple(self.package(m, f"{where}.packages[{j}]") for j, m in
                            enumerate(self.items(rule.get("packages"), f"{where}.packages")))
            if anchor in touched or touched & set(members):
                consistency.append((rule["type"], anchor, members))
        hidden = []
        for i, rule in enumerate(self.items(self.w.get("hidden_rules", []),
                                            "world.hidden_rules")):
            where = f"world.hidden_rules[{i}]"
            rule = self.obj(rule, where)
            scope = rule.get("scope") or ["run.py"]
            scope = [scope] if isinstance(scope, str) else self.items(scope, f"{where}.scope")
            when = []
            for j, pair in enumerate(self.items(rule.get("when"), f"{where}.when")):
                if not isinstance(pair, list) or len(pair) != 2:
                    raise _fail(f"{where}.when[{j}]", "[package, clauses]")
                q = self.package(pair[0], f"{where}.when[{j}][0]")
                if pair[1]:  # a package without clauses is not part of the rule
                    when.append((q, self.allowed(q, pair[1], f"{where}.when[{j}][1]")))
            if when and ("run.py" in scope or "*" in scope or set(scope) & set(entry)):
                hidden.append(tuple(when))
        return tuple(calls), tuple(needs), tuple(consistency), tuple(hidden)


def read_world(world: Any) -> World:
    """A task's repo world in index form, validated (messages name the JSON path)."""
    r = _Reader(world)
    plans = tuple(tuple(r.plan(p, v) for v in range(len(r.versions[p])))
                  for p in range(len(r.names)))
    calls, needs, consistency, hidden = r.run_rules()
    return World(r.names, r.versions, r.priority, r.pythons, plans, calls, needs, consistency,
                 hidden)
