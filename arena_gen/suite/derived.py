"""Everything derivable from a task's seed path is re-derived and compared by ``verify``.

A hash-consistent edit (prompt injection in ``public.intro``, a false ``rules_text``, a budget of
100000, a changed rubric, another world) passes the sha256 check, because the editor rehashes.
For a task built from a preset, the sampler run again on the recorded seed path with the suite's
preset must give back the very same draft: params, budget, public view, world, rules text and
rubric; the seed path must name the task's own suite, env and index, and the manifest's seed.
The rubric must also be the one its game owns (``Game.rubric``): a sampler or importer that
wrote its own would otherwise give back its own wrong rubric and pass.
For an imported task (suite ``import``), the env's ``imported_draft`` part, the one the importer
itself builds its drafts with, must give back the same draft from the task's world and the
source facts kept in its params; its seed path must be the one ``import_tasks`` assigns, and the
manifest's seed 0 with empty presets. What the world alone cannot show (an edit of the world
that keeps its certificate, a changed source index) needs the source file.
"""

from __future__ import annotations

from typing import Any

from arena_gen.core import registry
from arena_gen.core.errors import RegistryError
from arena_gen.core.game import rubric_problem
from arena_gen.core.registry import EnvSpec
from arena_gen.core.seeds import SUITE_CODES, from_seed_path, seed_path
from arena_gen.core.task import Draft, Task
from arena_gen.suite.catalog import SUITES, preset
from arena_gen.suite.importer import SUITE as IMPORTED

#: The draft fields a task copies from its sampler.
FIELDS = ("params", "budget", "public", "world", "rules_text", "rubric")


def _index_of(task_id: str) -> int | None:
    tail = task_id.rsplit("-", 1)[-1]
    return int(tail) if tail.isdigit() else None


def derived_problem(task: Task, manifest: dict[str, Any] | None = None,
                    tree_key: bytes | None = None) -> str | None:
    """The first fact of ``task`` that its seed path and preset (in the sealed tree of
    ``tree_key`` when given; or, imported, its world and importer) do not give back, then
    whether its rubric is its game's, or None."""
    spec = registry.for_task(task)
    return _source_problem(task, spec, manifest, tree_key) or _game_rubric_problem(task, spec)


def _game_rubric_problem(task: Task, spec: EnvSpec) -> str | None:
    """Whether the task's rubric is the one its game owns (checks emit exactly its items)."""
    try:
        return rubric_problem(spec.load("game"), task.params, task.world, task.rubric)
    except (KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
        return (f"rubric: the game's rubric cannot be derived from the params and world: "
                f"{type(exc).__name__}: {str(exc)[:200]}")


def _source_problem(task: Task, spec: EnvSpec, manifest: dict[str, Any] | None,
                    tree_key: bytes | None = None) -> str | None:
    """The first fact the seed path and preset (or the world and importer) do not give back."""
    if task.suite == IMPORTED:
        return _imported_problem(task, spec, manifest)
    if task.suite not in SUITES:
        return (f"suite {task.suite!r} is neither a preset ({', '.join(SUITES)}) nor "
                f"{IMPORTED!r}: nothing re-derives this task")
    path = list(task.seed_path)
    expected = [SUITE_CODES[task.suite], spec.code, _index_of(task.id)]
    if len(path) != 5 or path[1:4] != expected:
        return f"seed_path {path} does not name suite {task.suite}, env {task.env}, task {task.id}"
    if manifest is not None and path[0] != manifest.get("seed"):
        return f"seed_path seed {path[0]} differs from the manifest seed {manifest.get('seed')}"
    if manifest is not None:
        recorded = (manifest.get("presets") or {}).get(task.env)
        config = {k: v for k, v in preset(task.suite, task.env, task.env_version).items()
                  if k != "count"}
        if recorded is not None and recorded != config:
            return f"manifest presets.{task.env} differ from the {task.suite} preset"
    draft = spec.load("sampler")(preset(task.suite, task.env, task.env_version),
                                 from_seed_path(path, tree_key))
    return _differs(task, draft, "the seed path and preset give")


def _imported_problem(task: Task, spec: EnvSpec, manifest: dict[str, Any] | None) -> str | None:
    """The first fact of an imported task that its world and its env's importer do not give."""
    index = _index_of(task.id)
    path = list(task.seed_path)
    if index is None or path != seed_path(0, IMPORTED, spec.code, index, 0):
        return f"seed_path {path} is not the import seed path of {task.env} task {task.id}"
    if manifest is not None and manifest.get("seed") != 0:
        return f"manifest seed {manifest.get('seed')!r} is not 0, the seed of an imported suite"
    if manifest is not None and (manifest.get("presets") or {}).get(task.env) != {}:
        return f"manifest presets.{task.env} are not empty, as an imported suite's are"
    try:
        derive = spec.load("imported_draft")
    except RegistryError:
        return f"{task.env} v{task.env_version} has no importer, so no task of it is imported"
    try:
        draft = derive(task.world, {**task.params, "rules_text": task.rules_text})
    except (KeyError, IndexError, TypeError, ValueError, AttributeError, RecursionError) as exc:
        return f"world does not give an imported draft: {type(exc).__name__}: {str(exc)[:200]}"
    return _differs(task, draft, "the world and importer give")


def _differs(task: Task, draft: Draft, source: str) -> str | None:
    for name in FIELDS:
        mine = getattr(task, name)
        theirs = getattr(draft, name)
        if name == "rubric":
            mine, theirs = [r.to_dict() for r in mine], [r.to_dict() for r in theirs]
        if mine != theirs:
            return f"{name} differs from what {source}"
    return None
