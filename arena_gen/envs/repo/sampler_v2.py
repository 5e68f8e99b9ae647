"""Repo v2 sampler and released-format helpers: worlds in the released OdysseyArena format.

arena-gen's own v2 worlds are the v1 sampler's worlds re-expressed in the released format
(:func:`from_v1`), played by the released rules; the verifier then decides solvability and the
exact minimum under those rules, and the acceptance keeps the v1 window. Decisions: a v1
``<=`` Requires-Python bound is dropped (released bounds are ``>=`` only); consistency and
hidden-rule messages stay version-free texts of the world.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from arena_gen.core.task import Certificate, Draft
from arena_gen.envs.repo.game_v2 import RepoGameV2
from arena_gen.envs.repo.sampler_v1 import PRESETS as V1_PRESETS
from arena_gen.envs.repo.sampler_v1 import sample as sample_v1
from arena_gen.envs.repo.semver import split_spec

PRESETS = V1_PRESETS
#: The keys of a v2 world (a normalised subset of a released task object).
WORLD_KEYS = ("python_versions", "package_order", "packages", "version_requires_python",
              "version_dependencies", "version_conflicts", "side_effects", "api_surface",
              "symbol_requires", "scripts",
              "entrypoints", "consistency_rules", "hidden_rules", "base_libs")


def from_v1(w: Mapping[str, Any]) -> dict[str, Any]:
    """A v1 world in the v2 (released) format."""
    pk = w["packages"]
    out: dict[str, Any] = {
        "python_versions": list(w["pythons"]),
        "package_order": [p["name"] for p in pk],
        "packages": {p["name"]: {"versions": list(p["versions"]), "priority": p["priority"]}
                     for p in pk},
        "version_requires_python": {}, "version_dependencies": {}, "version_conflicts": {},
        "side_effects": {}, "api_surface": {}, "symbol_requires": {}, "base_libs": [],
    }
    for p in pk:
        name = p["name"]
        for key in ("version_requires_python", "version_dependencies", "version_conflicts",
                    "side_effects", "api_surface", "symbol_requires"):
            out[key][name] = {}
        for v, rel in zip(p["versions"], p["releases"], strict=True):
            if rel["python"] and rel["python"].startswith(">="):
                out["version_requires_python"][name][v] = [">=", rel["python"][2:]]
            out["version_dependencies"][name][v] = [[d["pkg"], split_spec(d["spec"])]
                                                   for d in rel["deps"]]
            out["version_conflicts"][name][v] = [
                [c["pkg"], op, t, f"{name}=={v} does not work with {c['pkg']}{op}{t}"]
                for c in rel["conflicts"] for op, t in split_spec(c["spec"])[:1]]
            out["side_effects"][name][v] = [[e["kind"], e["pkg"], split_spec(e["spec"])]
                                           for e in rel["effects"]]
            mods = [f"{name}.{m}" for m in rel["api"]]
            out["api_surface"][name][v] = {
                "modules": mods,
                "exports": {f"{name}.{m}": list(syms) for m, syms in rel["api"].items()},
                "signatures": {f"{name}.{m}:{s}": list(kws) for m, syms in rel["api"].items()
                               for s, kws in syms.items()}}
            out["symbol_requires"][name][v] = [_call(x) for x in rel["needs"]]
    out["scripts"] = {s["path"]: {"calls": [_call(c) for c in s["calls"]],
                                  "imports": list(s["imports"])} for s in w["scripts"]}
    out["entrypoints"] = [s["path"] for s in w["scripts"]]
    out["consistency_rules"] = [
        {"type": "same_minor_with_anchor" if r["level"] == "minor" else
         "same_major_with_anchor", "anchor": r["anchor"], "packages": list(r["members"]),
         "error": f"RuntimeError: components built against '{r['anchor']}' are out of step."}
        for r in w["consistency"]]
    out["hidden_rules"] = [
        {"when": [[r["a"]["pkg"], split_spec(r["a"]["spec"])],
                  [r["b"]["pkg"], split_spec(r["b"]["spec"])]],
         "scope": ["run.py" if r["scope"] == "*" else r["scope"]], "error": r["error"]}
        for r in w["hidden"]]
    return out


def _call(c: Mapping[str, Any]) -> dict[str, Any]:
    return {"provider": c["pkg"], "module": f"{c['pkg']}.{c['module']}", "symbol": c["symbol"],
            "required_kwargs": [c["keyword"]] if c.get("keyword") else []}


def public_view(world: Mapping[str, Any], budget: int) -> dict[str, Any]:
    """What the agent is told: the package index, the Pythons, the scripts and the commands."""
    packages = {n: list(world["packages"][n]["versions"]) for n in world["package_order"]}
    scripts = list(world["entrypoints"])
    intro = (f"You are fixing a simulated Python repository. `python run.py` runs {len(scripts)} "
             f"scripts in order ({', '.join(scripts)}) and must succeed. Nothing is installed "
             f"and no Python is selected. Packages on the index: {', '.join(packages)}. "
             f"Installs may move other packages; failures show up as import, symbol and "
             f"keyword errors. Commands, one per turn: pip install python==3.X, pip install "
             f"NAME, pip install NAME==M.m, pip install NAME>=M.m,<M.m, pip uninstall NAME, "
             f"pip list, repo tree, python run.py, python <script>. You have {budget} turns.")
    return {"intro": intro, "packages": packages, "pythons": list(world["python_versions"]),
            "scripts": scripts, "action_format": "one terminal command, e.g. pip install pkg1==1.2"}


def public_again(public: Mapping[str, Any], budget: int,
                 config: Mapping[str, Any] | None) -> tuple[dict[str, Any], int]:
    """The public view and budget the samplers from v2 on give a task of these public facts
    (the preset's budget when its ``config`` is given): what a sealed public copy is checked
    by."""
    if config is not None:
        budget = int(config["budget"])
    packages = dict(public["packages"])  # canonical JSON sorted the names: pkg10 < pkg2
    order = sorted(packages, key=_index_order)
    world = {"packages": {name: {"versions": list(packages[name])} for name in order},
             "package_order": order, "entrypoints": list(public["scripts"]),
             "python_versions": list(public["pythons"])}
    return public_view(world, budget), budget


def rules_text(world: Mapping[str, Any]) -> str:
    """The declared rules in plain text: priorities, dependencies, Requires-Python, conflicts."""
    lines = [f"Python versions: {', '.join(world['python_versions'])}."]
    for name in world["package_order"]:
        info = world["packages"][name]
        lines.append(f"{name} (priority {info['priority']}): {', '.join(info['versions'])}")
        for v in info["versions"]:
            deps = world["version_dependencies"].get(name, {}).get(v, [])
            py = world["version_requires_python"].get(name, {}).get(v)
            conf = world["version_conflicts"].get(name, {}).get(v, [])
            eff = world["side_effects"].get(name, {}).get(v, [])
            parts = [f"needs {q}{','.join(o + t for o, t in cl)}" for q, cl in deps]
            parts += [f"Python {py[0]}{py[1]}"] if py else []
            parts += [f"conflicts with {q}{op}{t}" for q, op, t, _ in conf]
            parts += [f"{k} {q}{','.join(o + t for o, t in cl)}" for k, q, cl in eff]
            if parts:
                lines.append(f"  {v}: {'; '.join(parts)}")
    return "\n".join(lines)


def make_draft(world: dict[str, Any], params: dict[str, Any], budget: int,
               text: str | None = None) -> Draft:
    """A v2 draft around a world."""
    return Draft(params=params, budget=budget, public=public_view(world, budget), world=world,
                 rules_text=rules_text(world) if text is None else text,
                 rubric=RepoGameV2.rubric(params, world))


def sample(config: Mapping[str, Any], seq: np.random.SeedSequence) -> Draft:
    """A v1 candidate world re-expressed in the v2 format (module docstring)."""
    d = sample_v1(config, seq)
    params = {**d.params, "search_limit": d.budget // 4}
    return make_draft(from_v1(d.world), params, d.budget)


def accept(draft: Draft, cert: Certificate) -> str | None:
    """Solvable with the minimum in [min_len, budget / 4]."""
    if not cert.solvable:
        return "unsolvable"
    lo, hi = int(draft.params.get("min_len", 1)), draft.budget // 4
    if cert.min_steps is None or not lo <= cert.min_steps <= hi:
        return f"length {cert.min_steps} outside [{lo}, {hi}]"
    return None


def _index_order(name: str) -> tuple[str, int]:
    """Sampled package names in the order the world lists them (``pkg2`` before ``pkg10``)."""
    stem = name.rstrip("0123456789")
    return (stem, int(name[len(stem):] or -1))
