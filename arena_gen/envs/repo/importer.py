"""Import released OdysseyArena repo tasks (a JSON list of world specs) as repo v2 Drafts.

The file is untrusted: it is parsed as JSON and each task must carry the released keys with the
right shapes (a ValueError names the file and the task index otherwise). The world keeps the
released keys the rules read (:data:`~arena_gen.envs.repo.sampler_v2.WORLD_KEYS`); the generator
record becomes ``params`` and the released deps-only rule text becomes ``rules_text``: it must
be the rendering (:func:`deps_only_text`) of the world and the base-library targets it names,
the one fact of it the world lacks. :func:`derive` gives the rest of a draft from the world and
the source facts, for the importer and ``verify`` alike.

An old-style hidden rule (``when_installed``: exact versions, the released generator v5's form)
is translated into the ``when`` form (``==`` clauses), as the released env reads it; a rule with
both forms or a malformed one is refused. An empty ``python_versions`` is kept: the game then
offers every Python, as the released env does.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from arena_gen.core.game import WorldView
from arena_gen.core.import_files import read_object_list
from arena_gen.core.task import Draft
from arena_gen.envs.repo.game_v2 import RepoGameV2
from arena_gen.envs.repo.sampler_v2 import WORLD_KEYS, make_draft

BUDGET = 120  # the released harness's max_steps
_REQUIRED = ("python_versions", "packages", "scripts", "entrypoints", "api_surface")
_DICTS = ("packages", "version_requires_python", "version_dependencies", "version_conflicts",
          "side_effects", "api_surface", "symbol_requires", "scripts")
_LISTS = ("python_versions", "entrypoints", "consistency_rules", "hidden_rules", "base_libs")


def importer(path: Path) -> list[Draft]:
    """Parse a released repo file into one Draft per task, or raise a clear ValueError."""
    path = Path(path)
    data = read_object_list(path, "a repo task file (expected a non-empty JSON list of repo "
                                  "world objects)")
    return [_draft(path, i, t) for i, t in enumerate(data)]


def _draft(path: Path, index: int, task: dict[str, Any]) -> Draft:
    where = f"{path}: task {index}"
    missing = [k for k in _REQUIRED if k not in task]
    if missing:
        raise ValueError(f"{where}: not in repo format (missing {', '.join(missing)})")
    for key in _DICTS:
        if not isinstance(task.get(key, {}), dict):
            raise ValueError(f"{where}: {key} must be an object")
    for key in _LISTS:
        if not isinstance(task.get(key, []), list):
            raise ValueError(f"{where}: {key} must be a list")
    world = {k: json.loads(json.dumps(task.get(k, [] if k in _LISTS else {})))
             for k in WORLD_KEYS if k != "package_order"}
    world["hidden_rules"] = [_hidden_rule(where, j, rule)
                             for j, rule in enumerate(world["hidden_rules"])]
    world["package_order"] = list(task["packages"])
    try:
        RepoGameV2(WorldView(world))  # every name and version must resolve
    except (KeyError, ValueError, TypeError, AttributeError) as exc:
        raise ValueError(f"{where}: inconsistent repo world ({exc!r})"[:300]) from None
    raw_gen = task.get("_gen")
    gen: dict[str, Any] = raw_gen if isinstance(raw_gen, dict) else {}
    seed = gen.get("rng_seed")
    text = task.get("rules_nl_deps_only")
    text = text if isinstance(text, str) else None
    draft = derive(world, {"source": path.name, "index": index,
                           "released_seed": seed if isinstance(seed, int) else None,
                           "rules_text": text})
    if text is not None and draft.rules_text != text:
        raise ValueError(f"{where}: rules_nl_deps_only does not describe the world's "
                         f"dependencies and conflicts")
    return draft


def _hidden_rule(where: str, j: int, rule: Any) -> Any:
    """A hidden rule in the ``when`` form the game reads: the old ``when_installed`` form
    (``{pkg: "M.m"}``, exact versions) is translated into ``when`` clauses of ``==``, as the
    released env reads it when ``when`` names no constraint; a rule holding both forms, or a
    malformed ``when_installed``, is refused (never silently dropped)."""
    if not isinstance(rule, dict) or "when_installed" not in rule:
        return rule
    path = f"{where}: hidden_rules[{j}].when_installed"
    old = rule["when_installed"]
    when = rule.get("when")
    if isinstance(when, list) and any(isinstance(item, list) and len(item) == 2 and item[1]
                                      for item in when):
        raise ValueError(f"{path}: the rule also has a 'when'; the released env then ignores "
                         f"'when_installed', so arena-gen refuses the ambiguous rule")
    if not isinstance(old, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                            for k, v in old.items()):
        raise ValueError(f"{path}: must be an object of package name -> version text")
    out = {k: v for k, v in rule.items() if k != "when_installed"}
    out["when"] = [[name, [["==", version]]] for name, version in old.items()]
    return out


def derive(world: Mapping[str, Any], source: Mapping[str, Any]) -> Draft:
    """The draft an imported world gives with its source facts (file, task index, released
    seed, and the released with-rules text, whose base-library targets the world lacks): the
    text is rendered from the world and those targets, so ``verify`` re-derives it too."""
    text = source.get("rules_text")
    if isinstance(text, str) and text.startswith(DEPS_ONLY_HEAD):
        text = deps_only_text(world, base_targets(text, world))
    else:  # no released text: arena-gen's own rendering of the rules
        text = None
    params = {"source": source.get("source"), "index": source.get("index"),
              "n": len(world["packages"]), "released_seed": source.get("released_seed")}
    return make_draft(dict(world), params, BUDGET, text)


DEPS_ONLY_HEAD = "## Dependency rules (deps-only)"


def base_targets(text: str, world: Mapping[str, Any]) -> dict[str, str]:
    """The target version a deps-only text names for each base library (one of its versions;
    anything else is left out, so the re-rendered text differs)."""
    found: dict[str, str] = {}
    for line in text.split("\n"):
        for lib in world["base_libs"]:
            head = f"- {lib} target="
            if line.startswith(head) and lib not in found:
                version = line[len(head):].split(" ", 1)[0]
                if version in world["packages"][lib]["versions"]:
                    found[lib] = version
    return found


def deps_only_text(world: Mapping[str, Any], targets: Mapping[str, str]) -> str:
    """The released deps-only rules format, rendered from the world and the base-library
    targets: base libraries, then every package (in name order) with its versions'
    dependency ranges and conflicts."""
    pk = world["packages"]
    lines = [DEPS_ONLY_HEAD, "### Base libraries"]
    lines += [f"- {lib} target={targets.get(lib, '?')} (available: "
              f"{', '.join(pk[lib]['versions'])})" for lib in world["base_libs"]]
    lines += ["", "### Packages"]
    for name in sorted(pk):
        lines += ["", f"- {name} (priority={pk[name]['priority']}) versions: "
                      f"{', '.join(pk[name]['versions'])}"]
        for v in pk[name]["versions"]:
            deps = world["version_dependencies"].get(name, {}).get(v, [])
            conf = world["version_conflicts"].get(name, {}).get(v, [])
            lines.append(f"  - {name}=={v}")
            if not deps:
                lines.append("    deps: <none>")
            else:
                lines.append("    deps:")
                lines += [f"      - {q} {','.join(o + t for o, t in cl)}" for q, cl in deps]
            if conf:
                lines.append("    conflicts:")
                lines += [f"      - {q} {op} {t}" for q, op, t, *_ in conf]
    return "\n".join(lines)
