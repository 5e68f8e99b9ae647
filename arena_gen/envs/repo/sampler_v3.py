"""Repo v3 sampler: reference-like worlds for the v2 game, with a full, parseable rules text.

v3 plays the v2 game (:class:`~arena_gen.envs.repo.game_v2.RepoGameV2`, unchanged rules) on worlds
drawn directly in the released format, shaped like the released OdysseyArena worlds rather than
re-expressed v1 worlds:

    - about three declared dependencies per version (the base libraries plus earlier packages
      of a hidden topological order), each a range around the dependency's solution version;
    - a symbol requirement on every dependency edge (a call into the dependency's solution
      API), so a dependency is checked at run time through the API it provides;
    - narrow API windows (a symbol and each keyword exist on a few consecutive versions), so
      the success set is tight (the verifier counts it; the acceptance caps it);
    - side effects of high-priority installs that move other packages *away* from the
      solution (``force_low`` below it, ``force_high`` above it, ``pin`` to another version),
      so a repaired package can silently break again;
    - conflicts of non-solution versions, and of the newest versions with an anchor above its
      solution (installing "the newest" is a trap);
    - consistency rules (a group shares the anchor's major or M.m) and hidden pair rules whose
      messages name no package of the fix (a version-free runtime error, or a decoy API error
      naming an uninvolved package's symbol).

Every component draws from its own child stream. The solution passes every run-time check by
construction (ranges contain it; conflicts and hidden rules exclude it); reachability through the
install dynamics is the verifier's to decide.

The rules text (:func:`rules_text`) discloses everything a deductive agent needs: priorities,
versions, per version its dependencies, Requires-Python, conflicts, side effects and symbol
requirements; per API use the provider versions it works with; the scripts' calls and imports;
the consistency and hidden rules with their ranges and scopes; the install semantics.
:func:`parse_rules` reads it back into a world that plays identically (``tests/test_repo3.py``
checks the round trip), which is what the with-rules planner does.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena_gen.core.calibration import Calibration
from arena_gen.core.presets import Preset, PresetError, knob
from arena_gen.core.seeds import component_rngs
from arena_gen.core.task import Certificate, Draft
from arena_gen.envs.repo.common import PYTHONS, SCRIPTS
from arena_gen.envs.repo.game_v2 import RepoGameV2
from arena_gen.envs.repo.sampler_v1 import skeleton
from arena_gen.envs.repo.sampler_v2 import public_view
from arena_gen.envs.repo.semver import join_spec, split_spec

MODULES = ("core", "io")
SYMBOLS = ("Engine", "Model", "Config", "Resolver", "Backend", "Factory", "Pipeline",
           "Tokenizer", "Dataset", "Session", "Adapter", "load", "dump", "fit", "predict",
           "compile", "transform", "encode")
KEYWORDS = ("cache", "dtype", "seed", "device", "strict", "timeout", "mode", "axis", "verbose",
            "strategy", "precision", "backend", "batch_size", "format")
#: Consistency failures: version-free and naming no package.
CONSISTENCY_ERRORS = ("RuntimeError: ABI mismatch detected between compiled extensions.",
                      "RuntimeError: tightly-coupled components are out of sync.",
                      "ImportError: binary incompatibility detected at import time.")
#: Hidden-rule failures without a name (decoy API errors are built in :func:`_decoy`).
HIDDEN_ERRORS = ("RuntimeError: extension module initialization failed.",
                 "RuntimeError: ABI mismatch detected at runtime.",
                 "RuntimeError: segmentation fault in a native extension.")
COMPONENTS = ("size", "versions", "priority", "order", "solution", "python", "base", "deps",
              "conflicts", "effects", "api", "scripts", "needs", "consistency", "hidden")


@dataclass(frozen=True)
class RepoV3Preset(Preset):
    """The knobs of one repo v3 suite (ranges inclusive; probabilities in [0, 1])."""

    count: int = knob(1, 10_000, kind=int)
    n_min: int = knob(2, 200, kind=int)  # packages per world
    n_max: int = knob(2, 200, kind=int)
    v_min: int = knob(1, 12, kind=int)  # versions per package
    v_max: int = knob(1, 12, kind=int)
    p_high: float = knob(0.0, 1.0)  # a package is high priority (the rest: 2/3 medium, 1/3 low)
    deps_min: int = knob(0, 20, kind=int)  # declared dependencies per version (bases included)
    deps_max: int = knob(0, 20, kind=int)
    p_strict: float = knob(0.0, 1.0)  # a dependency range is two-sided
    p_requires_python: float = knob(0.0, 1.0)
    p_conflict: float = knob(0.0, 1.0)  # a non-solution version declares a conflict
    p_top_conflict: float = knob(0.0, 1.0)  # a newest version conflicts with the anchor
    p_effect: float = knob(0.0, 1.0)  # a high-priority version has side effects
    effects_max: int = knob(1, 10, kind=int)
    p_away: float = knob(0.0, 1.0)  # a side effect moves its target off the solution
    api_span: float = knob(0.0, 1.0)  # a symbol's version window, as a share of the versions
    p_kwarg: float = knob(0.0, 1.0)  # a call passes a keyword
    calls_max: int = knob(1, 10, kind=int)  # API calls per script
    n_consistency: int = knob(0, 20, kind=int)
    n_hidden: int = knob(0, 20, kind=int)
    success_max: int = knob(1, 10**9, kind=int)  # reject worlds with more success configurations
    min_len: int = knob(1, 10_000, kind=int)
    budget: int = knob(2, 100_000, kind=int)
    bmc_conflicts: int = knob(1, 10**9, kind=int)  # SAT conflicts per BMC call
    max_attempts: int = knob(1, 100_000, kind=int)

    def validate(self) -> None:
        for lo, hi in (("n_min", "n_max"), ("v_min", "v_max"), ("deps_min", "deps_max")):
            if self[lo] > self[hi]:
                raise PresetError(f"RepoV3Preset knob {lo!r} = {self[lo]} exceeds {hi!r} = "
                                  f"{self[hi]}")


PRESETS: dict[str, RepoV3Preset] = {
    "lite": RepoV3Preset(count=30, n_min=9, n_max=12, v_min=3, v_max=8, p_high=0.4,
                         deps_min=2, deps_max=4, p_strict=0.7, p_requires_python=0.3,
                         p_conflict=0.3, p_top_conflict=0.5, p_effect=0.9, effects_max=4,
                         p_away=0.8, api_span=0.4, p_kwarg=0.6, calls_max=2, n_consistency=2,
                         n_hidden=2, success_max=200, min_len=5, budget=120,
                         bmc_conflicts=100_000, max_attempts=40),
    "challenge": RepoV3Preset(count=10, n_min=14, n_max=18, v_min=3, v_max=8, p_high=0.4,
                              deps_min=2, deps_max=4, p_strict=0.7, p_requires_python=0.3,
                              p_conflict=0.3, p_top_conflict=0.5, p_effect=0.9, effects_max=4,
                              p_away=0.8, api_span=0.4, p_kwarg=0.6, calls_max=4,
                              n_consistency=3, n_hidden=3, success_max=5000, min_len=8,
                              budget=200, bmc_conflicts=10_000, max_attempts=40),
}

#: The ladder targets (issue 15): Lite in the inductive band, Challenge below Lite.
CALIBRATION: dict[str, Calibration] = {
    "lite": Calibration(),
    "challenge": Calibration(inductive=None, planner_floor=0.8),
}


# -- drawing -------------------------------------------------------------------------------------
def _range(versions: list[str], s: int, rng: np.random.Generator, p_strict: float,
           narrow: bool = False) -> list[list[str]]:
    """Clauses over ``versions`` containing index ``s`` (two-sided with ``p_strict``)."""
    last = len(versions) - 1
    if narrow:
        lo, hi = max(0, s - int(rng.integers(0, 2))), min(last, s + int(rng.integers(0, 2)))
    else:
        lo, hi = int(rng.integers(0, s + 1)), int(rng.integers(s, last + 1))
    upper = (["<", versions[hi + 1]] if hi < last and rng.random() < 0.5
             else ["<=", versions[hi]])
    if narrow or rng.random() < p_strict:
        return [[">=", versions[lo]], upper]
    if lo > 0 and (hi == last or rng.random() < 0.5):
        return [[">=", versions[lo]]]
    return [upper] if hi < last else [[">=", versions[lo]]]


def _away(versions: list[str], s: int, rng: np.random.Generator) -> list[Any] | None:
    """A side effect that moves a package off its solution index ``s`` (None: no room)."""
    last = len(versions) - 1
    options = []
    if s > 0:
        options.append(["force_low", [[">=", versions[0]], ["<", versions[s]]]])
    if s < last:
        options.append(["force_high", [[">", versions[s]]]])
    others = [i for i in range(last + 1) if i != s]
    if others:
        options.append(["pin", [["==", versions[int(rng.choice(others))]]]])
    if not options:
        return None
    kind, clauses = options[int(rng.integers(len(options)))]
    return [kind, clauses]


def _window(nv: int, s: int | None, span: float, rng: np.random.Generator) -> tuple[int, int]:
    """A run of consecutive version indices (containing ``s`` when given)."""
    width = 1 + int(rng.integers(0, max(1, round(span * nv))))
    width = min(width, nv)
    if s is None:
        lo = int(rng.integers(0, nv - width + 1))
    else:
        lo = int(rng.integers(max(0, s - width + 1), min(s, nv - width) + 1))
    return lo, lo + width - 1


def _api(name: str, versions: list[str], s: int, span: float,
         rng: np.random.Generator) -> tuple[dict[str, Any], list[tuple[str, str, list[str]]]]:
    """Per-version exports and signatures, and the (module, symbol, keywords) at the solution."""
    nv = len(versions)
    pool = [str(x) for x in rng.permutation(SYMBOLS)]
    table: list[tuple[str, str, tuple[int, int], list[tuple[str, tuple[int, int]]]]] = []
    for module in MODULES:
        for k in range(int(rng.integers(2, 4))):
            sym = pool.pop()
            lo, hi = _window(nv, s if k == 0 else None, span, rng)
            kws = []
            for kw in rng.choice(KEYWORDS, size=int(rng.integers(1, 4)), replace=False):
                klo, khi = _window(hi - lo + 1, None, max(span, 0.5), rng)
                kws.append((str(kw), (lo + klo, lo + khi)))
            table.append((f"{name}.{module}", sym, (lo, hi), kws))
    surface: dict[str, Any] = {}
    for v in range(nv):
        exports: dict[str, list[str]] = {f"{name}.{m}": [] for m in MODULES}
        sigs: dict[str, list[str]] = {}
        for module, sym, (lo, hi), kws in table:
            if lo <= v <= hi:
                exports[module].append(sym)
                sigs[f"{module}:{sym}"] = [kw for kw, (a, b) in kws if a <= v <= b]
        surface[versions[v]] = {"modules": [f"{name}.{m}" for m in MODULES], "exports": exports,
                                "signatures": sigs}
    at_solution = [(module, sym, [kw for kw, (a, b) in kws if a <= s <= b])
                   for module, sym, (lo, hi), kws in table if lo <= s <= hi]
    return surface, at_solution


def _call(name: str, usable: list[tuple[str, str, list[str]]], p_kwarg: float,
          rng: np.random.Generator) -> dict[str, Any]:
    module, symbol, kws = usable[int(rng.integers(len(usable)))]
    kw = [str(rng.choice(kws))] if kws and rng.random() < p_kwarg else []
    return {"provider": name, "module": module, "symbol": symbol, "required_kwargs": kw}


def _decoy(names: list[str], involved: set[str], rng: np.random.Generator) -> str:
    """A hidden-rule message: version-free, naming no package of the rule."""
    others = [n for n in names if n not in involved]
    if not others or rng.random() < 0.4:
        return str(rng.choice(HIDDEN_ERRORS))
    other = str(rng.choice(others))
    module = f"{other}.{rng.choice(MODULES)}"
    sym, kw = str(rng.choice(SYMBOLS)), str(rng.choice(KEYWORDS))
    return str(rng.choice([f"ImportError: cannot import name '{sym}' from '{module}'.",
                           f"TypeError: {sym}() got an unexpected keyword argument '{kw}'.",
                           f"AttributeError: module '{module}' has no attribute '{sym}'."]))


def sample_world(config: Mapping[str, Any], seq: np.random.SeedSequence) -> dict[str, Any]:
    """Draw one world in the released format from one attempt's stream (the ground-truth
    solution shapes it but is not stored: the released format has no key for it, and the
    verifier proves what matters)."""
    r = component_rngs(seq, COMPONENTS)
    high = float(config["p_high"])
    n, names, versions, priority, order, pos, py, sol = skeleton(
        config, r, [high, (1 - high) * 2 / 3, (1 - high) / 3])
    p_strict = float(config["p_strict"])
    span = float(config["api_span"])
    apis, usable = zip(*(_api(names[p], versions[p], sol[p], span, r["api"]) for p in range(n)),
                       strict=True)
    bases = order[:min(int(r["base"].integers(1, 3)), max(1, n - 1))]
    world: dict[str, Any] = {
        "python_versions": list(PYTHONS), "package_order": list(names),
        "packages": {names[p]: {"versions": list(versions[p]), "priority": priority[p]}
                     for p in range(n)},
        "version_requires_python": {}, "version_dependencies": {}, "version_conflicts": {},
        "side_effects": {}, "api_surface": {names[p]: apis[p] for p in range(n)},
        "symbol_requires": {}, "base_libs": [names[b] for b in bases],
    }
    kw = float(config["p_kwarg"])
    for p in range(n):
        name = names[p]
        for key in ("version_requires_python", "version_dependencies", "version_conflicts",
                    "side_effects", "symbol_requires"):
            world[key][name] = {}
        earlier = [q for q in order[:pos[p]] if q not in bases]
        for vs in versions[p]:
            deps: list[int] = []
            if p not in bases:
                deps += [b for b in bases if r["base"].random() < 0.85]
            want = int(r["deps"].integers(int(config["deps_min"]), int(config["deps_max"]) + 1))
            k = min(len(earlier), max(0, want - len(deps)))
            if k:
                deps += sorted(int(x) for x in r["deps"].choice(earlier, size=k, replace=False))
            world["version_dependencies"][name][vs] = [
                [names[q], _range(versions[q], sol[q], r["deps"], p_strict, narrow=q in bases)]
                for q in deps]
            world["symbol_requires"][name][vs] = [
                _call(names[q], list(usable[q]), kw, r["needs"]) for q in deps]
            if r["python"].random() < float(config["p_requires_python"]):
                world["version_requires_python"][name][vs] = [
                    ">=", PYTHONS[int(r["python"].integers(0, py + 1))]]
            world["version_conflicts"][name][vs] = []
            world["side_effects"][name][vs] = []
    # conflicts: non-solution versions against non-solution versions of another package;
    # newest versions against an anchor above its solution
    multi = [p for p in range(n) if len(versions[p]) > 1]
    rc = r["conflicts"]
    for p in multi:
        for v in range(len(versions[p])):
            if v == sol[p] or rc.random() >= float(config["p_conflict"]):
                continue
            q = int(rc.choice([x for x in multi if x != p]))
            w = int(rc.choice([i for i in range(len(versions[q])) if i != sol[q]]))
            vs, ws = versions[p][v], versions[q][w]
            world["version_conflicts"][names[p]][vs].append(
                [names[q], "==", ws, f"{names[p]}=={vs} is not compatible with {names[q]}=={ws}"])
    anchors = [a for a in multi if sol[a] < len(versions[a]) - 1]
    if anchors:
        a = int(rc.choice(anchors))
        bound = versions[a][sol[a]]
        for p in multi:
            top = len(versions[p]) - 1
            if p != a and sol[p] != top and rc.random() < float(config["p_top_conflict"]):
                world["version_conflicts"][names[p]][versions[p][top]].append(
                    [names[a], ">", bound,
                     f"{names[p]}=={versions[p][top]} is not compatible with {names[a]}>{bound}"])
    # side effects of high-priority installs, on packages that are not declared dependencies
    re_ = r["effects"]
    for p in range(n):
        if priority[p] != "high":
            continue
        for vs in versions[p]:
            if re_.random() >= float(config["p_effect"]):
                continue
            taken = {d for d, _ in world["version_dependencies"][names[p]][vs]} | {names[p]}
            free = [q for q in range(n) if names[q] not in taken]
            k = min(len(free), int(re_.integers(1, int(config["effects_max"]) + 1)))
            for q in sorted(int(x) for x in re_.choice(free, size=k, replace=False)) if k else []:
                effect: list[Any] | None = _away(versions[q], sol[q], re_) \
                    if re_.random() < float(config["p_away"]) else None
                if effect is None:
                    kind = str(re_.choice(["ensure", "force_high", "force_low"]))
                    effect = [kind, _range(versions[q], sol[q], re_, p_strict)]
                world["side_effects"][names[p]][vs].append([effect[0], names[q], effect[1]])
    # scripts: every package is imported by a script; one or two calls per script
    rs = r["scripts"]
    shuffled = [int(x) for x in rs.permutation(n)]
    groups: list[list[int]] = [[] for _ in SCRIPTS]
    for i, p in enumerate(shuffled):
        groups[i % len(SCRIPTS)].append(p)
    world["scripts"] = {}
    for path, group in zip(SCRIPTS, groups, strict=True):
        group = group or [int(rs.integers(n))]
        providers = group[:int(rs.integers(1, min(int(config["calls_max"]), len(group)) + 1))]
        extra = [int(x) for x in rs.choice(n, size=min(n, 2), replace=False)]
        world["scripts"][path] = {
            "calls": [_call(names[q], list(usable[q]), kw, rs) for q in providers],
            "imports": sorted({names[q] for q in group + extra})}
    world["entrypoints"] = list(SCRIPTS)
    # consistency: members whose solution shares the anchor's major (or M.m)
    world["consistency_rules"] = []
    rk = r["consistency"]
    for _ in range(int(config["n_consistency"])):
        a = int(rk.integers(n))
        minor = rk.random() < 0.3
        key = versions[a][sol[a]] if minor else versions[a][sol[a]].split(".")[0]
        same = [q for q in range(n) if q != a and (versions[q][sol[q]] if minor else
                                                   versions[q][sol[q]].split(".")[0]) == key]
        if same:
            k = min(len(same), int(rk.integers(1, 4)))
            members = sorted(int(x) for x in rk.choice(same, size=k, replace=False))
            world["consistency_rules"].append({
                "type": "same_minor_with_anchor" if minor else "same_major_with_anchor",
                "anchor": names[a], "packages": [names[m] for m in members],
                "error": str(rk.choice(CONSISTENCY_ERRORS))})
    # hidden rules: two one-sided ranges, each excluding the solution (mostly "newer than")
    world["hidden_rules"] = []
    rh = r["hidden"]
    for _ in range(int(config["n_hidden"]) if len(multi) > 1 else 0):
        a, b = (int(x) for x in rh.choice(multi, size=2, replace=False))
        when = []
        for q in (a, b):
            s, last = sol[q], len(versions[q]) - 1
            up = s < last and (s == 0 or rh.random() < 0.75)
            when.append([names[q], [[">", versions[q][s]]] if up else [["<", versions[q][s]]]])
        scope = "run.py" if rh.random() < 0.4 else str(rh.choice(SCRIPTS))
        world["hidden_rules"].append({"when": when, "scope": [scope],
                                      "error": _decoy(names, {names[a], names[b]}, rh)})
    return world


# -- the rules text and its parser -----------------------------------------------------------------
def _call_text(c: Mapping[str, Any]) -> str:
    return f"{c['module']}.{c['symbol']}({','.join(c['required_kwargs'])})"


def call_versions(world: Mapping[str, Any], c: Mapping[str, Any]) -> list[str]:
    """The provider versions with which an API use works."""
    out = []
    for vs, entry in world["api_surface"][c["provider"]].items():
        if c["module"] in entry["modules"] and \
                c["symbol"] in entry["exports"].get(c["module"], []) and \
                set(c["required_kwargs"]) <= set(entry["signatures"].get(
                    f"{c['module']}:{c['symbol']}", [])):
            out.append(vs)
    return out


SEMANTICS = (
    "Install semantics: pip install NAME resolves to the highest version matching the request "
    "(bare NAME: the newest; a bare install of an installed package does nothing). The version's "
    "Requires-Python must hold for the selected Python. High priority: each declared dependency "
    "missing or out of range is set to the highest version in range, then the side effects apply "
    "in order (ensure: into range at the highest allowed version if out of range; force_high / "
    "force_low: to the highest / lowest version in range; pin: to that version), each on the "
    "package's value so far. Medium priority: every declared dependency must be installed "
    "already (else an error); installed ones out of range move to the highest version in range. "
    "Low priority: dependencies are not touched. Then the new version's own conflicts are checked "
    "against the adjusted packages. Any error rolls the command back. pip uninstall NAME removes "
    "only NAME.",
    "Run semantics: python run.py needs a selected Python and runs the scripts in order; the first "
    "failure stops it. Per script: the consistency rules touching its packages (imports and call "
    "providers), its calls, the symbol requirements of every installed package it touches (at "
    "the installed version), then the hidden rules in its scope. A call fails if the provider is "
    "not installed or its installed version is not listed for that API use. Declared "
    "dependencies and Requires-Python are not checked at run time.")


def rules_text(world: Mapping[str, Any]) -> str:
    """The complete rule set in plain text (what :func:`parse_rules` reads back)."""
    lines = [f"Python versions: {', '.join(world['python_versions'])}", *SEMANTICS, "Packages:"]
    calls: dict[str, Mapping[str, Any]] = {}

    def use(c: Mapping[str, Any]) -> str:
        text = _call_text(c)
        calls[text] = c
        return text

    for name in world["package_order"]:
        info = world["packages"][name]
        lines.append(f"package {name} priority {info['priority']} versions "
                     f"{' '.join(info['versions'])}")
        for vs in info["versions"]:
            parts = []
            deps = world["version_dependencies"].get(name, {}).get(vs) or []
            parts += [f"requires {q}{join_spec(cl)}" for q, cl in deps]
            py = world["version_requires_python"].get(name, {}).get(vs)
            parts += [f"python {py[0]}{py[1]}"] if py else []
            parts += [f"conflicts {q}{op}{t}" for q, op, t, _ in
                      world["version_conflicts"].get(name, {}).get(vs) or []]
            parts += [f"effect {k} {q}{join_spec(cl)}" for k, q, cl in
                      world["side_effects"].get(name, {}).get(vs) or []]
            parts += [f"uses {use(c)}" for c in
                      world["symbol_requires"].get(name, {}).get(vs) or []]
            lines.append(f"  {name} {vs}: " + ("; ".join(parts) if parts else "(nothing)"))
    lines.append("Scripts (run.py runs them in this order):")
    for path in world["entrypoints"]:
        entry = world["scripts"][path]
        lines.append(f"  script {path}: calls "
                     f"{' '.join(use(c) for c in entry['calls']) or '-'}; imports "
                     f"{' '.join(entry['imports']) or '-'}")
    lines.append("API uses (provider versions each works with):")
    for text, c in sorted(calls.items()):
        lines.append(f"  api {text}: {c['provider']} {' '.join(call_versions(world, c)) or '-'}")
    lines.append("Consistency rules:")
    for rule in world["consistency_rules"]:
        level = "major" if rule["type"] == "same_major_with_anchor" else "minor"
        lines.append(f"  consistency {level} anchor {rule['anchor']} members "
                     f"{' '.join(rule['packages'])}: {rule['error']}")
    lines.append("Hidden rules (fail when every range holds):")
    for rule in world["hidden_rules"]:
        when = " ".join(f"{q}{join_spec(cl)}" for q, cl in rule["when"])
        lines.append(f"  hidden {when} in {' '.join(rule['scope'])}: {rule['error']}")
    return "\n".join(lines)


_REQ = re.compile(r"([A-Za-z][\w\-]*)((?:(?:==|>=|<=|>|<|!=)[\d.]+,?)+)$")
_CALL = re.compile(r"(\S+)\.([^.()\s]+)\(([^)]*)\)$")


def _req(text: str) -> tuple[str, list[list[str]]]:
    m = _REQ.match(text.strip())
    if m is None:
        raise ValueError(f"cannot read the requirement {text!r}")
    return m.group(1), split_spec(m.group(2).rstrip(","))


def parse_rules(text: str) -> dict[str, Any]:
    """A world (released format) that plays exactly like the one :func:`rules_text` disclosed:
    the API surface is rebuilt so each version exports exactly the API uses listed for it."""
    world: dict[str, Any] = {
        "package_order": [], "packages": {}, "version_requires_python": {},
        "version_dependencies": {}, "version_conflicts": {}, "side_effects": {},
        "symbol_requires": {}, "api_surface": {}, "scripts": {}, "entrypoints": [],
        "consistency_rules": [], "hidden_rules": [], "base_libs": []}
    works: dict[str, tuple[str, set[str]]] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("Python versions: "):
            world["python_versions"] = [v.strip() for v in line[17:].split(",")]
        elif line.startswith("package "):
            _, name, _, prio, _, *vers = line.split()
            world["package_order"].append(name)
            world["packages"][name] = {"versions": vers, "priority": prio}
            for key in ("version_requires_python", "version_dependencies", "version_conflicts",
                        "side_effects", "symbol_requires"):
                world[key][name] = {}
        elif line.startswith("script "):
            m = re.match(r"script (\S+): calls (.*); imports (.*)$", line)
            if m is None:
                raise ValueError(f"cannot read {line!r}")
            path = m.group(1)
            calls = [] if m.group(2) == "-" else m.group(2).split()
            world["scripts"][path] = {"calls": calls,
                                      "imports": [] if m.group(3) == "-" else m.group(3).split()}
            world["entrypoints"].append(path)
        elif line.startswith("api "):
            m = re.match(r"api (\S+): (\S+) (.*)$", line)
            if m is None:
                raise ValueError(f"cannot read {line!r}")
            works[m.group(1)] = (m.group(2), set(m.group(3).split()) - {"-"})
        elif line.startswith("consistency "):
            m = re.match(r"consistency (major|minor) anchor (\S+) members ([^:]*): (.*)$", line)
            if m is None:
                raise ValueError(f"cannot read {line!r}")
            world["consistency_rules"].append({
                "type": f"same_{m.group(1)}_with_anchor", "anchor": m.group(2),
                "packages": m.group(3).split(), "error": m.group(4)})
        elif line.startswith("hidden "):
            m = re.match(r"hidden (.*?) in (\S+): (.*)$", line)
            if m is None:
                raise ValueError(f"cannot read {line!r}")
            world["hidden_rules"].append({"when": [list(_req(x)) for x in m.group(1).split()],
                                          "scope": [m.group(2)], "error": m.group(3)})
        else:
            m = re.match(r"(\S+) ([\d.]+): (.*)$", line)
            if m is None or m.group(1) not in world["packages"]:
                continue
            name, vs = m.group(1), m.group(2)
            deps, conf, eff, uses = [], [], [], []
            for part in ([] if m.group(3) == "(nothing)" else m.group(3).split("; ")):
                word, _, rest = part.partition(" ")
                if word == "requires":
                    deps.append(list(_req(rest)))
                elif word == "python":
                    op = re.match(r"(>=|<=|==|>|<)", rest)
                    if op is None:
                        raise ValueError(f"cannot read {part!r}")
                    world["version_requires_python"][name][vs] = [op.group(1),
                                                                  rest[len(op.group(1)):]]
                elif word == "conflicts":
                    q, cl = _req(rest)
                    conf.append([q, cl[0][0], cl[0][1], f"{name}=={vs} conflicts with {rest}"])
                elif word == "effect":
                    kind, _, target = rest.partition(" ")
                    eff.append([kind, *_req(target)])
                elif word == "uses":
                    uses.append(rest)
                else:
                    raise ValueError(f"cannot read {part!r}")
            world["version_dependencies"][name][vs] = deps
            world["version_conflicts"][name][vs] = conf
            world["side_effects"][name][vs] = eff
            world["symbol_requires"][name][vs] = uses

    def call(text: str) -> dict[str, Any]:
        m = _CALL.match(text)
        if m is None or text not in works:
            raise ValueError(f"API use {text!r} is not listed")
        kwargs = [k for k in m.group(3).split(",") if k]
        return {"provider": works[text][0], "module": m.group(1), "symbol": m.group(2),
                "required_kwargs": kwargs}

    for by_ver in world["symbol_requires"].values():
        for vs in by_ver:
            by_ver[vs] = [call(t) for t in by_ver[vs]]
    for entry in world["scripts"].values():
        entry["calls"] = [call(t) for t in entry["calls"]]
    for name, info in world["packages"].items():
        surface = {}
        for vs in info["versions"]:
            mods: dict[str, dict[str, set[str]]] = {}
            for text, (provider, ok) in works.items():
                if provider == name and vs in ok:
                    c = call(text)
                    sig = mods.setdefault(c["module"], {}).setdefault(c["symbol"], set())
                    sig.update(c["required_kwargs"])
            surface[vs] = {"modules": sorted(mods),
                           "exports": {m: sorted(s) for m, s in sorted(mods.items())},
                           "signatures": {f"{m}:{sym}": sorted(kws) for m, s in mods.items()
                                          for sym, kws in s.items()}}
        world["api_surface"][name] = surface
    return world


# -- the sampler contract -------------------------------------------------------------------
def sample(config: Mapping[str, Any], seq: np.random.SeedSequence) -> Draft:
    """Draw one candidate task from a preset (or its dict) and one attempt's seed stream."""
    config = RepoV3Preset.of(config)
    world = sample_world(config, seq)
    budget = int(config["budget"])
    params = {k: config[k] for k in (
        "n_min", "n_max", "v_min", "v_max", "deps_min", "deps_max", "p_high", "p_strict",
        "p_requires_python", "p_conflict", "p_top_conflict", "p_effect", "effects_max", "p_away",
        "api_span", "p_kwarg", "calls_max", "n_consistency", "n_hidden", "success_max",
        "min_len", "bmc_conflicts")}
    params["n"] = len(world["packages"])
    params["search_limit"] = budget // 4
    return Draft(params=params, budget=budget, public=public_view(world, budget), world=world,
                 rules_text=rules_text(world), rubric=RepoGameV2.rubric(params, world))


def accept(draft: Draft, cert: Certificate) -> str | None:
    """Solvable, the exact minimum in [min_len, budget / 4], and at most ``success_max``
    success configurations."""
    if cert.facts.get("skipped") == "loose":
        return f"loose {cert.facts['success_configurations']} success configurations > " \
            f"{draft.params['success_max']}"
    if not cert.solvable:
        if cert.facts.get("min_steps_bounds"):
            return f"hard minimum not proven within {draft.params['bmc_conflicts']} conflicts"
        return "unsolvable"
    lo, hi = int(draft.params["min_len"]), draft.budget // 4
    if cert.min_steps is None or not lo <= cert.min_steps <= hi:
        return f"length {cert.min_steps} outside [{lo}, {hi}]"
    count = cert.facts.get("success_configurations")
    if count is None or count > int(draft.params["success_max"]):
        return f"loose {count} success configurations > {draft.params['success_max']}"
    return None
