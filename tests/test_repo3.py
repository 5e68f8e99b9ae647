"""Repo v3: a hand-checked task's ladder and certificate, the rules text round trip, the planner
reading only the rules text, the presets build calibrated tasks, v1 and v2 left as they were."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from arena_gen.core import registry
from arena_gen.core.agent import TaskView
from arena_gen.core.episode import run_episode
from arena_gen.core.game import WorldView, play
from arena_gen.core.seeds import seed_path
from arena_gen.core.task import Task
from arena_gen.envs.repo import sampler_v3 as repo3
from arena_gen.envs.repo.agents.planner import RepoPlannerAgent
from arena_gen.envs.repo.game_v2 import RepoGameV2
from arena_gen.envs.repo.sampler_v2 import public_view
from arena_gen.envs.repo.verify_v3 import count_success, verify
from arena_gen.suite.build import generate_task
from arena_gen.suite.ladder import climb
from arena_gen.suite.verify import check_task


def _api(module: str, symbols: dict[str, list[str]]) -> dict[str, Any]:
    return {"modules": [module], "exports": {module: sorted(symbols)},
            "signatures": {f"{module}:{s}": kws for s, kws in symbols.items()}}


def hand_world() -> dict[str, Any]:
    """Two packages, one script. ``core/smoke.py`` calls ``pkg1.core.fit``, which only pkg1 1.1
    exports; pkg1 (high priority) depends on pkg0 and needs ``pkg0.core.load``, which only pkg0
    2.0 exports; but installing pkg1 1.1 forces pkg0 down to 1.0 (a side effect that moves it
    off the working state). Shortest: python, pkg1==1.1 (pulls pkg0 2.0, then forces it to 1.0),
    pkg0==2.0, run.py = 4 commands. The success set: pkg1 1.1 with pkg0 2.0, only."""
    dep = [["pkg0", [[">=", "1.0"]]]]
    return {
        "python_versions": ["3.10", "3.11"], "package_order": ["pkg0", "pkg1"],
        "packages": {"pkg0": {"versions": ["1.0", "2.0"], "priority": "low"},
                     "pkg1": {"versions": ["1.0", "1.1"], "priority": "high"}},
        "version_requires_python": {"pkg0": {}, "pkg1": {}},
        "version_dependencies": {"pkg0": {"1.0": [], "2.0": []},
                                 "pkg1": {"1.0": dep, "1.1": dep}},
        "version_conflicts": {"pkg0": {"1.0": [], "2.0": []}, "pkg1": {"1.0": [], "1.1": []}},
        "side_effects": {"pkg0": {"1.0": [], "2.0": []},
                         "pkg1": {"1.0": [], "1.1": [["force_low", "pkg0", [[">=", "1.0"]]]]}},
        "api_surface": {
            "pkg0": {"1.0": _api("pkg0.core", {"read": []}),
                     "2.0": _api("pkg0.core", {"load": ["path"], "read": []})},
            "pkg1": {"1.0": _api("pkg1.core", {"score": []}),
                     "1.1": _api("pkg1.core", {"fit": ["seed"], "score": []})}},
        "symbol_requires": {
            "pkg0": {"1.0": [], "2.0": []},
            "pkg1": {v: [{"provider": "pkg0", "module": "pkg0.core", "symbol": "load",
                          "required_kwargs": []}] for v in ("1.0", "1.1")}},
        "scripts": {"core/smoke.py": {"calls": [{"provider": "pkg1", "module": "pkg1.core",
                                                 "symbol": "fit",
                                                 "required_kwargs": ["seed"]}],
                                      "imports": ["pkg0", "pkg1"]}},
        "entrypoints": ["core/smoke.py"],
        "consistency_rules": [], "hidden_rules": [], "base_libs": ["pkg0"],
    }


def hand_task() -> Task:
    world, budget = hand_world(), 24
    params = {"min_len": 1, "success_max": 10, "bmc_conflicts": 10_000, "search_limit": 6}
    public = public_view(world, budget)
    text, rubric = repo3.rules_text(world), RepoGameV2.rubric(params, world)
    cert = verify(Task(id="repo-custom-0-0000", env="repo", env_version=3, suite="custom",
                       seed_path=seed_path(0, "custom", 4, 0, 0), params=params, budget=budget,
                       public=public, world=world, rules_text=text, rubric=rubric,
                       certificate=None))  # type: ignore[arg-type]
    return Task(id="repo-custom-0-0000", env="repo", env_version=3, suite="custom",
                seed_path=seed_path(0, "custom", 4, 0, 0), params=params, budget=budget,
                public=public, world=world, rules_text=text, rubric=rubric,
                certificate=cert)


def test_hand_task_certificate() -> None:
    cert = hand_task().certificate
    assert cert.solvable and cert.min_steps == 4 and cert.facts["exact"]
    assert cert.witness == ["pip install python==3.11", "pip install pkg1==1.1",
                            "pip install pkg0==2.0", "python run.py"]
    # cover bound 2 package commands (pkg1's install cannot leave pkg0 at 2.0): tight, one call
    assert cert.facts["cover_bound"] == 4 and cert.facts["sat_calls"] == 1
    assert cert.facts["success_configurations"] == 1


def test_hand_task_ladder_pinned() -> None:
    """Random fixes it once in four attempts (attempt 2, turn 7: two packages are few); the
    repair loop installs pkg1 (newest), reads the
    ImportError on pkg0.core.load, moves pkg0 to its newest and wins on turn 6; the planner
    plays the 4-command minimum."""
    ladder = climb(hand_task(), repo3.CALIBRATION["lite"])
    assert {r: (v["successes"], [x["steps"] for x in v["results"]])
            for r, v in ladder.items()} == {
        "random": (1, [24, 24, 7, 24]), "heuristic": (1, [6]), "planner": (1, [4])}


def test_rules_text_round_trip_plays_identically() -> None:
    """parse_rules(rules_text(world)) compiles to the same install plans, calls, symbol
    requirements, consistency and hidden rules (messages aside)."""
    for i in range(4):
        draft = repo3.sample(repo3.PRESETS["lite"], np.random.SeedSequence([5, i]))
        a = RepoGameV2(draft).rules
        b = RepoGameV2(WorldView(repo3.parse_rules(draft.rules_text))).rules
        for pa, pb in zip(a.plans, b.plans, strict=True):
            for x, y in zip(pa, pb, strict=True):
                assert (x.python, x.deps, x.effects, x.priority) == \
                    (y.python, y.deps, y.effects, y.priority)
                assert [c[:2] for c in x.conflicts] == [c[:2] for c in y.conflicts]
        assert a.needs == b.needs and a.calls == b.calls and a.touched == b.touched
        assert [c[:3] for c in a.consistency] == [c[:3] for c in b.consistency]
        assert [h[:2] for h in a.hidden] == [h[:2] for h in b.hidden]
        game_a, game_b = RepoGameV2(draft), RepoGameV2(WorldView(repo3.parse_rules(
            draft.rules_text)))
        assert count_success(game_a) == count_success(game_b)


def test_planner_reads_only_the_rules_text() -> None:
    """The planner plays a built task with the world withheld (and fails over to the repair
    loop, never crashes, without a rules text)."""
    task = hand_task()
    view = TaskView.of(task, "with-rules")
    assert view.world is None and view.witness is None
    agent = RepoPlannerAgent()
    agent.reset(view, "with-rules", np.random.default_rng(0))
    assert agent.queue == list(task.certificate.witness)
    record = run_episode(task, RepoPlannerAgent(), mode="with-rules")
    assert record["success"] and record["steps"] == 4
    blind = RepoPlannerAgent()
    blind.reset(TaskView.of(task, "inductive"), "inductive", np.random.default_rng(0))
    assert blind.fallback is not None


@pytest.mark.parametrize("suite", ["lite"])
def test_preset_builds_a_calibrated_exact_task(suite: str) -> None:
    built = generate_task("repo", suite, 7, 0, version=3).task
    cert = built.certificate
    assert built.env_version == 3 and cert.facts["exact"]
    assert cert.facts["success_configurations"] <= repo3.PRESETS[suite]["success_max"]
    assert cert.facts["ladder"]["planner"]["successes"] == 1
    assert cert.facts["ladder"]["random"]["successes"] == 0
    assert check_task(built).ok


def test_versions_registered() -> None:
    """v3 stays buildable (v5 is the default since 2026-12-07); v1 and v2 stay as they were
    (v2 a preview)."""
    assert registry.get("repo").version == 5 and not registry.get("repo", 3).preview
    assert registry.get("repo", 2).preview
    assert registry.get("repo", 2).load("sampler").__module__ == "arena_gen.envs.repo.sampler_v2"
    assert registry.get("repo", 1).load("sampler").__module__ == "arena_gen.envs.repo.sampler_v1"
    assert registry.get("repo", 3).game == registry.get("repo", 2).game  # one set of rules
    assert play(RepoGameV2(WorldView(hand_world())), ["pip install python==3.11",
                                                      "pip install pkg1",
                                                      "python run.py"]).success is False
