"""Import released OdysseyArena repo tasks (a JSON list of world specs) as repo v2 Drafts.

The file is untrusted: it is parsed as JSON and each task must carry the released keys with the
right shapes (a ValueError names the file and the task index otherwise). The world keeps the
released keys the rules read (:data:`~arena_gen.generator.repo2.WORLD_KEYS`); the generator
record becomes ``params`` and the released deps-only rule text becomes ``rules_text``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..core.game import WorldView
from ..core.task import Draft
from ..envs.repo2 import RepoGameV2
from .import_files import read_object_list
from .repo2 import WORLD_KEYS, make_draft

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
    world["package_order"] = list(task["packages"])
    try:
        RepoGameV2(WorldView(world))  # every name and version must resolve
    except (KeyError, ValueError, TypeError, AttributeError) as exc:
        raise ValueError(f"{where}: inconsistent repo world ({exc!r})"[:300]) from None
    gen = task.get("_gen") if isinstance(task.get("_gen"), dict) else {}
    seed = gen.get("rng_seed")
    params = {"source": path.name, "index": index, "n": len(world["packages"]),
              "released_seed": seed if isinstance(seed, int) else None}
    text = task.get("rules_nl_deps_only")
    return make_draft(world, params, BUDGET, text if isinstance(text, str) else None)
