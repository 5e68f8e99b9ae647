"""Repo System sampler: draw the solution first, then build every rule around it.

Each part of a world (sizes, versions, priorities, order, solution, dependencies, Python bounds,
conflicts, side effects, API, scripts, consistency and hidden rules) comes from its own child
stream, so changing one knob's draw never reshuffles the others. Every range a rule declares
contains the solution (or, for conflicts and hidden rules, excludes it), so the solution passes
every run-time check by construction; the verifier proves it and measures the install dynamics.

Passing every run-time check does not make the solution *reachable*: install side effects of two
solution releases can undo each other (installing one forces the other off its solution version
and vice versa), and then possibly no success state can be reached from the empty start at all
(2 of 2000 small test worlds, seeds 820 and 1372 at n=4, v_max=4). The sampler does not try to
rule that out (it would need a search per draw and would change every released world); the
acceptance does: a world is accepted only with a witness the verifier found and replayed, so a
world without a plan within budget/4 commands, unreachable or merely long, is always rejected.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from arena_gen.core.presets import Preset, PresetError, knob
from arena_gen.core.seeds import component_rngs
from arena_gen.core.task import Certificate, Draft
from arena_gen.envs.repo.common import PYTHONS, SCRIPTS
from arena_gen.envs.repo.game_v1 import RepoGame


@dataclass(frozen=True)
class RepoPreset(Preset):
    """The knobs of one repo suite (ranges inclusive; probabilities in [0, 1])."""

    count: int = knob(1, 10_000, kind=int)
    n_min: int = knob(2, 200, kind=int)  # packages per world
    n_max: int = knob(2, 200, kind=int)
    v_min: int = knob(1, 16, kind=int)  # versions per package (make_versions: <= 3 x 4 minors)
    v_max: int = knob(1, 12, kind=int)
    p_strict: float = knob(0.0, 1.0)
    p_dep: float = knob(0.0, 1.0)
    dep_cap: int = knob(1, 50, kind=int)
    p_requires_python: float = knob(0.0, 1.0)
    n_conflicts: int = knob(0, 1000, kind=int)
    p_effect: float = knob(0.0, 1.0)
    n_consistency: int = knob(0, 100, kind=int)
    n_hidden: int = knob(0, 1000, kind=int)
    p_needs: float = knob(0.0, 1.0)
    min_len: int = knob(1, 10_000, kind=int)  # reject worlds solved in fewer commands
    budget: int = knob(2, 100_000, kind=int)
    bmc_conflicts: int = knob(1, 10**9, kind=int)  # conflict budget per SAT call
    max_attempts: int = knob(1, 100_000, kind=int)

    def validate(self) -> None:
        for lo, hi in (("n_min", "n_max"), ("v_min", "v_max")):
            if self[lo] > self[hi]:
                raise PresetError(f"RepoPreset knob {lo!r} = {self[lo]} exceeds {hi!r} = "
                                  f"{self[hi]}")


PRESETS: dict[str, RepoPreset] = {
    "lite": RepoPreset(count=30, n_min=9, n_max=12, v_min=3, v_max=10, p_strict=0.5,
                       p_dep=0.45, dep_cap=2, p_requires_python=0.3, n_conflicts=3,
                       p_effect=0.5, n_consistency=1, n_hidden=2, p_needs=0.3, min_len=5,
                       budget=120, bmc_conflicts=200_000, max_attempts=40),
    "challenge": RepoPreset(count=10, n_min=20, n_max=30, v_min=3, v_max=12, p_strict=0.5,
                            p_dep=0.45, dep_cap=3, p_requires_python=0.3, n_conflicts=6,
                            p_effect=0.5, n_consistency=2, n_hidden=3, p_needs=0.3,
                            min_len=12, budget=1000, bmc_conflicts=150_000, max_attempts=20),
}

COMPONENTS = ["size", "versions", "priority", "order", "solution", "deps", "python", "base",
              "conflicts", "effects", "api", "scripts", "needs", "consistency", "hidden"]
SYMBOLS = ["load", "save", "parse", "fit", "predict", "transform", "read", "write", "validate",
           "encode", "decode", "connect", "render", "score", "split", "merge"]
KEYWORDS = ["path", "mode", "strict", "timeout", "batch_size", "verbose", "seed", "encoding",
            "device", "axis"]
HIDDEN_ERRORS = [
    "RuntimeError: {a} and {b} disagree on the serialization protocol",
    "RuntimeError: incompatible ABI between {a} and {b}",
    "ValueError: {a} cannot read buffers produced by {b}",
    "RuntimeError: {a} detected an unsupported backend registered by {b}",
]


def make_versions(count: int, rng: np.random.Generator) -> list[str]:
    """``count`` versions: 1-3 consecutive majors from 0 or 1, 1-4 consecutive minors each."""
    lo, hi = max(1, -(-count // 4)), min(3, count)
    majors = int(rng.integers(lo, hi + 1))
    minors = [1] * majors
    for _ in range(count - majors):
        options = [i for i in range(majors) if minors[i] < 4]
        minors[int(rng.choice(options))] += 1
    start = int(rng.integers(0, 2))
    return [f"{start + i}.{m}" for i in range(majors) for m in range(minors[i])]


def range_around(versions: list[str], s: int, rng: np.random.Generator, p_strict: float,
                 narrow: bool = False) -> str:
    """A specifier over ``versions`` that contains index ``s`` (two-sided with ``p_strict``)."""
    last = len(versions) - 1

    def upper(hi: int) -> str:
        if hi < last and rng.random() < 0.5:
            return f"<{versions[hi + 1]}"
        return f"<={versions[hi]}"

    if narrow:
        lo = max(0, s - int(rng.integers(0, 2)))
        hi = min(last, s + int(rng.integers(0, 2)))
        return f">={versions[lo]},{upper(hi)}"
    lo, hi = int(rng.integers(0, s + 1)), int(rng.integers(s, last + 1))
    if rng.random() < p_strict:
        return f">={versions[lo]},{upper(hi)}"
    if rng.random() < 0.5 and lo > 0:
        return f">={versions[lo]}"
    if hi < last:
        return upper(hi)
    return f">={versions[lo]}"


def _python_bound(sol: int, rng: np.random.Generator) -> str:
    options = [f">={PYTHONS[i]}" for i in range(1, sol + 1)]
    options += [f"<={PYTHONS[i]}" for i in range(sol, len(PYTHONS) - 1)]
    return str(options[int(rng.integers(len(options)))])


def _api(n_versions: int, s: int, rng: np.random.Generator) -> list[dict[str, Any]]:
    """Per-version exports of ``core`` and ``io``: symbol availability and keyword drift."""
    modules: dict[str, list[tuple[str, int, int, list[tuple[str, int, int]]]]] = {}
    pool = [str(x) for x in rng.permutation(SYMBOLS)]
    for module in ("core", "io"):
        entries = []
        for k in range(int(rng.integers(2, 4))):
            sym = pool.pop()
            lo, hi = sorted(int(x) for x in rng.integers(0, n_versions, size=2))
            if k == 0:  # every module exports something at the solution
                lo, hi = min(lo, s), max(hi, s)
            kws = []
            for kw in rng.choice(KEYWORDS, size=int(rng.integers(1, 4)), replace=False):
                klo, khi = sorted(int(x) for x in rng.integers(lo, hi + 1, size=2))
                kws.append((str(kw), klo, khi))
            entries.append((sym, lo, hi, kws))
        modules[module] = entries
    out = []
    for v in range(n_versions):
        out.append({module: {sym: [kw for kw, klo, khi in kws if klo <= v <= khi]
                             for sym, lo, hi, kws in entries if lo <= v <= hi}
                    for module, entries in modules.items()})
    return out


def _pick_call(api: dict[str, dict[str, list[str]]], rng: np.random.Generator,
               name: str) -> dict[str, Any]:
    module = str(rng.choice(sorted(m for m in api if api[m])))
    symbol = str(rng.choice(sorted(api[module])))
    kws = api[module][symbol]
    kw = str(rng.choice(kws)) if kws and rng.random() < 0.7 else None
    return {"pkg": name, "module": module, "symbol": symbol, "keyword": kw}


class Skeleton(NamedTuple):
    """What every repo sampler draws alike, before its own dependency rules."""

    n: int
    names: list[str]
    versions: list[list[str]]
    priority: list[str]
    order: list[int]  # a topological order: a package may depend only on earlier ones
    pos: dict[int, int]
    python: int
    solution: list[int]  # the hidden working version of each package


def skeleton(config: Mapping[str, Any], r: Mapping[str, np.random.Generator],
             priority_weights: list[float]) -> Skeleton:
    """Packages, versions, priorities, order, Python and hidden solution from their streams."""
    n = int(r["size"].integers(int(config["n_min"]), int(config["n_max"]) + 1))
    versions = [make_versions(int(r["versions"].integers(int(config["v_min"]),
                                                         int(config["v_max"]) + 1)),
                              r["versions"]) for _ in range(n)]
    priority = [str(r["priority"].choice(["high", "medium", "low"], p=priority_weights))
                for _ in range(n)]
    order = [int(x) for x in r["order"].permutation(n)]
    py = int(r["solution"].integers(len(PYTHONS)))
    sol = []
    for p in range(n):
        top = len(versions[p]) - 1
        sol.append(int(r["solution"].integers(top)) if top and r["solution"].random() < 0.6
                   else top)
    return Skeleton(n, [f"pkg{i}" for i in range(n)], versions, priority, order,
                    {p: i for i, p in enumerate(order)}, py, sol)


def sample_world(config: Mapping[str, Any], seq: np.random.SeedSequence) -> dict[str, Any]:
    """Draw one world (plain JSON) with its ground-truth solution."""
    r = component_rngs(seq, COMPONENTS)
    n, names, versions, priority, order, pos, py, sol = skeleton(config, r, [0.25, 0.5, 0.25])
    p_strict = float(config["p_strict"])
    releases: list[list[dict[str, Any]]] = [
        [{"deps": [], "python": None, "conflicts": [], "effects": [], "needs": []}
         for _ in versions[p]] for p in range(n)]
    n_base = min(int(r["base"].integers(1, 3)), max(1, n - 1))
    bases = order[:n_base]
    for p in range(n):
        for v in range(len(versions[p])):
            rel = releases[p][v]
            earlier = [q for q in order[:pos[p]] if q not in bases]
            if p not in bases:
                for b in bases:
                    if r["base"].random() < 0.8:
                        rel["deps"].append({"pkg": names[b], "spec": range_around(
                            versions[b], sol[b], r["base"], p_strict, narrow=True)})
            if earlier and r["deps"].random() < float(config["p_dep"]):
                k = int(r["deps"].integers(1, min(int(config["dep_cap"]), len(earlier)) + 1))
                for q in sorted(int(x) for x in r["deps"].choice(earlier, size=k,
                                                                  replace=False)):
                    rel["deps"].append({"pkg": names[q], "spec": range_around(
                        versions[q], sol[q], r["deps"], p_strict)})
            if r["python"].random() < float(config["p_requires_python"]):
                rel["python"] = _python_bound(py, r["python"])
    # Conflicts: non-solution versions against non-solution versions, and newest versions
    # against the anchor above its solution.
    multi = [p for p in range(n) if len(versions[p]) > 1]
    for _ in range(int(config["n_conflicts"]) if len(multi) > 1 else 0):
        p, q = (int(x) for x in r["conflicts"].choice(multi, size=2, replace=False))
        v = int(r["conflicts"].choice([i for i in range(len(versions[p])) if i != sol[p]]))
        w = int(r["conflicts"].choice([i for i in range(len(versions[q])) if i != sol[q]]))
        entry = {"pkg": names[q], "spec": f"=={versions[q][w]}"}
        if entry not in releases[p][v]["conflicts"]:
            releases[p][v]["conflicts"].append(entry)
    anchors = [a for a in range(n) if sol[a] < len(versions[a]) - 1]
    if anchors:
        a = int(r["conflicts"].choice(anchors))
        for p in range(n):
            top = len(versions[p]) - 1
            if p != a and sol[p] != top and r["conflicts"].random() < 0.3:
                releases[p][top]["conflicts"].append(
                    {"pkg": names[a], "spec": f">{versions[a][sol[a]]}"})
    # Side effects (high priority only), on packages that are not declared deps of the version.
    for p in range(n):
        if priority[p] != "high":
            continue
        for v in range(len(versions[p])):
            rel = releases[p][v]
            if r["effects"].random() >= float(config["p_effect"]):
                continue
            taken = {d["pkg"] for d in rel["deps"]} | {names[p]}
            free = [q for q in range(n) if names[q] not in taken]
            if not free:
                continue
            k = min(len(free), int(r["effects"].integers(1, 3)))
            for q in (int(x) for x in r["effects"].choice(free, size=k, replace=False)):
                kind = str(r["effects"].choice(["ensure", "force_high", "force_low", "pin"]))
                if kind == "pin":
                    spec = f"=={versions[q][int(r['effects'].integers(len(versions[q])))]}"
                else:
                    spec = range_around(versions[q], sol[q], r["effects"], p_strict)
                rel["effects"].append({"kind": kind, "pkg": names[q], "spec": spec})
    # API surface per version.
    apis = [_api(len(versions[p]), sol[p], r["api"]) for p in range(n)]
    for p in range(n):
        for v in range(len(versions[p])):
            releases[p][v]["api"] = apis[p][v]
    # Scripts: every package is touched by at least one script.
    shuffled = [int(x) for x in r["scripts"].permutation(n)]
    groups: list[list[int]] = [[] for _ in SCRIPTS]
    for i, p in enumerate(shuffled):
        groups[i % len(SCRIPTS)].append(p)
    scripts = []
    for path, group in zip(SCRIPTS, groups, strict=True):
        if not group:
            group = [int(r["scripts"].integers(n))]
        k = int(r["scripts"].integers(1, min(2, len(group)) + 1))
        providers = group[:k]
        calls = [_pick_call(apis[p][sol[p]], r["scripts"], names[p]) for p in providers]
        extra = [int(x) for x in r["scripts"].choice(n, size=min(n, 1), replace=False)]
        imports = sorted({names[p] for p in group[k:] + extra} - {c["pkg"] for c in calls})
        scripts.append({"path": path, "calls": calls, "imports": imports})
    # Symbol requirements: a version needs a symbol of one of its declared deps.
    for p in range(n):
        for v in range(len(versions[p])):
            rel = releases[p][v]
            if rel["deps"] and r["needs"].random() < float(config["p_needs"]):
                dep = rel["deps"][int(r["needs"].integers(len(rel["deps"])))]["pkg"]
                q = names.index(dep)
                rel["needs"].append(_pick_call(apis[q][sol[q]], r["needs"], dep))
    # Consistency rules: packages whose solution shares the anchor's major (or M.m).
    consistency = []
    for _ in range(int(config["n_consistency"])):
        a = int(r["consistency"].integers(n))
        level = "major" if r["consistency"].random() < 0.7 else "minor"
        major = versions[a][sol[a]].split(".")[0]
        same = [q for q in range(n) if q != a and (
            versions[q][sol[q]].split(".")[0] == major if level == "major"
            else versions[q][sol[q]] == versions[a][sol[a]])]
        if same:
            k = min(len(same), int(r["consistency"].integers(1, 3)))
            members = sorted(int(x) for x in r["consistency"].choice(same, size=k, replace=False))
            consistency.append({"anchor": names[a], "members": [names[m] for m in members],
                                "level": level})
    # Hidden rules: two one-sided ranges, each excluding the solution.
    hidden = []
    for _ in range(int(config["n_hidden"]) if len(multi) > 1 else 0):
        a, b = (int(x) for x in r["hidden"].choice(multi, size=2, replace=False))
        sides = []
        for q in (a, b):
            options = []
            if sol[q] > 0:
                options.append(f"<{versions[q][sol[q]]}")
            if sol[q] < len(versions[q]) - 1:
                options.append(f">{versions[q][sol[q]]}")
            sides.append({"pkg": names[q], "spec": str(r["hidden"].choice(options))})
        scope = "*" if r["hidden"].random() < 0.4 else str(r["hidden"].choice(SCRIPTS))
        error = str(r["hidden"].choice(HIDDEN_ERRORS)).format(a=names[a], b=names[b])
        hidden.append({"a": sides[0], "b": sides[1], "scope": scope, "error": error})
    packages = [{"name": names[p], "priority": priority[p], "versions": versions[p],
                 "releases": releases[p]} for p in range(n)]
    return {"packages": packages, "order": order, "pythons": list(PYTHONS), "scripts": scripts,
            "consistency": consistency, "hidden": hidden,
            "solution": {"python": PYTHONS[py],
                         "versions": {names[p]: versions[p][sol[p]] for p in range(n)}}}


def public_view(world: dict[str, Any], budget: int) -> dict[str, Any]:
    """What the agent is told: packages and versions on the index, Pythons, the scripts."""
    packages = {p["name"]: list(p["versions"]) for p in world["packages"]}
    scripts = [s["path"] for s in world["scripts"]]
    intro = (f"You are in a Python repository whose entry point `python run.py` runs "
             f"{len(scripts)} scripts ({', '.join(scripts)}). Nothing is installed and no Python "
             f"is selected. The package index has {len(packages)} packages "
             f"({', '.join(packages)}); each has several M.m versions, with dependencies, "
             f"side effects and compatibility rules you must discover from error messages. "
             f"Python versions: {', '.join(world['pythons'])}. One command per turn: pip "
             f"install NAME[==M.m or ranges], pip install python==3.X, pip uninstall NAME, pip "
             f"list, pip show NAME, repo tree, python run.py, python <script>. Goal: make "
             f"`python run.py` succeed within {budget} turns.")
    return {"intro": intro, "packages": packages, "pythons": list(world["pythons"]),
            "scripts": scripts, "action_format": "one terminal command, e.g. pip install pkg1==1.2"}


def public_again(public: Mapping[str, Any], budget: int,
                 config: Mapping[str, Any] | None) -> tuple[dict[str, Any], int]:
    """The public view and budget :func:`sample` gives a task of these public facts (the
    preset's budget when its ``config`` is given): what a sealed public copy is checked by."""
    if config is not None:
        budget = int(config["budget"])
    packages = dict(public["packages"])  # canonical JSON sorted the names: pkg10 < pkg2
    world = {"packages": [{"name": name, "versions": list(packages[name])}
                          for name in sorted(packages, key=_index_order)],
             "scripts": [{"path": path} for path in public["scripts"]],
             "pythons": list(public["pythons"])}
    return public_view(world, budget), budget


def rules_text(world: dict[str, Any]) -> str:
    """The complete rule set in plain text (the with-rules disclosure)."""
    lines = [f"Python versions: {', '.join(world['pythons'])}.", "Packages:"]
    for p in world["packages"]:
        lines.append(f"{p['name']} (priority {p['priority']}): versions "
                     f"{', '.join(p['versions'])}")
        for v, rel in zip(p["versions"], p["releases"], strict=True):
            parts = []
            if rel["deps"]:
                parts.append("requires " + ", ".join(f"{d['pkg']}{d['spec']}"
                                                     for d in rel["deps"]))
            if rel["python"]:
                parts.append(f"Requires-Python {rel['python']}")
            if rel["conflicts"]:
                parts.append("conflicts with " + ", ".join(f"{c['pkg']}{c['spec']}"
                                                           for c in rel["conflicts"]))
            if rel["effects"]:
                parts.append("side effects " + "; ".join(f"{e['kind']} {e['pkg']}{e['spec']}"
                                                         for e in rel["effects"]))
            if rel["needs"]:
                parts.append("uses " + ", ".join(
                    f"{x['pkg']}.{x['module']}.{x['symbol']}"
                    + (f"({x['keyword']}=)" if x["keyword"] else "") for x in rel["needs"]))
            api = "; ".join(f"{m}: " + ", ".join(f"{s}({', '.join(kw)})" for s, kw in
                                                 sorted(syms.items()))
                            for m, syms in sorted(rel["api"].items()))
            parts.append(f"exports {api}")
            lines.append(f"  {v}: " + " | ".join(parts))
    lines.append("Install semantics: high priority installs set missing/out-of-range "
                 "dependencies to the highest version in range, then apply side effects in order "
                 "(ensure: bring into range at the highest allowed version; force_high / "
                 "force_low: set to the highest / lowest in range; pin: set exactly). Medium "
                 "priority needs every dependency installed first and moves out-of-range ones "
                 "to the highest in range. Low priority does not touch dependencies.")
    lines.append("Scripts (calls provider.module.symbol(keyword=); imports):")
    for s in world["scripts"]:
        calls = ", ".join(f"{c['pkg']}.{c['module']}.{c['symbol']}"
                          + (f"({c['keyword']}=)" if c["keyword"] else "()") for c in s["calls"])
        lines.append(f"  {s['path']}: calls {calls}; imports {', '.join(s['imports']) or '-'}")
    lines.append("Consistency rules:")
    for c in world["consistency"]:
        what = "major" if c["level"] == "major" else "M.m version"
        lines.append(f"  {', '.join(c['members'])} must share the {what} of {c['anchor']}")
    if not world["consistency"]:
        lines.append("  (none)")
    lines.append("Hidden rules (fail when both ranges hold):")
    for h in world["hidden"]:
        scope = "every script" if h["scope"] == "*" else h["scope"]
        lines.append(f"  {h['a']['pkg']}{h['a']['spec']} with {h['b']['pkg']}{h['b']['spec']}"
                     f" fails in {scope}: {h['error']}")
    if not world["hidden"]:
        lines.append("  (none)")
    return "\n".join(lines)


def sample(config: Mapping[str, Any], seq: np.random.SeedSequence) -> Draft:
    """Draw one candidate task from a preset (or its dict) and one attempt's seed stream."""
    config = RepoPreset.of(config)
    world = sample_world(config, seq)
    budget = int(config["budget"])
    params = {k: config[k] for k in ("n_min", "n_max", "v_min", "v_max", "p_strict", "p_dep",
                                     "dep_cap", "p_requires_python", "n_conflicts", "p_effect",
                                     "n_consistency", "n_hidden", "p_needs", "min_len",
                                     "bmc_conflicts")}
    params["n"] = len(world["packages"])
    return Draft(params=params, budget=budget, public=public_view(world, budget), world=world,
                 rules_text=rules_text(world), rubric=RepoGame.rubric(params, world))


def accept(draft: Draft, cert: Certificate) -> str | None:
    """Return why a verified candidate is rejected, or None to accept it."""
    if not cert.solvable:
        if cert.facts.get("solution_is_model"):  # first word "long": the manifests count kinds
            return (f"long no plan within budget/4 = {draft.budget // 4} commands (the stored "
                    f"solution may be unreachable through the install dynamics)")
        return "unsolvable"
    # With an inexact certificate only bounds are known: the floor must hold for the proven
    # lower bound, the ceiling for the plan found, so both hold for the true minimum.
    lower, upper = cert.facts.get("min_steps_bounds", [cert.min_steps, cert.min_steps])
    if upper is None or int(lower) < int(draft.params["min_len"]):
        return f"short min_steps >= {lower} only, min_len {draft.params['min_len']}"
    if int(upper) > draft.budget // 4:
        return f"long min_steps {upper} > budget/4 = {draft.budget // 4}"
    return None


def _index_order(name: str) -> tuple[str, int]:
    """Sampled package names in the order the world lists them (``pkg2`` before ``pkg10``)."""
    stem = name.rstrip("0123456789")
    return (stem, int(name[len(stem):] or -1))
