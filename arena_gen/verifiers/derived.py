"""Everything derivable from a task's seed path is re-derived and compared by ``verify``.

A hash-consistent edit (prompt injection in ``public.intro``, a false ``rules_text``, a budget of
100000, a changed rubric, another world) passes the sha256 check, because the editor rehashes.
For a task built from a preset, the sampler run again on the recorded seed path with the suite's
preset must give back the very same draft: params, budget, public view, world, rules text and
rubric; the seed path must name the task's own suite, env and index, and the manifest's seed.
"""

from __future__ import annotations

from typing import Any

from ..core import registry
from ..core.seeds import SUITE_CODES, from_seed_path
from ..core.task import Task
from ..generator.suites import SUITES, preset

#: The draft fields a task copies from its sampler.
FIELDS = ("params", "budget", "public", "world", "rules_text", "rubric")


def _index_of(task_id: str) -> int | None:
    tail = task_id.rsplit("-", 1)[-1]
    return int(tail) if tail.isdigit() else None


def derived_problem(task: Task, manifest: dict[str, Any] | None = None) -> str | None:
    """The first fact of ``task`` that its seed path and preset do not give back, or None."""
    if task.suite not in SUITES:
        return None  # imported tasks: their source file is the derivation (not re-read here)
    path = list(task.seed_path)
    spec = registry.for_task(task)
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
                                 from_seed_path(path))
    for name in FIELDS:
        mine = getattr(task, name)
        theirs = getattr(draft, name)
        if name == "rubric":
            mine, theirs = [r.to_dict() for r in mine], [r.to_dict() for r in theirs]
        if mine != theirs:
            return f"{name} differs from what the seed path and preset give"
    return None
