"""Shared helpers for the repo tests (no tests here): a handcrafted world, small sampled worlds."""

from __future__ import annotations

from typing import Any

import numpy as np

from arena_gen.core.task import Certificate, Task
from arena_gen.envs.repo.common import SCRIPTS
from arena_gen.envs.repo.game_v1 import RepoGame
from arena_gen.envs.repo.sampler_v1 import PRESETS, public_view, rules_text, sample_world


def rel(deps: Any = (), python: str | None = None, conflicts: Any = (), effects: Any = (),
        api: Any = None, needs: Any = ()) -> dict[str, Any]:
    return {"deps": [{"pkg": p, "spec": s} for p, s in deps], "python": python,
            "conflicts": [{"pkg": p, "spec": s} for p, s in conflicts],
            "effects": [{"kind": k, "pkg": p, "spec": s} for k, p, s in effects],
            "api": api if api is not None else {"core": {"load": ["path"]}, "io": {}},
            "needs": list(needs)}


def hand_world() -> dict[str, Any]:
    """Three packages exercising every install and run rule; solution: 3.10, A 1.1, B 1.1, C 0.1."""
    a = {"name": "pkgA", "priority": "low", "versions": ["1.0", "1.1", "2.0"], "releases": [
        rel(), rel(python=">=3.10"),
        rel(conflicts=[("pkgB", "==1.0")], api={"core": {}, "io": {}})]}
    b = {"name": "pkgB", "priority": "medium", "versions": ["1.0", "1.1"], "releases": [
        rel(deps=[("pkgA", ">=1.0,<2.0")]),
        rel(deps=[("pkgA", ">=1.1,<2.0")], conflicts=[("pkgA", "==1.0")])]}
    c = {"name": "pkgC", "priority": "high", "versions": ["0.1", "0.2"], "releases": [
        rel(deps=[("pkgA", "<2.0")], effects=[("force_low", "pkgB", ">=1.0")]),
        rel(deps=[("pkgA", ">=2.0")], effects=[("pin", "pkgB", "==1.1")])]}
    scripts = [{"path": SCRIPTS[0], "calls": [{"pkg": "pkgA", "module": "core", "symbol": "load",
                                               "keyword": "path"}], "imports": []},
               {"path": SCRIPTS[1], "calls": [], "imports": ["pkgB"]},
               {"path": SCRIPTS[2], "calls": [], "imports": ["pkgC"]},
               {"path": SCRIPTS[3], "calls": [], "imports": ["pkgA"]},
               {"path": SCRIPTS[4], "calls": [], "imports": ["pkgB"]}]
    hidden = [{"a": {"pkg": "pkgB", "spec": "<1.1"}, "b": {"pkg": "pkgC", "spec": ">0.1"},
               "scope": "*", "error": "RuntimeError: pkgB and pkgC disagree"}]
    return {"packages": [a, b, c], "order": [0, 1, 2], "pythons": ["3.8", "3.9", "3.10", "3.11"],
            "scripts": scripts, "consistency": [], "hidden": hidden,
            "solution": {"python": "3.10",
                         "versions": {"pkgA": "1.1", "pkgB": "1.1", "pkgC": "0.1"}}}


def task_of(world: dict[str, Any], budget: int = 60) -> Task:
    """Wrap a world in a Task with an empty certificate (env tests only)."""
    return Task(id="repo-test-0-0000", env="repo", env_version=1, suite="lite",
                seed_path=[0, 1, 4, 0, 0], params={}, budget=budget,
                public=public_view(world, budget), world=world, rules_text=rules_text(world),
                rubric=RepoGame.rubric({}, world),
                certificate=Certificate(True, "sat-bmc", None, [], 1, None, {}))


SMALL = PRESETS["lite"].replace(n_min=4, n_max=6, v_min=2, v_max=3, n_conflicts=2, n_hidden=2,
                                n_consistency=1)


def small_world(seed: int, n: int, v_max: int) -> dict[str, Any]:
    """A sampled small world (BFS-sized) with ``n`` packages of 2..v_max versions."""
    config = SMALL.replace(n_min=n, n_max=n, v_max=v_max)
    return sample_world(config, np.random.SeedSequence([seed, 424242]))
